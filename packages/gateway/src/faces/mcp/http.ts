// `fleetls serve --http HOST:PORT`: Streamable HTTP, stateless, at /mcp: the SDK's
// createMcpHandler makes a fresh server per POST, of the revision the request speaks
// (2026-07-28, or a 2025 one served the stateless way). In front of it, here: the bearer token
// (always, loopback included: any local process or user could call the tools otherwise;
// `noAuth` is the explicit, loopback-only way to run open), the grants, Host and Origin.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { FleetError, hostOfHostHeader, isLoopback } from '@fleetls/core';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler, type McpRequestContext } from '@modelcontextprotocol/server';
import { resolveGatewayOptions } from '../../fleet/options.js';
import { MemoryPageStore, type PageStore } from '../../fleet/page-store.js';
import type { CallerAccess } from '../../grants/access.js';
import { authorize } from '../../grants/authorize.js';
import { protectedResourceMetadata } from '../../grants/bearer.js';
import type { OAuthVerifier } from '../../grants/oauth.js';
import type { Grants } from '../../grants/source.js';
import { createScanRegistry, type ScanRegistry } from '../../scans/scan-registry.js';
import { writeFleetHttpError } from '../fleet-api/http-errors.js';
import { bearerTokens, requestAccess, setRequestAccess, setRequestPrincipal, tokenCheck } from './http-principal.js';
import { createMcpServer, type McpServerDeps } from './server.js';

export const MCP_PATH = '/mcp';
/** Largest request body accepted (tool calls are small). */
const MAX_BODY_BYTES = 1024 * 1024;

export interface HttpServerDeps extends McpServerDeps {
  host: string;
  port: number;
  /**
   * Required on every request as `Authorization: Bearer <token>`; mandatory unless `noAuth`.
   * Several tokens, one per line, are several principals (faces/mcp/http-principal.ts).
   */
  token?: string;
  /** `--no-auth`: serve without a token, on a loopback address only (logged at start). */
  noAuth?: boolean;
  /**
   * `--grants FILE`: callers are the file's principals (by hashed token), each held to its
   * grant and its rate; in place of `token`.
   */
  grants?: Grants;
  /**
   * `--oauth-issuer`/`--oauth-audience` (with grants): JWT access tokens of the issuer name
   * principals by their claims; /.well-known/oauth-protected-resource says where to get one.
   */
  oauth?: OAuthVerifier;
  /** Served at /metrics (Prometheus text), behind the same checks as /mcp. */
  metrics?: { contentType: string; metrics(): Promise<string> };
  /**
   * /readyz: undefined when ready, else why not; until then every other path answers 503.
   * /healthz and /readyz need no token: they tell nothing.
   */
  notReady?: () => string | undefined;
  /** The Fleet API (Connect, gRPC-Web) at /fleetls.v1.Fleet/*, behind the same checks as /mcp. */
  fleetApi?: (req: IncomingMessage, res: ServerResponse) => void;
  /** The dashboard's cached host status at /dashboard/api/* (web/dashboard-api.ts), behind the same checks as /mcp. */
  dashboardApi?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /**
   * Browser origins besides this server's own that may call /mcp, /metrics and the Fleet API
   * (CORS), exactly as a browser sends them (scheme, host, port); read per request.
   */
  corsOrigins?: readonly string[];
  /** The web dashboard at / (GET, no token: the page asks for it and holds no secret). */
  dashboard?: { serve(pathname: string, res: ServerResponse): boolean };
}

export const FLEET_API_PREFIX = '/fleetls.v1.Fleet/';
const DASHBOARD_API_PREFIX = '/dashboard/api/';

/** What a Connect or gRPC-Web call from a page of an allowed origin may send and read. */
const CORS_HEADERS = {
  'access-control-allow-methods': 'POST, GET',
  'access-control-allow-headers':
    'authorization, content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web, x-user-agent, mcp-protocol-version, mcp-method, mcp-name',
  'access-control-expose-headers': 'grpc-status, grpc-message, grpc-status-details-bin, www-authenticate',
  'access-control-max-age': '600',
};

export const METRICS_PATH = '/metrics';

