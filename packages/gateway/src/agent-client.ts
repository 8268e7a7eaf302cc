// The gateway's client of one fleetls-agent: one gRPC channel per agent, kept and reused
// by every call; the agent's certificate checked against the inventory's CA; the bearer
// token sent as call credentials. gRPC statuses become FleetError codes here, once.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import {
  type FilterFeature,
  FleetError,
  filterFeatures,
  type HostBackend,
  type Row,
  type StatInfo,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import {
  AGENT_FEATURES_METADATA,
  type AgentClient,
  codeFromStatus,
  loadContract,
  requestToWire,
  rowFromWire,
  SERVICE_NAME,
  statFromWire,
  summaryFromWire,
  type WireStatResponseOut,
  type WireWalkResponseOut,
} from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import health from 'grpc-health-check';
import type { Logger } from 'pino';
import { type AgentTlsMaterial, checkIdentity, diagnoseTls, tlsIdentity } from './agent-tls.js';

export type AgentTlsFiles = { ca: string; cert?: string; key?: string; serverName?: string };

export interface AgentBackendOptions {
  /** PEM files (the agent's CA; the gateway's client certificate and key for mTLS), or plaintext. */
  tls: AgentTlsFiles | 'insecure';
  /** File holding the bearer token sent in `authorization` on every call. */
  tokenFile?: string;
  /** Waiting for the channel to connect, at most. */
  connectTimeoutMs: number;
  /** gRPC deadline of a Stat or a probe; a walk's is its own budget plus a grace. Default 20 s. */
  callTimeoutMs?: number;
  logger: Logger;
}

/** Metadata key an agent may set (initial or trailing) with its version; read by probe(). */
export const AGENT_VERSION_METADATA = 'fleetls-agent-version';
const WALK_GRACE_MS = 2000;

/**
 * An agent that does not apply every filter of the request would return rows it should
 * have left out: the host fails instead, naming what is missing and the agent's version.
 */
function refuseMissing(
  address: string,
  requested: readonly FilterFeature[],
  applied: readonly string[],
  version: string | undefined,
  where: string,
): void {
  const missing = requested.filter((f) => !applied.includes(f));
  if (missing.length === 0) return;
  throw new FleetError(
    'internal',
    `agent ${address} (version ${version ?? 'unknown'}) does not apply ${missing.join(', ')} (${where}); ` +
      'its rows would be unfiltered: upgrade the agent or drop the filter',
  );
}

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

function channelCredentials(
  address: string,
  tls: AgentTlsMaterial | undefined,
  token: string | undefined,
): grpc.ChannelCredentials {
  if (!tls) return grpc.credentials.createInsecure();
  const ssl = grpc.credentials.createSsl(tls.ca, tls.key ?? null, tls.cert ?? null, {
    checkServerIdentity: checkIdentity(tlsIdentity(address, tls).name),
  });
  if (token === undefined) return ssl;
  const bearer = `Bearer ${token}`;
  return grpc.credentials.combineChannelCredentials(
    ssl,
    grpc.credentials.createFromMetadataGenerator((_params, cb) => {
      const md = new grpc.Metadata();
      md.set('authorization', bearer);
      cb(null, md);
    }),
  );
}

