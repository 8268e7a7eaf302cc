// `fleetls serve`: the MCP server over stdio (default) or Streamable HTTP (--http), and the
// Fleet gRPC API (--grpc), with or without --http.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidArgument, isLoopback } from '@fleetls/core';
import type { LoadedFleet } from '../../fleet/fleet.js';
import type { GatewayOptions } from '../../fleet/options.js';
import { MemoryPageStore, type PageStore } from '../../fleet/page-store.js';
import type { OAuthVerifier } from '../../grants/oauth.js';
import type { Grants } from '../../grants/source.js';
import { EMBEDDED_EXAMPLE, parseEmbeddedAllow } from '../../inventory/localhost.js';
import type { Logger } from '../../logger.js';
import type { GatewayMetrics } from '../../metrics/metrics.js';
import { Readiness } from '../mcp/readiness.js';
import { serveStdio } from '../mcp/stdio.js';
import type { HostStatusCache } from '../web/host-status.js';
import type { CliIo } from './io.js';
import { authWords, checkGrpcFace, corsOrigins, grpcTls } from './serve-auth.js';
import { grantedSelector, openGrants, openOAuth, whoami } from './serve-grants.js';
import { servePeers } from './serve-peers.js';

export interface ServeFlags {
  http?: string;
  grpc?: string;
  grpcTlsCert?: string;
  grpcTlsKey?: string;
  grpcTlsCa?: string;
  corsOrigin?: string[];
  tokenFile?: string;
  /** `--no-auth`: HTTP and gRPC without a token, loopback only. */
  noAuth?: boolean;
  /** `--allow DIR` (repeatable): without an inventory, the roots of the embedded localhost. */
  allow?: string[];
  /** `--grants FILE`: who may call what (grants/file.ts); in place of the bearer token. */
  grants?: string;
  /** `--oauth-issuer URL` and `--oauth-audience URI` (with --grants): an OAuth 2.1 resource server. */
  oauthIssuer?: string;
  oauthAudience?: string;
  /** `--oauth-dashboard-client ID`: the dashboard signs in with the issuer as this public client. */
  oauthDashboardClient?: string;
}

/**
 * The roots of the embedded localhost when no inventory applies: `--allow`'s, or undefined
 * for `/` (stdio: the process that started it is the one caller). A network face (--http,
 * --grpc) without an inventory serves localhost only under roots given on its command line.
 * With an inventory, localhost and its roots are the inventory's.
 */
export function embeddedRoots(
  flags: ServeFlags,
  inventoryFile: string | undefined,
  registry = false,
): string[] | undefined {
  const given = flags.allow ?? [];
  if (inventoryFile !== undefined) {
    if (given.length > 0) {
      throw invalidArgument(
        `--allow: the roots of localhost come from the inventory (${inventoryFile}) when there is one: name it there, as ${EMBEDDED_EXAMPLE}`,
      );
    }
    return undefined;
  }
  if (given.length === 0) {
    // On a registry (--nats) alone the fleet is its agents: no localhost without --allow.
    if (registry || (flags.http === undefined && flags.grpc === undefined)) return undefined;
    throw invalidArgument(
      `serve ${flags.http !== undefined ? '--http' : '--grpc'} without an inventory serves this machine (localhost) only under directories given with --allow DIR (repeatable), e.g. --allow /var/log; or give an inventory (--inventory FILE) that names its hosts`,
    );
  }
  const roots = parseEmbeddedAllow(given, '--allow');
  if (roots.allow) return roots.allow;
  throw invalidArgument(roots.problems.map(([at, why]) => `${at}: ${why}`).join('; '));
}

/** "127.0.0.1:8765", "[::1]:8765", "localhost:0" → host and port. */
export function parseListen(text: string, flag = '--http'): { host: string; port: number } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : -1;
  if (!m || port > 65535) throw invalidArgument(`${flag}: expected HOST:PORT, as 127.0.0.1:8765, got '${text}'`);
  const host = m[1].startsWith('[') ? m[1].slice(1, -1) : m[1];
  return { host, port };
}

/**
 * Where scans spill rows past their memory bound: $FLEETLS_STATE_DIR, else the unit's
 * StateDirectory= ($STATE_DIRECTORY, its first entry); none: they stay in memory.
 */