/** Refuses to start open unless asked (`noAuth`), and open off loopback at all. */
export function checkAuth(
  token: string | undefined,
  noAuth: boolean,
  host: string,
  loopbackBound: boolean,
  grants = false,
): void {
  if (grants) {
    if (noAuth || token) {
      throw new FleetError(
        'invalid_argument',
        `--grants names who may call, by their tokens' hashes: it excludes ${noAuth ? '--no-auth' : 'a bearer token (--token-file or $FLEETLS_TOKEN)'}`,
      );
    }
    return;
  }
  if (noAuth && token) {
    throw new FleetError(
      'invalid_argument',
      '--no-auth and a bearer token (--token-file or $FLEETLS_TOKEN) exclude each other',
    );
  }
  if (noAuth && !loopbackBound) {
    throw new FleetError(
      'invalid_argument',
      `--no-auth serves the tools without a token and is refused on ${host}, which is not a loopback address; give a bearer token (--token-file or $FLEETLS_TOKEN)`,
    );
  }
  if (!noAuth && !token) {
    throw new FleetError(
      'invalid_argument',
      `refusing to serve MCP over HTTP on ${host} without a bearer token: give one with --token-file FILE or $FLEETLS_TOKEN (or --no-auth to run open, on loopback only)`,
    );
  }
}

/**
 * Whether a browser's Origin is this server itself: scheme, host and port of the address the
 * request was sent to (its Host header, which a browser always sets to the target). Another
 * port of the same host is another origin (another local web service), and so is another
 * loopback name. Behind a TLS proxy the page's origin is https:, so it goes on the allow-list.
 */
export function isOwnOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  try {
    return new URL(origin).origin === origin && new URL(`http://${hostHeader}`).origin === origin;
  } catch {
    return false; // includes "null" (sandboxed frames, file: pages)
  }
}

function jsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new FleetError('resource_exhausted', `request body is over the limit of ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Every URL this port answers at, as the start-up log names them (an operator's first question). */
export function servedUrls(base: string, deps: Pick<HttpServerDeps, 'dashboard' | 'fleetApi' | 'metrics'>) {
  return {
    mcp: `${base}${MCP_PATH}`,
    ...(deps.dashboard ? { dashboard: `${base}/` } : {}),
    ...(deps.fleetApi ? { fleet_api: `${base}${FLEET_API_PREFIX}` } : {}),
    ...(deps.metrics ? { metrics: `${base}${METRICS_PATH}` } : {}),
    healthz: `${base}/healthz`,
    readyz: `${base}/readyz`,
  };
}

/** What every request of one HTTP server reads: its settings and the state its MCP servers share. */
interface HttpScope {
  deps: HttpServerDeps;
  loopbackBound: boolean;
  wanted: ReturnType<typeof tokenCheck> | undefined;
  // One MCP server per request (stateless transport), one store of kept rankings for them all.
  pages: PageStore;
  // The scans of every request's server (made at the first call: the options come with the inventory).
  scans: ScanRegistry | undefined;
  /** POST /mcp past the checks: the SDK's handler, a fresh MCP server per request. */
  mcp: ReturnType<typeof toNodeHandler>;
  closeMcp(): Promise<void>;
}

/** Who a request is, as the checks found it, handed to the server factory as the request's AuthInfo. */
interface Caller {
  principal: string;
  caller: string;
  access: CallerAccess | undefined;
}

export async function startHttpServer(deps: HttpServerDeps): Promise<{ url: string; close(): Promise<void> }> {
  const tokens = bearerTokens(deps.token);
  const token = tokens.length === 0 ? undefined : deps.token;
  const loopbackBound = isLoopback(deps.host);
  checkAuth(token, deps.noAuth === true, deps.host, loopbackBound, deps.grants !== undefined);
  const wanted = token === undefined ? undefined : tokenCheck(tokens);
  const log = deps.logger.child({ transport: 'http' });
  const handler = createMcpHandler((ctx) => mcpServerOf(scope, ctx), {
    onerror: (err) => log.debug({ err }, 'MCP request failed'),
  });
  const scope: HttpScope = {
    deps,
    loopbackBound,
    wanted,
    pages: deps.pages ?? new MemoryPageStore(),
    scans: deps.scans,
    mcp: toNodeHandler(handler, { onerror: (err) => log.debug({ err }, 'MCP request failed') }),
    closeMcp: () => handler.close(),
  };
  if (!token && !deps.grants)
    log.warn({ auth: 'none' }, '--no-auth: no bearer token; any local process or user may call the tools');

  const http = createServer((req, res) => {
    handle(scope, req, res).catch((err: unknown) => {
      log.error({ err }, 'HTTP request failed');
      if (!res.headersSent) jsonError(res, 500, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(deps.port, deps.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : deps.port;
  const hostPart = deps.host.includes(':') && !deps.host.startsWith('[') ? `[${deps.host}]` : deps.host;
  const base = `http://${hostPart}:${port}`;
  const url = `${base}${MCP_PATH}`;
  log.info(
    { url, urls: servedUrls(base, deps), auth: deps.grants ? 'grants' : token ? 'bearer' : 'none' },
    'HTTP server listening',
  );
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (!deps.scans) scope.scans?.close();
        void scope.closeMcp();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

type Refuse = (status: number, message: string, headers?: Record<string, string>) => void;

async function handle(scope: HttpScope, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { deps } = scope;
  const url = new URL(req.url ?? '/', 'http://localhost');
  // A Fleet API caller (connect-es, gRPC-Web) reads refusals in its own protocol, not JSON-RPC.
  const refuse: Refuse = (status, message, headers) =>
    url.pathname.startsWith(FLEET_API_PREFIX)
      ? writeFleetHttpError(req, res, status, message, headers)
      : jsonError(res, status, message, headers);
  if (url.pathname === '/healthz') return plain(res, 200, 'ok');
  if (deps.oauth && deps.grants && isResourceMetadataPath(url.pathname, deps.oauth)) {
    // Public, as RFC 9728 means it: a client reads it before it has any token.
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'max-age=300',
      'access-control-allow-origin': '*',
    });
    res.end(JSON.stringify(protectedResourceMetadata(deps.oauth.settings, deps.grants.scopes())));
    return;
  }
  if (url.pathname === DASHBOARD_SIGN_IN && req.method === 'GET') return dashboardSignIn(deps, res);
  const why = deps.notReady?.();
  if (url.pathname === '/readyz') {
    return why === undefined ? plain(res, 200, 'ready') : plain(res, 503, `not ready: ${why}`);
  }
  // Nothing else before the inventory is loaded (the tools would have no fleet), nor once shutting down.
  if (why !== undefined) return refuse(503, `not ready: ${why}`);
  // The page itself, still only to loopback Host names on a loopback server (DNS rebinding).
  if (
    deps.dashboard &&
    req.method === 'GET' &&
    (!scope.loopbackBound || isLoopback(hostOfHostHeader(req.headers.host)))
  ) {
    if (deps.dashboard.serve(url.pathname, res)) return;
  }
  const metrics = url.pathname === METRICS_PATH ? deps.metrics : undefined;
  const fleetApi = url.pathname.startsWith(FLEET_API_PREFIX) ? deps.fleetApi : undefined;
  const dashboardApi = url.pathname.startsWith(DASHBOARD_API_PREFIX) ? deps.dashboardApi : undefined;
  if (url.pathname !== MCP_PATH && !metrics && !fleetApi && !dashboardApi) {
    return jsonError(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);
  }
  const principal = await admit(scope, req, res, refuse);
  if (principal === undefined) return;
  setRequestPrincipal(req, principal);
  if (fleetApi) {
    fleetApi(req, res);
    return;
  }
  if (dashboardApi) return dashboardApi(req, res);
  if (metrics) {
    if (req.method !== 'GET') return jsonError(res, 405, 'method not allowed: GET /metrics', { allow: 'GET' });
    const text = await metrics.metrics();
    res.writeHead(200, { 'content-type': metrics.contentType });
    res.end(text);
    return;
  }
  return serveMcp(scope, req, res, principal);
}

