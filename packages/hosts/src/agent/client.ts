// The gateway's client of one fleetls-agent: one HTTP/2 session per agent (agent/http2/channel.ts),
// kept and reused by Walk, Stat and health; the agent's certificate checked against the
// inventory's CA; the bearer token sent as `authorization` on every call. gRPC statuses
// become FleetError codes here, once.
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http2';
import {
  FleetError,
  filterFeatures,
  type HostBackend,
  type Row,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import {
  AGENT_FEATURES_METADATA,
  codeFromStatus,
  decodeWalkResponse,
  loadContract,
  requestToWire,
  SERVICE_NAME,
  statFromWire,
  type WireStatResponseOut,
} from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import health from 'grpc-health-check';
import type { Logger } from 'pino';
import { refuseMissing } from './filters.js';
import { type AgentChannel, createAgentChannel } from './http2/channel.js';
import { type AgentTlsMaterial, diagnoseTls } from './http2/tls.js';

export type AgentTlsFiles = { ca: string; cert?: string; key?: string; serverName?: string };

export interface AgentBackendOptions {
  /** PEM files (the agent's CA; the gateway's client certificate and key for mTLS), or plaintext. */
  tls: AgentTlsFiles | 'insecure';
  /** File holding the bearer token sent in `authorization` on every call. */
  tokenFile?: string;
  /** Waiting for the agent to answer a new connection, at most. */
  connectTimeoutMs: number;
  /** gRPC deadline of a Stat or a probe; a walk's is its own budget plus a grace. Default 20 s. */
  callTimeoutMs?: number;
  logger: Logger;
}

/** Metadata key an agent may set (initial or trailing) with its version; read by probe(). */
export const AGENT_VERSION_METADATA = 'fleetls-agent-version';
const WALK_GRACE_MS = 2000;

/**
 * A gRPC error → FleetError, keeping the agent's message. When our own signal caused it
 * (cancel or deadline of the fan-out), the signal's reason wins.
 */
export function fleetErrorFromGrpc(err: unknown, address: string, signal?: AbortSignal): FleetError {
  if (signal?.aborted) {
    return signal.reason instanceof FleetError
      ? signal.reason
      : new FleetError('cancelled', 'cancelled', { cause: signal.reason });
  }
  if (err instanceof FleetError) return err;
  const se = err as Partial<grpc.ServiceError>;
  if (typeof se.code === 'number') {
    const code = codeFromStatus(se.code as grpc.status);
    const details = se.details || grpc.status[se.code] || 'unknown';
    return new FleetError(code, `agent ${address}: ${details}`, { cause: err });
  }
  return FleetError.from(err);
}

function readPem(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new FleetError('invalid_argument', `agent_tls.${what}: cannot read ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function readToken(tokenFile: string | undefined): string | undefined {
  if (tokenFile === undefined) return undefined;
  let token: string;
  try {
    token = readFileSync(tokenFile, 'utf8').trim();
  } catch (err) {
    throw new FleetError('invalid_argument', `agent_token_file: cannot read ${tokenFile}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (token === '') throw new FleetError('invalid_argument', `agent_token_file: ${tokenFile} is empty`);
  return token;
}

function tlsMaterial(tls: AgentTlsFiles): AgentTlsMaterial {
  return {
    ca: readPem(tls.ca, 'ca'),
    key: tls.key ? readPem(tls.key, 'key') : undefined,
    cert: tls.cert ? readPem(tls.cert, 'cert') : undefined,
    serverName: tls.serverName,
  };
}

/** What one agent's calls share: its address, its channel, the contract's codecs, the error reading. */
interface AgentCalls {
  address: string;
  channel: AgentChannel;
  methods: Record<'Walk' | 'Stat', MethodCodec>;
  /** A failed call → FleetError (a TLS failure asked why). */
  failure(err: unknown, signal: AbortSignal): Promise<FleetError>;
  unary<Res>(
    method: MethodCodec,
    request: unknown,
    signal: AbortSignal,
    onMetadata?: (h: IncomingHttpHeaders) => void,
  ): Promise<Res>;
}

/** The backend of one agent at `address` ("host:port" or "unix:PATH"); the session connects on first use. */
export function createAgentBackend(address: string, opts: AgentBackendOptions): HostBackend {
  const { packageDefinition } = loadContract();
  // proto-loader's definitions are untyped objects: the contract's two methods, read as codecs.
  const methods = packageDefinition[SERVICE_NAME] as unknown as Record<'Walk' | 'Stat', MethodCodec>;
  const log = opts.logger.child({ agent: address });
  const token = readToken(opts.tokenFile);
  const material = opts.tls === 'insecure' ? undefined : tlsMaterial(opts.tls);
  const channel = createAgentChannel({
    address,
    tls: material,
    authorization: token === undefined ? undefined : `Bearer ${token}`,
    connectTimeoutMs: opts.connectTimeoutMs,
  });
  const callTimeoutMs = opts.callTimeoutMs ?? 20_000;
  let closed = false;

  /**
   * A failed call → FleetError; a TLS connection that failed is asked why (diagnoseTls), so
   * that a trust fault is `auth` with its certificate, not `unreachable`.
   */
  const failure = async (err: unknown, signal: AbortSignal): Promise<FleetError> => {
    const fe = fleetErrorFromGrpc(err, address, signal);
    if (!material || fe.code !== 'unavailable' || signal.aborted || err instanceof FleetError) return fe;
    const trust = await diagnoseTls(address, material, opts.connectTimeoutMs, signal);
    if (trust) log.debug({ err: trust.message }, 'TLS to the agent failed');
    return trust ?? fe;
  };

  const calls: AgentCalls = {
    address,
    channel,
    methods,
    failure,
    async unary<Res>(
      method: MethodCodec,
      request: unknown,
      signal: AbortSignal,
      onMetadata?: (h: IncomingHttpHeaders) => void,
    ): Promise<Res> {
      try {
        const bytes = await channel.unary(method.path, method.requestSerialize(request), {
          timeoutMs: callTimeoutMs,
          signal,
          onHeaders: onMetadata,
          onTrailers: onMetadata,
        });
        return method.responseDeserialize(bytes) as Res;
      } catch (err) {
        throw await failure(err, signal);
      }
    },
  };

  return {
    via: 'agent',
    walk: (req, signal) => walkAgent(calls, req, signal),
    async stat(path, followSymlinks, signal) {
      const res = await calls.unary<WireStatResponseOut>(methods.Stat, { path, followSymlinks }, signal);
      const { agentVersion: _v, ...info } = statFromWire(res);
      return info;
    },
    probe: (signal) => probeAgent(calls, signal),
    close() {
      if (closed) return;
      closed = true;
      log.debug('closing agent connection');
      channel.close();
    },
  };
}

/**
 * Walk requests as encoded, by request: a fan-out hands every host the same request object
 * (unless a host's budget shortens its deadline), so it is encoded once, not once per host.
 * Requests are never changed once made.
 */
const walkRequestBytes = new WeakMap<WalkRequest, Buffer>();

function encodedWalk(method: MethodCodec, req: WalkRequest): Buffer {
  let bytes = walkRequestBytes.get(req);
  if (!bytes) {
    bytes = method.requestSerialize(requestToWire(req));
    walkRequestBytes.set(req, bytes);
  }
  return bytes;
}

/** A Walk: rows as they come, the agent's features checked before the first row and from its summary. */
async function* walkAgent(
  { address, channel, methods, failure }: AgentCalls,
  req: WalkRequest,
  signal: AbortSignal,
): AsyncGenerator<Row[], WalkSummary, void> {
  const requested = filterFeatures(req.filter);
  let version: string | undefined;
  let advertised: string[] = [];
  let checked = requested.length === 0;
  let summary: WalkSummary | undefined;
  const messages = channel.serverStream(methods.Walk.path, encodedWalk(methods.Walk, req), {
    timeoutMs: req.deadlineMs + WALK_GRACE_MS,
    signal,
    // Response headers come before the first message: an agent is checked before any row is used.
    onHeaders: (h) => {
      version = headerValue(h, AGENT_VERSION_METADATA) ?? version;
      advertised = listValue(headerValue(h, AGENT_FEATURES_METADATA));
    },
  });
  try {
    for await (const bytes of messages) {
      if (!checked) {
        refuseMissing(address, requested, advertised, version, 'not in its features');
        checked = true;
      }
      const msg = decodeWalkResponse(bytes);
      if (msg.summary) summary = msg.summary;
      if (msg.rows.length > 0) yield msg.rows;
    }
  } catch (err) {
    throw await failure(err, signal);
  } finally {
    // The consumer stopped early (return()/throw()): the stream's own finally cancels the call.
    await messages.return();
  }
  if (signal.aborted) throw fleetErrorFromGrpc(undefined, address, signal);
  if (!summary) throw new FleetError('internal', `agent ${address}: walk ended without a summary`);
  refuseMissing(address, requested, summary.applied ?? [], version, 'not echoed in its summary');
  return summary;
}

/**
 * Reachability: health Check of the Agent service (exempt from the token), then a Stat
 * of '/' with the token, which proves TLS and the token and carries `agent_version`.
 * An agent that does not serve '/' still answers (not_found, permission_denied or
 * invalid_argument): it is reachable, and its version comes from the
 * `fleetls-agent-version` response metadata when it sends one, else 'unknown'.
 */
async function probeAgent(
  calls: AgentCalls,
  signal: AbortSignal,
): Promise<{ version: string; features: string[]; certNotAfter?: Date }> {
  const healthCheck: MethodCodec = health.service.Check;
  const check = await calls.unary<{ status?: string | number }>(healthCheck, { service: SERVICE_NAME }, signal);
  if (check.status !== 'SERVING' && check.status !== 1) {
    throw new FleetError('unavailable', `agent ${calls.address}: health says ${String(check.status)}`);
  }
  let fromMetadata: string | undefined;
  let features: string[] = [];
  const readVersion = (h: IncomingHttpHeaders) => {
    fromMetadata = headerValue(h, AGENT_VERSION_METADATA) ?? fromMetadata;
    const f = headerValue(h, AGENT_FEATURES_METADATA);
    if (f !== undefined) features = [...listValue(f)];
  };
  const certNotAfter = () => {
    const notAfter = calls.channel.peerNotAfter();
    return notAfter ? { certNotAfter: notAfter } : {};
  };
  try {
    const stat = { path: '/', followSymlinks: false };
    const res = await calls.unary<WireStatResponseOut>(calls.methods.Stat, stat, signal, readVersion);
    return { version: res.agentVersion || fromMetadata || 'unknown', features, ...certNotAfter() };
  } catch (err) {
    const fe = FleetError.from(err);
    if (fe.code === 'not_found' || fe.code === 'permission_denied' || fe.code === 'invalid_argument') {
      return { version: fromMetadata ?? 'unknown', features, ...certNotAfter() };
    }
    throw fe;
  }
}

/** A method of the contract as proto-loader gives it: its path and its (de)serializers. */
interface MethodCodec {
  path: string;
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}

function headerValue(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

let lastList: { raw: string; items: string[] } = { raw: '', items: [] };

/** A comma-separated metadata value → its items, not to be changed (the last one is kept: every call of an agent sends the same). */
function listValue(v: string | undefined): string[] {
  const raw = v ?? '';
  if (raw !== lastList.raw) lastList = { raw, items: raw.split(',').filter((f) => f !== '') };
  return lastList.items;
}