export function stateDirOf(env: NodeJS.ProcessEnv): string | undefined {
  const dir = env.FLEETLS_STATE_DIR || env.STATE_DIRECTORY?.split(':')[0];
  return dir ? dir : undefined;
}

/**
 * The HTTP bearer token: --token-file, else $FLEETLS_TOKEN; undefined when neither. The file
 * may hold several, one per line: each is its own principal on --http (faces/mcp/http-principal.ts).
 */
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

/**
 * The loaded inventory and the options it gives (its defaults); runServe closes the fleet.
 * `localAllow`: the embedded localhost's roots when there is no inventory (embeddedRoots).
 */
export type OpenFleet = (localAllow?: string[]) => Promise<{ fleet: LoadedFleet; options: GatewayOptions }>;

interface ServeDeps {
  flags: ServeFlags;
  open: OpenFleet;
  /** The inventory file that applies (resolveInventoryPath), undefined when none. */
  inventoryFile?: string;
  /** --nats given: the registry's agents are the fleet, localhost only under --allow. */
  registry?: boolean;
  logger: Logger;
  io: CliIo;
  metrics?: GatewayMetrics;
}

export async function runServe(deps: ServeDeps): Promise<void> {
  const { flags, logger, io } = deps;
  if (flags.noAuth && flags.http === undefined && flags.grpc === undefined)
    throw invalidArgument('--no-auth applies to --http and --grpc only');
  const shutdown = io.untilShutdown?.() ?? new Promise<never>(() => {});
  // Read before anything listens: a bad grants file refuses the start, naming the key.
  const oauth = await openOAuth(flags);
  const grants = await openGrants(flags, io, logger, deps.inventoryFile);
  try {
    if (flags.http === undefined && flags.grpc === undefined) return await runStdio(deps, shutdown, grants);
    return await runNetwork(deps, shutdown, grants, oauth);
  } finally {
    grants?.close();
  }
}

async function runNetwork(
  deps: ServeDeps,
  shutdown: Promise<unknown>,
  grants: Grants | undefined,
  oauth: OAuthVerifier | undefined,
): Promise<void> {
  const { flags, open, logger, io, metrics } = deps;
  const token = grants ? undefined : readServeToken(flags, io.env);
  if (grants && readServeToken(flags, io.env) !== undefined) {
    throw invalidArgument(
      "--grants names who may call, by their tokens' hashes: it excludes a bearer token (--token-file or $FLEETLS_TOKEN)",
    );
  }
  const flagOrigins = corsOrigins(flags.corsOrigin);
  const tls = grpcTls(flags);
  const http = flags.http === undefined ? undefined : parseListen(flags.http);
  const grpcAt = flags.grpc === undefined ? undefined : parseListen(flags.grpc, '--grpc');
  // Refused before anything listens: the token first, then a network face without an
  // inventory needs --allow.
  const web = http ? await loadWebFaces() : undefined;
  if (http) web?.[0].checkAuth(token, flags.noAuth === true, http.host, isLoopback(http.host), grants !== undefined);
  if (grpcAt) checkGrpcFace(token, tls, flags, grpcAt.host, logger, grants !== undefined);
  const localAllow = embeddedRoots(flags, deps.inventoryFile, deps.registry);
  // /readyz = inventory loaded and every transport listening. HTTP listens first, so the
  // probes answer (not ready) while the inventory loads (Kubernetes discovery asks DNS).
  const readiness = new Readiness(['inventory', ...(grpcAt ? [GRPC] : [])]);
  const late: LateFaces = {};
  const closers: (() => Promise<void>)[] = [];
  try {
    let httpUrl: string | undefined;
    if (http && web) {
      const server = await startWebFaces(web, { deps, late, readiness, http, token, flagOrigins, grants, oauth });
      closers.push(server.close);
      httpUrl = server.url;
    }
    // A signal while the inventory loads stops the wait (the load itself cannot be cancelled).
    const opening = open(localAllow);
    const first = await Promise.race([opening, shutdown.then(() => undefined)]);
    if (!first) {
      void opening.then(
        ({ fleet }) => fleet.close(),
        () => undefined,
      );
      return;
    }
    late.loaded = first;
    const { fleet, options } = first;
    closers.push(() => fleet.close());
    servePeers(fleet, options, grants);
    readiness.up('inventory');
    // The Fleet API's scans (an RPC past its deadline goes on as one), shared by its gRPC and HTTP adapters.
    const { createScanRegistry } = await import('../../scans/scan-registry.js');
    const scans = createScanRegistry(options, logger, stateDirOf(io.env));
    closers.push(async () => scans.close());
    if (web) {
      // The Fleet API for browsers, beside /mcp: Connect and gRPC-Web, served by the same implementation as --grpc.
      const { createFleetHttpHandler } = await import('../fleet-api/connect.js');
      late.fleetApi = createFleetHttpHandler({
        fleet,
        logger,
        options,
        scans,
        caller: token ? 'http:bearer' : 'http:no-auth',
      });
      // The dashboard's host status: one probe per interval for all its tabs (web/host-status.ts).
      const cache = new web[3].HostStatusCache({ fleet, options, logger });
      late.hostStatus = cache;
      late.toolNames = (await import('../../tools/registry.js')).TOOLS.map((t) => t.name);
      closers.push(async () => cache.close());
    }
    if (grpcAt) {
      // grpc-js and the Fleet API load only with --grpc.
      const { startFleetGrpcServer } = await import('../fleet-api/server.js');
      const grpc = await startFleetGrpcServer({ fleet, logger, options, scans, ...grpcAt, token, tls, grants, oauth });
      closers.unshift(grpc.close);
      readiness.up(GRPC);
      io.stderr.write(`fleetls: Fleet API (gRPC) at ${grpc.address}${authWords(token, tls, grants !== undefined)}\n`);
    }
    if (httpUrl && web) {
      const auth = { token, from: tokenSource(flags) };
      announceHttp(io, web, httpUrl, auth, late.fleetApi, metrics, grants !== undefined);
    }
    await shutdown;
  } finally {
    readiness.stop();
    // The servers first (in-flight calls end), then the fleet they used.
    for (const close of closers) await close();
  }
}