/**
 * The caller's principal, or undefined once refused. DNS rebinding: a page of evil.example whose
 * name now resolves to 127.0.0.1 sends `Host: evil.example` and its own Origin. A loopback server
 * answers loopback names only, token or not; and no server answers a browser page of another origin.
 */
async function admit(
  scope: HttpScope,
  req: IncomingMessage,
  res: ServerResponse,
  refuse: Refuse,
): Promise<string | undefined> {
  const host = hostOfHostHeader(req.headers.host);
  if (scope.loopbackBound && !isLoopback(host)) {
    return void refuse(403, 'forbidden: Host header must name a loopback address');
  }
  const origin = req.headers.origin;
  const corsOrigin = origin !== undefined && scope.deps.corsOrigins?.includes(origin) ? origin : undefined;
  if (origin !== undefined && !corsOrigin && !isOwnOrigin(origin, req.headers.host)) {
    return void refuse(403, `forbidden: Origin ${JSON.stringify(origin.slice(0, 100))} is not this server`);
  }
  if (corsOrigin) {
    res.setHeader('access-control-allow-origin', corsOrigin);
    res.setHeader('vary', 'Origin');
    // A preflight carries no credentials: it only asks what the real call may send.
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS_HEADERS);
      res.end();
      return undefined;
    }
    for (const [k, v] of Object.entries(CORS_HEADERS)) res.setHeader(k, v);
  }
  if (scope.deps.grants) {
    // A request refused at the door is an audit line too: who tried, and why not.
    const audited: Refuse = (status, message, headers) => {
      scope.deps.logger.info(
        {
          audit: 'door',
          decision: 'refused',
          status,
          why: message,
          path: new URL(req.url ?? '/', 'http://x').pathname,
        },
        'audit',
      );
      refuse(status, message, headers);
    };
    return admitGranted(scope.deps.grants, scope.deps.oauth, req, audited);
  }
  // A scan belongs to the token that started it (faces/mcp/http-principal.ts).
  const principal = scope.wanted ? scope.wanted.principal(req.headers.authorization) : 'http:no-auth';
  if (principal === undefined) {
    refuse(401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer realm="fleetls"' });
  }
  return principal;
}

