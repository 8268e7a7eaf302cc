// The Agent contract carried by NATS, over the agent's subjects (@fleetls/runtime
// nats/protocol.ts): the contract's client (agent/client.ts) over this carrier is the host's
// backend, as it is over HTTP/2. The walk is agent/nats/walk.ts; Stat is one request.

import { FleetError, type HostBackend, type WalkRequest } from '@fleetls/core';
import { loadContract, SERVICE_NAME, type WireStatResponseOut } from '@fleetls/proto';
import { agentSubjects, DEFAULT_WINDOW, HDR, KEEPALIVE_MS } from '@fleetls/runtime/nats';
import { type Msg, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { AgentMeta, Carrier } from '../carrier.js';
import { agentBackend } from '../client.js';
import { failureOf, listOf, type MethodCodec, type NatsHost, refuseStale } from './host.js';
import type { NatsRegistry } from './registry.js';
import { natsWalk } from './walk.js';

export interface NatsBackendOptions {
  nc: NatsConnection;
  logger: Logger;
  /** The agent's first message (its headers) must come within this long. */
  connectTimeoutMs: number;
  /** Stat and probe, at most. Default 20 s. */
  callTimeoutMs?: number;
  /** Silence (no slice, no keepalive) this long mid-walk: the agent is lost. Default 3 keepalives. */
  livenessMs?: number;
  window?: number;
  /** Where the host's heartbeat is read: a host that stopped is unreachable, with its last-seen time. */
  registry?: NatsRegistry;
  subjectPrefix?: string;
  /** Named in the agent's audit lines. */
  caller?: string;
}

export function createNatsBackend(name: string, opts: NatsBackendOptions): HostBackend {
  const { packageDefinition } = loadContract();
  const host: NatsHost = {
    name,
    nc: opts.nc,
    subjects: agentSubjects(name, opts.subjectPrefix),
    // The wire edge: proto-loader types a service as any definition, its methods are codecs.
    methods: packageDefinition[SERVICE_NAME] as unknown as Record<'Walk' | 'Stat', MethodCodec>,
    connectTimeoutMs: opts.connectTimeoutMs,
    callTimeoutMs: opts.callTimeoutMs ?? 20_000,
    livenessMs: opts.livenessMs ?? 3 * KEEPALIVE_MS,
    window: opts.window ?? DEFAULT_WINDOW,
    registry: opts.registry,
    caller: opts.caller,
  };
  return agentBackend(natsCarrier(host, opts.logger));
}

/** The carrier of one NATS host: its walks (agent/nats/walk.ts) and Stats on its subjects. */
function natsCarrier(host: NatsHost, logger: Logger): Carrier {
  return new NatsCarrier(host, logger);
}

/** natsCarrier's carrier: its methods on the class (made per call, per host). */
class NatsCarrier implements Carrier {
  readonly via = 'agent+nats';
  readonly name: string;

  constructor(
    private readonly host: NatsHost,
    private readonly logger: Logger,
  ) {
    this.name = host.name;
  }

  walk(req: WalkRequest, signal: AbortSignal, onMeta: (meta: AgentMeta) => void): AsyncGenerator<Buffer, void, void> {
    return natsWalk(this.host, req, signal, onMeta);
  }

  stat(
    path: string,
    followSymlinks: boolean,
    signal: AbortSignal,
    onMeta?: (meta: AgentMeta) => void,
  ): Promise<WireStatResponseOut> {
    return statRequest(this.host, path, followSymlinks, signal, onMeta);
  }

  close(): void {
    this.logger.debug(
      { host: this.host.name, nats: this.host.subjects.base },
      'NATS host backend closed (the connection is the gateway’s)',
    );
  }
}

/** One Stat request; the agent's headers go to `onMeta`, whether it answered or failed. */
async function statRequest(
  host: NatsHost,
  path: string,
  followSymlinks: boolean,
  signal: AbortSignal,
  onMeta?: (meta: AgentMeta) => void,
): Promise<WireStatResponseOut> {
  refuseStale(host);
  if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
  const { name, callTimeoutMs, methods } = host;
  const h = natsHeaders();
  if (host.caller) h.set(HDR.caller, host.caller);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new FleetError('cancelled', 'cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const msg = await Promise.race([
      host.nc.request(host.subjects.stat, methods.Stat.requestSerialize({ path, followSymlinks }), {
        timeout: callTimeoutMs,
        headers: h,
      }),
      aborted,
    ]);
    onMeta?.(metaOf(msg));
    const failed = failureOf(msg, name);
    if (failed) throw failed;
    return methods.Stat.responseDeserialize(Buffer.from(msg.data)) as WireStatResponseOut;
  } catch (err) {
    throw natsFailure(err, name, callTimeoutMs);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** The agent's version and features in a reply's headers (only what it set). */
function metaOf(msg: Msg): AgentMeta {
  const meta: AgentMeta = {};
  const version = msg.headers?.get(HDR.version);
  if (version) meta.version = version;
  const features = msg.headers?.get(HDR.features);
  if (features) meta.features = listOf(features);
  return meta;
}

/** A NATS client error → FleetError: no responders is an unreachable host, a timeout its deadline. */
export function natsFailure(err: unknown, host: string, timeoutMs: number): FleetError {
  if (err instanceof FleetError) return err;
  const e = err as { name?: string; message?: string; code?: string; cause?: { name?: string } };
  const name = `${e?.name ?? ''} ${e?.cause?.name ?? ''}`;
  if (/NoResponders/i.test(name) || /no responders/i.test(e?.message ?? '')) {
    return new FleetError('unavailable', `no agent answers for ${host} on NATS`, { cause: err });
  }
  if (/Timeout/i.test(name) || /timeout/i.test(e?.message ?? '')) {
    return new FleetError('deadline_exceeded', `agent ${host}: no answer on NATS within ${timeoutMs} ms`, {
      cause: err,
    });
  }
  if (/Closed|Draining/i.test(name)) return new FleetError('unavailable', `NATS connection closed`, { cause: err });
  return FleetError.from(err);
}