/** stdio: the inventory first, then the MCP server until the client closes stdin, or a signal. */
async function runStdio(deps: ServeDeps, shutdown: Promise<unknown>, grants: Grants | undefined): Promise<void> {
  const { flags, logger, io } = deps;
  if (flags.tokenFile !== undefined)
    logger.warn('--token-file applies to --http and --grpc only; stdio needs no token');
  const { fleet, options } = await deps.open(embeddedRoots(flags, deps.inventoryFile, deps.registry));
  try {
    servePeers(fleet, options, grants);
    await Promise.race([
      serveStdio({
        fleet,
        logger,
        options,
        pages: fleet.pages,
        stateDir: stateDirOf(io.env),
        // The one caller of stdio is `local`: all, unless the grants file names it.
        ...(grants ? { access: () => grants.local() } : {}),
      }),
      shutdown,
    ]);
  } finally {
    await fleet.close();
  }
}

/** The HTTP faces (hono, the dashboard, its host status) load only with --http: stdio starts without them. */
function loadWebFaces() {
  return Promise.all([
    import('../mcp/http.js'),
    import('../web/assets.js'),
    import('../web/dashboard-api.js'),
    import('../web/host-status.js'),
  ]);
}
type WebFaces = Awaited<ReturnType<typeof loadWebFaces>>;

/** What the HTTP server reads per request once the inventory is loaded (it answers 503 before). */
interface LateFaces {
  loaded?: { fleet: LoadedFleet; options: GatewayOptions };
  fleetApi?: (req: IncomingMessage, res: ServerResponse) => void;
  hostStatus?: HostStatusCache;
  /** The tools of the registry, for the dashboard's `me` (what its principal may call). */
  toolNames?: string[];
}