/**
 * With a grants file: the principal whose token the request carries, held to its rate here
 * (429 and Retry-After, before the body is read); its grant travels with the request.
 */
async function admitGranted(
  grants: Grants,
  oauth: OAuthVerifier | undefined,
  req: IncomingMessage,
  refuse: Refuse,
): Promise<string | undefined> {
  let who: Awaited<ReturnType<typeof authorize>>;
  try {
    who = await authorize(grants, oauth, req.headers.authorization);
  } catch (err) {
    // The issuer's keys could not be had: the caller may retry; nothing was decided about it.
    const fe = FleetError.from(err);
    if (fe.code !== 'unavailable') throw err;
    return void refuse(503, fe.message, { 'retry-after': '5' });
  }
  if ('refused' in who) {
    return void refuse(who.refused.status, who.refused.message, { 'www-authenticate': who.refused.challenge });
  }
  const { access } = who;
  const wait = access.limiter?.tryTake() ?? 0;
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    return void refuse(
      429,
      `too many requests: ${access.principal} may make ${access.spec?.callsPerMinute} a minute; retry in ${s} s`,
      { 'retry-after': String(s) },
    );
  }
  setRequestAccess(req, { ...access, counted: true });
  return access.principal;
}

/** What the dashboard signs in with (no token: it is how the page gets one). */
const DASHBOARD_SIGN_IN = '/dashboard/oauth';

/** GET /dashboard/oauth: the issuer's endpoints and the dashboard's public client, or 204 without one. */
async function dashboardSignIn(deps: HttpServerDeps, res: ServerResponse): Promise<void> {
  let signIn: object | undefined;
  try {
    signIn = deps.oauth && deps.grants ? await deps.oauth.dashboardSignIn(deps.grants.scopes()) : undefined;
  } catch (err) {
    return jsonError(res, 503, FleetError.from(err).message, { 'retry-after': '5' });
  }
  // No issuer sign-in: the page offers the token form only (204, not an error a browser logs).
  if (!signIn) {
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(signIn));
}

/** `/.well-known/oauth-protected-resource`, and the same with the resource's path after it (RFC 9728 §3.1). */
function isResourceMetadataPath(pathname: string, oauth: OAuthVerifier): boolean {
  const base = '/.well-known/oauth-protected-resource';
  if (pathname === base) return true;
  const own = new URL(oauth.settings.audience).pathname.replace(/\/$/, '');
  return own !== '' && pathname === `${base}${own}`;
}

/** POST /mcp: the body read within its bound, answered by a fresh MCP server and transport. */
async function serveMcp(scope: HttpScope, req: IncomingMessage, res: ServerResponse, principal: string): Promise<void> {
  const { deps } = scope;
  if (req.method !== 'POST') {
    return jsonError(res, 405, 'method not allowed: this server is stateless, POST only', { allow: 'POST' });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    return jsonError(res, 413, `request body of ${declared} bytes is over the limit of ${MAX_BODY_BYTES}`, {
      connection: 'close',
    });
  }
  let body: unknown;
  try {
    body = await readJson(req);
  } catch (err) {
    const fe = FleetError.from(err);
    if (fe.code === 'resource_exhausted') return jsonError(res, 413, fe.message, { connection: 'close' });
    return jsonError(res, 400, `bad request body: ${fe.message}`);
  }
  scope.scans ??= createScanRegistry(resolveGatewayOptions(deps.options), deps.logger, deps.stateDir);
  const access = requestAccess(req);
  const caller: Caller = {
    principal,
    caller: access ? `http:grant:${access.principal}` : scope.wanted ? 'http:bearer' : 'http:no-auth',
    access,
  };
  // The SDK's handler passes `auth` through to the factory untouched (it verifies nothing).
  (req as IncomingMessage & { auth?: AuthInfo }).auth = {
    token: '',
    clientId: principal,
    scopes: [],
    extra: { caller },
  };
  await scope.mcp(req, res, body);
}

/** The MCP server of one request: its caller's principal, grant and audit name, the process's scans and pages. */
function mcpServerOf(scope: HttpScope, ctx: McpRequestContext) {
  const who = ctx.authInfo?.extra?.caller as Caller | undefined;
  // Only ever reached through serveMcp, past the checks.
  if (!who || !scope.scans) throw new Error('an MCP request reached the server factory without its checks');
  const { access } = who;
  return createMcpServer({
    ...scope.deps,
    pages: scope.pages,
    scans: scope.scans,
    principal: who.principal,
    caller: who.caller,
    ...(access ? { access: () => access } : {}),
  });
}
