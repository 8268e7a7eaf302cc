// The Agent contract carried by gRPC over HTTP/2 (agent/http2/channel.ts): one session per
// agent, kept and reused by Walk, Stat and health; the agent's certificate checked against the
// inventory's CA; the bearer token sent as `authorization` on every call. gRPC statuses become
// FleetError codes here, once.
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http2';
import { FleetError, type WalkRequest } from '@fleetls/core';
import {
  AGENT_FEATURES_METADATA,
  codeFromStatus,
  loadContract,
  requestToWire,
  SERVICE_NAME,
  type WireStatResponseOut,
} from '@fleetls/proto';
import { readToken } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import health from 'grpc-health-check';
import type { Logger } from 'pino';
import { type AgentMeta, type Carrier, callFailure } from '../carrier.js';
import { type CallOptions, createAgentChannel } from './channel.js';
import { type AgentTlsMaterial, diagnoseTls } from './tls.js';

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
  if (signal?.aborted) return callFailure(err, signal);
  if (err instanceof FleetError) return err;
  const se = err as Partial<grpc.ServiceError>;
  if (typeof se.code === 'number') {
    const code = codeFromStatus(se.code as grpc.status);
    const details = se.details || grpc.status[se.code] || 'unknown';
    return new FleetError(code, `agent ${address}: ${details}`, { cause: err });
  }
  return FleetError.from(err);
}

/** A setting's file, its failure an invalid_argument naming the setting. */
function readSetting<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new FleetError('invalid_argument', (err as Error).message, { cause: err });
  }
}

function readPem(file: string, what: string): Buffer {
  return readSetting(() => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`agent_tls.${what}: cannot read ${file}: ${(err as Error).message}`);
    }
  });
}

function tlsMaterial(tls: AgentTlsFiles): AgentTlsMaterial {
  return {
    ca: readPem(tls.ca, 'ca'),
    key: tls.key ? readPem(tls.key, 'key') : undefined,
    cert: tls.cert ? readPem(tls.cert, 'cert') : undefined,
    serverName: tls.serverName,
  };
}

/** A method of the contract as proto-loader gives it: its path and its (de)serializers. */
interface MethodCodec {
  path: string;
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
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

/**
 * A Walk's call options, kept by its stream for the whole walk: made with `new`, not as a
 * literal, which V8 would allocate in the old generation (channel.ts, StartedCall, says why).
 */
class WalkCallOptions implements CallOptions {
  constructor(
    readonly timeoutMs: number,
    readonly signal: AbortSignal,
    readonly onHeaders: (headers: IncomingHttpHeaders) => void,
  ) {}
}

/** The carrier of one agent at `address` ("host:port" or "unix:PATH"); the session connects on first use. */
export function http2Carrier(address: string, opts: AgentBackendOptions): Carrier {
  const { packageDefinition } = loadContract();
  // proto-loader's definitions are untyped objects: the contract's two methods, read as codecs.
  const methods = packageDefinition[SERVICE_NAME] as unknown as Record<'Walk' | 'Stat', MethodCodec>;
  const log = opts.logger.child({ agent: address });
  const token =
    opts.tokenFile === undefined ? undefined : readSetting(() => readToken(opts.tokenFile!, 'agent_token_file'));
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

  async function unary<Res>(
    method: MethodCodec,
    request: unknown,
    signal: AbortSignal,
    onMeta?: (meta: AgentMeta) => void,
  ): Promise<Res> {
    const onMetadata = onMeta && ((h: IncomingHttpHeaders) => onMeta(metaOf(h)));
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
  }

  return {
    name: address,
    via: 'agent',
    // The channel's stream as it is: the client maps its failure (failure below) and returns
    // it when it stops early (the stream's own finally cancels the call).
    walk: (req, signal, onMeta) =>
      channel.serverStream(
        methods.Walk.path,
        encodedWalk(methods.Walk, req),
        // Response headers come before the first message: an agent is checked before any row is used.
        new WalkCallOptions(req.deadlineMs + WALK_GRACE_MS, signal, (h) => onMeta(metaOf(h))),
      ),
    failure,
    stat: (path, followSymlinks, signal, onMeta) =>
      unary<WireStatResponseOut>(methods.Stat, { path, followSymlinks }, signal, onMeta),
    /** Health Check of the Agent service (exempt from the token). */
    async health(signal) {
      const healthCheck: MethodCodec = health.service.Check;
      const check = await unary<{ status?: string | number }>(healthCheck, { service: SERVICE_NAME }, signal);
      if (check.status !== 'SERVING' && check.status !== 1) {
        throw new FleetError('unavailable', `agent ${address}: health says ${String(check.status)}`);
      }
    },
    peerNotAfter: () => channel.peerNotAfter(),
    close() {
      if (closed) return;
      closed = true;
      log.debug('closing agent connection');
      channel.close();
    },
  };
}

/** The agent's metadata in response headers or trailers (only what it set). */
function metaOf(h: IncomingHttpHeaders): AgentMeta {
  const meta: AgentMeta = {};
  const version = headerValue(h, AGENT_VERSION_METADATA);
  if (version !== undefined) meta.version = version;
  const features = headerValue(h, AGENT_FEATURES_METADATA);
  if (features !== undefined) meta.features = listValue(features);
  return meta;
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
