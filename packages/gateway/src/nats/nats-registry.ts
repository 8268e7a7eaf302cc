// The live registry of agents on NATS: the JetStream KV bucket the agents write their
// registration to every heartbeat, watched by the gateway. A host is fresh while its last
// write (the server's timestamp) is younger than MISSED_HEARTBEATS heartbeats; after that
// it answers `unreachable`, naming when it was last seen.
import {
  DEFAULT_HEARTBEAT_MS,
  hostFromToken,
  MISSED_HEARTBEATS,
  REGISTRY_BUCKET,
  REGISTRY_FORGET_MS,
  type Registration,
} from '@fleetls/agent/nats';
import { FleetError } from '@fleetls/core';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface RegisteredHost {
  registration: Registration;
  /** When the host last wrote its registration (the server's clock). */
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

/** Watches the bucket; resolves once every registration already there is read. */
export async function watchRegistry(deps: {
  nc: NatsConnection;
  logger: Logger;
  bucket?: string;
  replicas?: number;
  now?: () => number;
}): Promise<NatsRegistry> {
  const now = deps.now ?? Date.now;
  const kv = await openRegistryBucket(deps.nc, deps.bucket, deps.replicas);
  const byName = new Map<string, RegisteredHost>();
  const watch = await kv.watch();
  const initial = (await kv.status()).values;
  let ready: () => void = () => {};
  const loaded = new Promise<void>((resolve) => {
    ready = resolve;
  });
  if (initial === 0) ready();
  void (async () => {
    for await (const e of watch) {
      if (e.operation === 'PUT') {
        try {
          const registration = e.json<Registration>();
          if (registration.name !== hostFromToken(e.key)) throw new Error(`key ${e.key} names another host`);
          byName.set(registration.name, { registration, seenAt: e.created });
        } catch (err) {
          deps.logger.warn({ key: e.key, err: (err as Error).message }, 'registry entry ignored');
        }
      } else byName.delete(hostFromToken(e.key));
      // delta: how many more of the values already there follow this one.
      if ((e.delta ?? 0) === 0) ready();
    }
  })().catch((err) => deps.logger.warn({ err: String(err) }, 'registry watch ended'));
  await loaded;
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
    close: () => watch.stop(),
  };
}
