// `fleetls serve`: the MCP server over stdio (default) or Streamable HTTP (--http), and the
// Fleet gRPC API (--grpc), with or without --http.
import { readFileSync } from 'node:fs';
import { invalidArgument } from '@fleetls/core';
import type { FleetTlsFiles } from '../fleet-api/server.js';
import type { Fleet } from '../fleet-types.js';
import type { Logger } from '../logger.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import type { GatewayOptions } from '../options.js';
import { startHttpServer } from '../serve-http.js';
import { serveStdio } from '../serve-stdio.js';
import { loadDashboard } from '../web/assets.js';
import type { CliIo } from './run.js';

export interface ServeFlags {
  http?: string;
  grpc?: string;
  grpcTlsCert?: string;
  grpcTlsKey?: string;
  grpcTlsCa?: string;
  corsOrigin?: string[];
  tokenFile?: string;
}

/** "127.0.0.1:8765", "[::1]:8765", "localhost:0" → host and port. */
export function parseListen(s: string, flag = '--http'): { host: string; port: number } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(s);
  const port = m ? Number(m[2]) : -1;
  if (!m || port > 65535) throw invalidArgument(`${flag}: expected HOST:PORT, as 127.0.0.1:8765, got '${s}'`);
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
  if (flags.http === undefined && flags.grpc === undefined) {
    if (flags.tokenFile !== undefined)
      logger.warn('--token-file applies to --http and --grpc only; stdio needs no token');
    // Serves until the client closes stdin, or a signal.
    await Promise.race([serveStdio({ fleet, logger, options }), shutdown]);
    return;
  }
  const token = readServeToken(flags, io.env);
  const tls = grpcTls(flags);
  let stopping = false;
  const closers: (() => Promise<void>)[] = [];
  try {
    if (flags.grpc !== undefined) {
      const { host, port } = parseListen(flags.grpc, '--grpc');
      // grpc-js and the Fleet API load only with --grpc.
      const { startFleetGrpcServer } = await import('../fleet-api/server.js');
      const grpc = await startFleetGrpcServer({ fleet, logger, options, host, port, token, tls });
      closers.push(grpc.close);
      io.stderr.write(`fleetls: Fleet API (gRPC) at ${grpc.address}${authWords(token, tls)}\n`);
    }
    if (flags.http !== undefined) {
      const { host, port } = parseListen(flags.http);
      // The Fleet API for browsers, beside /mcp: Connect and gRPC-Web, served by the same implementation as --grpc.
      const { createFleetHttpHandler } = await import('../fleet-api/connect.js');
      const server = await startHttpServer({
        fleet,
        logger,
        options,
        host,
        port,
        token,
        metrics: metrics?.registry,
        fleetApi: createFleetHttpHandler({ fleet, logger, options, caller: token ? 'http:bearer' : 'http:loopback' }),
        corsOrigins: corsOrigins(flags.corsOrigin),
        dashboard: loadDashboard(),
        // The fleet (inventory) is loaded and every face listens before this answers; shutting down is the one not-ready state.
        notReady: () => (stopping ? 'shutting down' : undefined),
      });
      closers.push(server.close);
      // The address people paste into an MCP client (port 0 resolved); never on stdout.
      io.stderr.write(`fleetls: MCP over HTTP at ${server.url}${token ? ' (bearer token required)' : ''}\n`);
      io.stderr.write(`fleetls: dashboard at ${server.url.replace(/\/mcp$/, '/')}\n`);
    }
    await shutdown;
  } finally {
    stopping = true;
    await Promise.all(closers.map((close) => close()));
  }
}

/** `--cors-origin https://dash.example` (repeatable): exact origins, as a browser sends them. */
function corsOrigins(given: string[] | undefined): string[] {
  return (given ?? []).map((o) => {
    let u: URL;
    try {
      u = new URL(o);
    } catch {
      throw invalidArgument(`--cors-origin: expected an origin such as https://dash.example, got '${o}'`);
    }
    if (u.origin !== o || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
      throw invalidArgument(
        `--cors-origin: expected an origin such as https://dash.example (scheme, host, port only), got '${o}'`,
      );
    }
    return o;
  });
}

function grpcTls(flags: ServeFlags): FleetTlsFiles | undefined {
  const { grpcTlsCert: cert, grpcTlsKey: key, grpcTlsCa: ca } = flags;
  if (cert === undefined && key === undefined && ca === undefined) return undefined;
  if (flags.grpc === undefined) throw invalidArgument('--grpc-tls-cert, --grpc-tls-key and --grpc-tls-ca need --grpc');
  if (cert === undefined || key === undefined) {
    throw invalidArgument('--grpc-tls-cert and --grpc-tls-key go together (and --grpc-tls-ca needs both)');
  }
  return { cert, key, ...(ca !== undefined ? { ca } : {}) };
}

function authWords(token: string | undefined, tls: FleetTlsFiles | undefined): string {
  const words = [tls ? (tls.ca ? 'TLS, client certificate required' : 'TLS') : 'plaintext'];
  if (token) words.push('bearer token required');
  return ` (${words.join(', ')})`;
}