/** The backend of one agent at `address` ("host:port"); the channel connects on first use. */
export function createAgentBackend(address: string, opts: AgentBackendOptions): HostBackend {
  const { proto } = loadContract();
  const log = opts.logger.child({ agent: address });
  const token = readToken(opts.tokenFile);
  const material = opts.tls === 'insecure' ? undefined : tlsMaterial(opts.tls);
  const creds = channelCredentials(address, material, token);
  // Insecure channels cannot carry call credentials, so there the token goes in each call's metadata.
  const plaintextToken = opts.tls === 'insecure' ? token : undefined;
  const channelOptions: grpc.ChannelOptions = {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.initial_reconnect_backoff_ms': 500,
    'grpc.max_reconnect_backoff_ms': 5000,
    'grpc.max_receive_message_length': 16 << 20,
    // Our own channel, not grpc-js's global pool: close() then really closes its connection.
    'grpc.use_local_subchannel_pool': 1,
  };
  // The SNI sent; the certificate is checked against the name itself (checkIdentity).
  if (material) channelOptions['grpc.ssl_target_name_override'] = tlsIdentity(address, material).sni;
  const client = new proto.fleetls.v1.Agent(address, creds, channelOptions) as AgentClient;
  const HealthClient = grpc.makeGenericClientConstructor(health.service, 'Health');
  const healthClient = new HealthClient(address, creds, { channelOverride: grpc.getClientChannel(client) });
  const callTimeoutMs = opts.callTimeoutMs ?? 20_000;
  let closed = false;

  const metadata = (): grpc.Metadata => {
    const md = new grpc.Metadata();
    if (plaintextToken) md.set('authorization', `Bearer ${plaintextToken}`);
    return md;
  };

  /**
   * Resolves once the channel is READY or has failed (a refused port fails fast: the
   * fail-fast call that follows then carries the connect error), and rejects with
   * `unavailable` when nothing happened within connectTimeoutMs.
   */
  const connected = (signal: AbortSignal): Promise<void> => {
    if (closed) return Promise.reject(new FleetError('unavailable', `agent ${address}: client closed`));
    const channel = client.getChannel();
    const deadline = Date.now() + opts.connectTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(fleetErrorFromGrpc(undefined, address, signal));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = (fn: () => void) => {
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const check = (state: grpc.connectivityState) => {
        if (state === grpc.connectivityState.READY || state === grpc.connectivityState.TRANSIENT_FAILURE) {
          return settle(resolve);
        }
        if (state === grpc.connectivityState.SHUTDOWN) {
          return settle(() => reject(new FleetError('unavailable', `agent ${address}: client closed`)));
        }
        channel.watchConnectivityState(state, deadline, (err?: Error) => {
          if (signal.aborted) return;
          if (err) {
            // A port that takes the connection and then says nothing is a stalled agent
            // (timeout), not a host that cannot be reached.
            void acceptsTcp(address, Math.min(1000, opts.connectTimeoutMs)).then((accepts) =>
              settle(() =>
                reject(
                  accepts
                    ? new FleetError(
                        'deadline_exceeded',
                        `agent ${address}: accepts connections but did not answer within ${opts.connectTimeoutMs} ms`,
                      )
                    : new FleetError(
                        'unavailable',
                        `agent ${address}: no connection within ${opts.connectTimeoutMs} ms`,
                      ),
                ),
              ),
            );
          } else check(channel.getConnectivityState(false));
        });
      };
      check(channel.getConnectivityState(true));
    });
  };

  /**
   * A failed call → FleetError; a TLS channel that could not connect is asked why
   * (diagnoseTls), so that a trust fault is `auth` with its certificate, not `unreachable`.
   */
  const failure = async (err: unknown, signal: AbortSignal): Promise<FleetError> => {
    const fe = fleetErrorFromGrpc(err, address, signal);
    if (!material || fe.code !== 'unavailable' || signal.aborted || err instanceof FleetError) return fe;
    const trust = await diagnoseTls(address, material, opts.connectTimeoutMs, signal);
    if (trust) log.debug({ err: trust.message }, 'TLS to the agent failed');
    return trust ?? fe;
  };

  async function* walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    await connected(signal);
    const deadline = Date.now() + req.deadlineMs + WALK_GRACE_MS;
    const call = client.Walk(requestToWire(req), metadata(), { deadline });
    const onAbort = () => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    const requested = filterFeatures(req.filter);
    let version: string | undefined;
    let advertised: string[] = [];
    // Response headers come before the first message: an agent is checked before any row is used.
    call.on('metadata', (md: grpc.Metadata) => {
      const v = md.get(AGENT_VERSION_METADATA)[0];
      if (v !== undefined) version = String(v);
      advertised = String(md.get(AGENT_FEATURES_METADATA)[0] ?? '')
        .split(',')
        .filter((f) => f !== '');
    });
    let checked = requested.length === 0;
    let summary: WalkSummary | undefined;
    try {
      for await (const msg of call as AsyncIterable<WireWalkResponseOut>) {
        if (!checked) {
          refuseMissing(address, requested, advertised, version, 'not in its features');
          checked = true;
        }
        const rows = msg.rows.map(rowFromWire);
        if (msg.summary) summary = summaryFromWire(msg.summary);
        if (rows.length > 0) yield rows;
      }
    } catch (err) {
      throw await failure(err, signal);
    } finally {
      signal.removeEventListener('abort', onAbort);
      // The consumer stopped early (return()/throw()): stop the agent's walk too.
      call.cancel();
    }
    if (signal.aborted) throw fleetErrorFromGrpc(undefined, address, signal);
    if (!summary) throw new FleetError('internal', `agent ${address}: walk ended without a summary`);
    refuseMissing(address, requested, summary.applied ?? [], version, 'not echoed in its summary');
    return summary;
  }

  function unary<Res>(
    start: (
      md: grpc.Metadata,
      options: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res?: Res) => void,
    ) => grpc.ClientUnaryCall,
    signal: AbortSignal,
    onMetadata?: (md: grpc.Metadata) => void,
  ): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const call = start(metadata(), { deadline: Date.now() + callTimeoutMs }, (err, res) => {
        signal.removeEventListener('abort', onAbort);
        if (err || res === undefined) failure(err, signal).then(reject);
        else resolve(res);
      });
      const onAbort = () => call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      if (onMetadata) {
        call.on('metadata', onMetadata);
        call.on('status', (s: grpc.StatusObject) => onMetadata(s.metadata));
      }
    });
  }

  async function stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
    await connected(signal);
    const res = await unary<WireStatResponseOut>(
      (md, o, cb) => client.Stat({ path, followSymlinks }, md, o, cb),
      signal,
    );
    const { agentVersion: _v, ...info } = statFromWire(res);
    return info;
  }

  /**
   * Reachability: health Check of the Agent service (exempt from the token), then a Stat
   * of '/' with the token, which proves TLS and the token and carries `agent_version`.
   * An agent that does not serve '/' still answers (not_found, permission_denied or
   * invalid_argument): it is reachable, and its version comes from the
   * `fleetls-agent-version` response metadata when it sends one, else 'unknown'.
   */
  async function probe(signal: AbortSignal): Promise<{ version: string; features: string[] }> {
    await connected(signal);
    const check = await unary<{ status?: string | number }>(
      (md, o, cb) => (healthClient as unknown as HealthStub).Check({ service: SERVICE_NAME }, md, o, cb),
      signal,
    );
    if (check.status !== 'SERVING' && check.status !== 1) {
      throw new FleetError('unavailable', `agent ${address}: health says ${String(check.status)}`);
    }
    let fromMetadata: string | undefined;
    let features: string[] = [];
    const readVersion = (md: grpc.Metadata) => {
      const v = md.get(AGENT_VERSION_METADATA)[0];
      if (v !== undefined) fromMetadata = String(v);
      const f = md.get(AGENT_FEATURES_METADATA)[0];
      if (f !== undefined)
        features = String(f)
          .split(',')
          .filter((x) => x !== '');
    };
    try {
      const res = await unary<WireStatResponseOut>(
        (md, o, cb) => client.Stat({ path: '/', followSymlinks: false }, md, o, cb),
        signal,
        readVersion,
      );
      return { version: res.agentVersion || fromMetadata || 'unknown', features };
    } catch (err) {
      const fe = FleetError.from(err);
      if (fe.code === 'not_found' || fe.code === 'permission_denied' || fe.code === 'invalid_argument') {
        return { version: fromMetadata ?? 'unknown', features };
      }
      throw fe;
    }
  }

  return {
    via: 'agent',
    walk,
    stat,
    probe,
    close() {
      if (closed) return;
      closed = true;
      log.debug('closing agent channel');
      healthClient.close();
      client.close();
    },
  };
}

type HealthStub = {
  Check(
    req: { service: string },
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: { status?: string | number }) => void,
  ): grpc.ClientUnaryCall;
};

/** Does HOST:PORT (IPv6 in brackets) accept a TCP connection within `ms`? A unix: address is not asked. */
export function acceptsTcp(address: string, ms: number): Promise<boolean> {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(address);
  if (!m) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect({ host: m[1] ?? m[2], port: Number(m[3]) });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
