// Starts the real `fleetls serve` (packages/gateway/dist/main.js); its waitFor waits for the
// lines it prints on stderr once each face listens. Shared by every test of a gateway process,
// as are the SDK clients of its two MCP transports, checked against the tools' contract.
import * as path from 'node:path';
import { withContract } from '@fleetls/gateway/testing';
import { type Launched, launch } from '@fleetls/testkit';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from './agent-process.js';

export const GATEWAY_MAIN = path.join(REPO_ROOT, 'packages/gateway/dist/main.js');

/** waitFor(pattern) gives the first match in stderr (a face's address); a gateway that does not print it in time is killed. */
export type GatewayProcess = Launched;

/** `main`: another build of the gateway (the one-file bundle), run in `cwd`. Only PATH and HOME of this environment. */
export function startGateway(
  args: string[],
  env: Record<string, string>,
  opts: { main?: string; cwd?: string } = {},
): GatewayProcess {
  return launch(process.execPath, [opts.main ?? GATEWAY_MAIN, 'serve', ...args], {
    name: 'gateway',
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
}

/** A `fleetls serve --http` that listens, and its URL less /mcp: the Fleet API, /metrics and /healthz are under it. */
export interface HttpGateway {
  gateway: GatewayProcess;
  base: string;
}

/** `fleetls serve --http` on a loopback port, once it listens. */
export async function startHttpGateway(args: string[], env: Record<string, string>): Promise<HttpGateway> {
  const gateway = startGateway(['--http', '127.0.0.1:0', ...args], env);
  const base = (await gateway.waitFor(/MCP over HTTP at (\S+)/)).replace(/\/mcp$/, '');
  return { gateway, base };
}

/** What a test asks of its stdio gateway beyond `fleetls serve` and a checked client. */
export interface StdioClientOptions {
  /** More arguments to `fleetls serve`. */
  args?: string[];
  /**
   * The gateway's stderr (its log): ignored by default; 'pipe' makes it transport.stderr,
   * unread until the test reads it; a function is handed every chunk from the start.
   */
  stderr?: 'ignore' | 'pipe' | ((chunk: string) => void);
  /** How long the MCP handshake may take, in ms (the SDK's default otherwise). */
  timeout?: number;
  /** false: answers are not checked against the tools' contract. */
  contract?: boolean;
}

/**
 * An SDK client of `fleetls serve` over stdio, as an MCP host starts it, and its transport
 * (the gateway's pid). The gateway's environment is the SDK's default one (HOME, LOGNAME,
 * PATH, SHELL, TERM, USER) and `env`. A gateway that fails its handshake is stopped before
 * this throws: the SDK's own close then is not awaited, and a test would go on beside it.
 */
export async function stdioClient(
  name: string,
  env: Record<string, string> = {},
  opts: StdioClientOptions = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const { stderr = 'ignore' } = opts;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY_MAIN, 'serve', ...(opts.args ?? [])],
    env,
    stderr: stderr === 'ignore' ? 'ignore' : 'pipe',
  });
  if (typeof stderr === 'function') transport.stderr?.on('data', (d: Buffer) => stderr(d.toString('utf8')));
  const client = new Client({ name, version: '1.0.0' });
  try {
    await client.connect(transport, opts.timeout === undefined ? undefined : { timeout: opts.timeout });
  } catch (err) {
    await transport.close().catch(() => undefined);
    throw err;
  }
  return { client: opts.contract === false ? client : withContract(client), transport };
}

/** An SDK client of `fleetls serve --http` at `url` (its /mcp), with `token` as its bearer token. */
export async function httpClient(url: string, token: string, name: string): Promise<Client> {
  const client = withContract(new Client({ name, version: '1.0.0' }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/**
 * The v2 SDK's client (`@modelcontextprotocol/client`), as the hosts of 2026 run it: it probes
 * `server/discover` first (versionNegotiation `auto`; on stdio the probe runs in a sibling
 * process of the same command) and falls back to `initialize` only for a 2025-only server.
 */
const clientV2 = (name: string) => new ClientV2({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });

/** A v2 SDK client of `fleetls serve` over stdio (the gateway's log ignored). */
export async function stdioClientV2(name: string, env: Record<string, string> = {}): Promise<ClientV2> {
  const transport = new StdioClientTransportV2({
    command: process.execPath,
    args: [GATEWAY_MAIN, 'serve'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'ignore',
  });
  const client = clientV2(name);
  try {
    await client.connect(transport);
  } catch (err) {
    await transport.close().catch(() => undefined);
    throw err;
  }
  return client;
}

/** A v2 SDK client of `fleetls serve --http` at `url` (its /mcp), with `token` as its bearer token. */
export async function httpClientV2(url: string, token: string, name: string): Promise<ClientV2> {
  const client = clientV2(name);
  await client.connect(
    new StreamableHTTPClientTransportV2(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
