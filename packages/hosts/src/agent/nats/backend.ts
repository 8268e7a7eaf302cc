// A host reached through NATS: the same HostBackend as the gRPC agent client, over the
// agent's subjects (@fleetls/runtime nats/protocol.ts). The walk is agent/nats/walk.ts; stat and
// probe are one request each.

import { FleetError, type HostBackend, type StatInfo } from '@fleetls/core';
import { loadContract, SERVICE_NAME, statFromWire, type WireStatResponseOut } from '@fleetls/proto';
import { agentSubjects, DEFAULT_WINDOW, HDR, KEEPALIVE_MS } from '@fleetls/runtime/nats';
import { type Msg, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from 'pino';
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
  return {
    via: 'agent+nats',
    walk: (req, signal) => natsWalk(host, req, signal),
    async stat(path, followSymlinks, signal): Promise<StatInfo> {
      const { res } = await statRequest(host, path, followSymlinks, signal);
      const { agentVersion: _v, ...info } = statFromWire(res!);
      return info;
    },
    async probe(signal) {
      try {
        const { res, msg } = await statRequest(host, '/', false, signal);
        return {
          version: res?.agentVersion || msg.headers?.get(HDR.version) || 'unknown',
          features: listOf(msg.headers?.get(HDR.features)),
        };
      } catch (err) {
        const fe = FleetError.from(err);
        const hdrs = (err as { natsHeaders?: Msg['headers'] }).natsHeaders;
        if (hdrs && (fe.code === 'not_found' || fe.code === 'permission_denied' || fe.code === 'invalid_argument')) {
          return { version: hdrs.get(HDR.version) || 'unknown', features: listOf(hdrs.get(HDR.features)) };
        }
        throw fe;
      }
    },
    close() {
      opts.logger.debug(
        { host: name, nats: host.subjects.base },
        'NATS host backend closed (the connection is the gateway’s)',
      );
    },
  };
}

/** One Stat request; a failure keeps the agent's headers (a probe reads its version from them). */
async function statRequest(
  host: NatsHost,
  path: string,
  followSymlinks: boolean,
  signal: AbortSignal,
): Promise<{ res?: WireStatResponseOut; msg: Msg }> {
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
    const failed = failureOf(msg, name);
    if (failed) throw Object.assign(failed, { natsHeaders: msg.headers });
    return { res: methods.Stat.responseDeserialize(Buffer.from(msg.data)) as WireStatResponseOut, msg };
  } catch (err) {
    throw natsFailure(err, name, callTimeoutMs);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
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
