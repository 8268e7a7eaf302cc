// `fleetls serve`: the MCP server over stdio (default) or Streamable HTTP (--http).
import { readFileSync } from 'node:fs';
import { invalidArgument } from '@fleetls/core';
import type { Fleet } from '../fleet-types.js';
import type { Logger } from '../logger.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import type { GatewayOptions } from '../options.js';
import { startHttpServer } from '../serve-http.js';
import { serveStdio } from '../serve-stdio.js';
import type { CliIo } from './run.js';

export interface ServeFlags {
  http?: string;
  tokenFile?: string;
}

/** "127.0.0.1:8765", "[::1]:8765", "localhost:0" → host and port. */
export function parseListen(s: string): { host: string; port: number } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(s);
  const port = m ? Number(m[2]) : -1;
  if (!m || port > 65535) throw invalidArgument(`--http: expected HOST:PORT, as 127.0.0.1:8765, got '${s}'`);
  const host = m[1].startsWith('[') ? m[1].slice(1, -1) : m[1];
  return { host, port };
}

/** The HTTP bearer token: --token-file, else $FLEETLS_TOKEN; undefined when neither. */
export function readServeToken(flags: ServeFlags, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.tokenFile !== undefined) {
    let token: string;
    try {
      token = readFileSync(flags.tokenFile, 'utf8').trim();
    } catch (err) {
      throw invalidArgument(`--token-file: cannot read ${flags.tokenFile}: ${(err as Error).message}`);
    }
    if (token === '') throw invalidArgument(`--token-file: ${flags.tokenFile} is empty`);
    return token;
  }
  const fromEnv = env.FLEETLS_TOKEN?.trim();
  return fromEnv ? fromEnv : undefined;
}

export async function runServe(deps: {
  flags: ServeFlags;
  fleet: Fleet;
  logger: Logger;
  options: GatewayOptions;
  io: CliIo;
  metrics?: GatewayMetrics;
}): Promise<void> {
  const { flags, fleet, logger, options, io, metrics } = deps;
  const shutdown = io.untilShutdown?.() ?? new Promise<never>(() => {});
  if (flags.http === undefined) {
    if (flags.tokenFile !== undefined) logger.warn('--token-file applies to --http only; stdio needs no token');
    // Serves until the client closes stdin, or a signal.
    await Promise.race([serveStdio({ fleet, logger, options }), shutdown]);
    return;
  }
  const { host, port } = parseListen(flags.http);
  const token = readServeToken(flags, io.env);
  let stopping = false;
  const server = await startHttpServer({
    fleet,
    logger,
    options,
    host,
    port,
    token,
    metrics: metrics?.registry,
    // The fleet (inventory) is loaded before anything listens; shutting down is the one not-ready state.
    notReady: () => (stopping ? 'shutting down' : undefined),
  });
  // The address people paste into an MCP client (port 0 resolved); never on stdout.
  io.stderr.write(`fleetls: MCP over HTTP at ${server.url}${token ? ' (bearer token required)' : ''}\n`);
  try {
    await shutdown;
  } finally {
    stopping = true;
    await server.close();
  }
}