function startWebFaces(
  web: WebFaces,
  at: {
    deps: ServeDeps;
    late: LateFaces;
    readiness: Readiness;
    http: { host: string; port: number };
    token: string | undefined;
    flagOrigins: string[];
    grants: Grants | undefined;
    oauth: OAuthVerifier | undefined;
  },
) {
  const [{ startHttpServer }, { loadDashboard }, { createDashboardApi }] = web;
  const { deps, late, readiness, http, token, flagOrigins, grants, oauth } = at;
  return startHttpServer({
    // On NATS the fleet's JetStream store, shared by every gateway; else this process's memory.
    pages: sharedPages(() => late.loaded?.fleet),
    // Read per request, and only once ready (serve-http answers 503 to all but the probes before).
    get fleet() {
      return ready(late.loaded).fleet;
    },
    get options() {
      return ready(late.loaded).options;
    },
    logger: deps.logger,
    stateDir: stateDirOf(deps.io.env),
    host: http.host,
    port: http.port,
    token,
    noAuth: deps.flags.noAuth,
    grants,
    oauth,
    metrics: deps.metrics?.registry,
    fleetApi: (req, res) => ready(late.fleetApi)(req, res),
    // The flag's origins, and the inventory's `cors_origins` once it is loaded.
    get corsOrigins() {
      return [...flagOrigins, ...(late.loaded?.fleet.inventory?.corsOrigins ?? [])];
    },
    // Signing in with the issuer, the page posts the code to its token endpoint.
    dashboard: loadDashboard(oauth?.settings.dashboardClient ? [new URL(oauth.settings.issuer).origin] : []),
    dashboardApi: createDashboardApi(
      () => ready(late.hostStatus),
      (req, selector) => grantedSelector(req, selector, ready(late.loaded).fleet),
      (req) => whoami(req, ready(late.loaded).fleet, late.toolNames ?? []),
      () => ready(late.loaded),
    ),
    notReady: () => readiness.notReady(),
  });
}

/** Where the bearer token came from, as a user would look for it. */
function tokenSource(flags: ServeFlags): string {
  return flags.tokenFile !== undefined ? `--token-file ${flags.tokenFile}` : '$FLEETLS_TOKEN';
}

/**
 * The dashboard's address. On a terminal, with the token after '#' (as Jupyter prints its URL
 * with its token): the user who started the server opens it signed in, though the token was
 * made inside the command (the README's FLEETLS_TOKEN=$(openssl rand …)). Elsewhere (a unit's
 * journal, a log file) the token is never written: the line says where it is.
 */
export function dashboardLine(base: string, auth: { token?: string; from: string }, terminal: boolean): string {
  if (!auth.token) return `fleetls: dashboard at ${base}`;
  // A file of several tokens (one principal each): the link signs in with the first.
  const first = auth.token.split('\n')[0].trim();
  if (terminal) return `fleetls: dashboard at ${base}#token=${encodeURIComponent(first)} (opens signed in)`;
  return `fleetls: dashboard at ${base} (sign in with the bearer token of ${auth.from})`;
}

/** The address people paste into an MCP client (port 0 resolved), once it answers; never on stdout. */
function announceHttp(
  io: CliIo,
  web: WebFaces,
  httpUrl: string,
  auth: { token?: string; from: string },
  fleetApi: LateFaces['fleetApi'],
  metrics: GatewayMetrics | undefined,
  granted: boolean,
): void {
  const { token } = auth;
  const words = granted
    ? ' (a token of the grants file required)'
    : token
      ? ` (bearer token required: ${auth.from})`
      : ' (no auth: --no-auth, any local process may call)';
  io.stderr.write(`fleetls: MCP over HTTP at ${httpUrl}${words}\n`);
  const urls = web[0].servedUrls(httpUrl.replace(/\/mcp$/, ''), { fleetApi, metrics: metrics?.registry });
  const also = [
    urls.fleet_api && `Fleet API (Connect, gRPC-Web) at ${urls.fleet_api}`,
    urls.metrics && `metrics at ${urls.metrics}`,
    `health at ${urls.healthz} and ${urls.readyz}`,
  ];
  io.stderr.write(`fleetls: ${also.filter(Boolean).join('; ')}\n`);
  io.stderr.write(`${dashboardLine(httpUrl.replace(/\/mcp$/, '/'), auth, io.stderr.isTTY === true)}\n`);
}

const GRPC = 'Fleet gRPC API';

function ready<T>(v: T | undefined): T {
  if (v === undefined) throw new Error('not ready: serve-http answers 503 before the inventory is loaded');
  return v;
}

/** The fleet's shared page store once loaded (NATS), else one kept in this process's memory. */
function sharedPages(fleet: () => LoadedFleet | undefined): PageStore {
  const memory = new MemoryPageStore();
  const store = () => fleet()?.pages ?? memory;
  return {
    put: (snapshot) => store().put(snapshot),
    get: (id, fingerprint) => store().get(id, fingerprint),
  };
}
