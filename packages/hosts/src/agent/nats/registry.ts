// The live registry of agents on NATS: the JetStream KV bucket the agents write their
// registration to every heartbeat. The gateway reads what the bucket holds once at start,
// then hears every heartbeat on a plain subscription to the bucket's subjects. A host is
// fresh while its last heartbeat is younger than MISSED_HEARTBEATS heartbeats; after that it
// answers `unreachable`, naming when it was last seen.

import { FleetError } from '@fleetls/core';
import {
  DEFAULT_HEARTBEAT_MS,
  hostFromToken,
  MISSED_HEARTBEATS,
  REGISTRY_BUCKET,
  REGISTRY_FORGET_MS,
  type Registration,
} from '@fleetls/runtime/nats';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { openRetried } from './open-retried.js';

export interface RegisteredHost {
  registration: Registration;
  /** When the host's last heartbeat was heard (the server's clock for what the bucket held at start). */
  seenAt: Date;
}

export interface NatsRegistry {
  hosts(): RegisteredHost[];
  get(name: string): RegisteredHost | undefined;
  /** The error a host that stopped heartbeating answers with; undefined while it is fresh (or unknown). */
  stale(name: string): FleetError | undefined;
  close(): void;
}

export function isFresh(h: RegisteredHost, now: number): boolean {
  const beat = h.registration.heartbeatMs > 0 ? h.registration.heartbeatMs : DEFAULT_HEARTBEAT_MS;
  return now - h.seenAt.getTime() <= MISSED_HEARTBEATS * beat;
}

/** The bucket, created when missing (an agent's credentials may only write its own key). */
export async function openRegistryBucket(nc: NatsConnection, bucket = REGISTRY_BUCKET, replicas = 1): Promise<KV> {
  return new Kvm(nc).create(bucket, { history: 1, ttl: REGISTRY_FORGET_MS, replicas });
}

/**
 * Reads the bucket, then follows it; resolves once every registration already there is read.
 * Heartbeats come on a core subscription to `$KV.<bucket>.>` (an agent's put is a publish
 * there), which the client re-subscribes on every node it reconnects to. A JetStream watch
 * would not do: its consumer lives on one node, and a watch whose node died was seen to stay
 * silent for over a minute (every host going stale) while the bucket's replicas carried on.
 */
export async function watchRegistry(deps: {
  nc: NatsConnection;
  logger: Logger;
  bucket?: string;
  replicas?: number;
  now?: () => number;
}): Promise<NatsRegistry> {
  const now = deps.now ?? Date.now;
  const bucket = deps.bucket ?? REGISTRY_BUCKET;
  const kv = await openRetried('registry', () => openRegistryBucket(deps.nc, bucket, deps.replicas), deps.logger);
  const prefix = `$KV.${bucket}.`;
  const byName = new Map<string, RegisteredHost>();
  /** Each key's last registration as sent: a heartbeat repeats it, and is then not parsed again. */
  const bodies = new Map<string, Uint8Array>();
  const apply = (subject: string, headers: MsgHdrs | undefined, data: Uint8Array, seenAt: Date) => {
    const key = subject.slice(prefix.length);
    const op = headers?.get('KV-Operation') ?? '';
    if (op === 'DEL' || op === 'PURGE') {
      bodies.delete(key);
      return void byName.delete(hostFromToken(key));
    }
    try {
      const same = bodies.get(key);
      const known = same && Buffer.compare(same, data) === 0 ? byName.get(hostFromToken(key)) : undefined;
      if (known) {
        if (known.seenAt < seenAt) known.seenAt = seenAt;
        return;
      }
      const registration = JSON.parse(
        Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString(),
      ) as Registration;
      if (registration.name !== hostFromToken(key)) throw new Error(`key ${key} names another host`);
      const before = byName.get(registration.name);
      if (before && before.seenAt > seenAt) return; // the bucket's copy is older than a heartbeat heard
      byName.set(registration.name, { registration, seenAt });
      bodies.set(key, data.slice());
    } catch (err) {
      deps.logger.warn({ key, err: (err as Error).message }, 'registry entry ignored');
    }
  };
  const live = deps.nc.subscribe(`${prefix}>`, {
    callback: (err, m) => {
      if (!err) apply(m.subject, m.headers, m.data, new Date(now()));
    },
  });
  await deps.nc.flush();
  if ((await kv.status()).values > 0) {
    const consumer = await jetstream(deps.nc).consumers.get(`KV_${bucket}`, {
      // one subject: nats-server 2.9 (Debian) knows no list of them
      filter_subjects: `${prefix}>`,
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    const held = await consumer.consume();
    for await (const m of held) {
      apply(m.subject, m.headers, m.data, m.time);
      if (m.info.pending === 0) break;
    }
    held.stop();
  }
  return {
    hosts: () => [...byName.values()],
    get: (name) => byName.get(name),
    stale(name) {
      const h = byName.get(name);
      if (!h || isFresh(h, now())) return undefined;
      const ago = Math.round((now() - h.seenAt.getTime()) / 1000);
      return new FleetError(
        'unavailable',
        `agent ${name} stopped heartbeating on NATS: last seen ${h.seenAt.toISOString()} (${ago} s ago)`,
      );
    },
    close: () => live.unsubscribe(),
  };
}
