// Presence: the agent writes its registration (name, labels, groups, version, capabilities)
// under its own key of the JetStream KV bucket, again every heartbeat. Gateways read the
// bucket as the inventory (hosts_from: nats); a key whose last write is older than
// MISSED_HEARTBEATS heartbeats is a host that stopped. The agent only ever publishes to its
// own key ($KV.<bucket>.<host>), so its credentials need nothing of the bucket's stream API.

import { hostToken, REGISTRY_BUCKET, REGISTRY_FORGET_MS, type Registration } from '@fleetls/runtime/nats';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface Presence {
  /** Writes the registration now (then every heartbeat, and on every reconnect). */
  beat(): Promise<void>;
  stop(): void;
}

export function startPresence(deps: {
  nc: NatsConnection;
  registration: Registration;
  logger: Logger;
  bucket?: string;
}): Presence {
  const { nc, registration, logger } = deps;
  const bucket = deps.bucket ?? REGISTRY_BUCKET;
  const key = hostToken(registration.name);
  const body = new TextEncoder().encode(JSON.stringify(registration));
  let failing = false;
  let kv: Awaited<ReturnType<Kvm['open']>> | undefined;

  async function beat(): Promise<void> {
    try {
      kv ??= await new Kvm(nc).open(bucket);
      await kv.put(key, body);
      if (failing) logger.info({ bucket, key }, 'registered again in the NATS registry');
      failing = false;
    } catch (err) {
      // No bucket yet (no gateway has run): make it, where these credentials may.
      kv = await new Kvm(nc).create(bucket, { history: 1, ttl: REGISTRY_FORGET_MS }).catch(() => undefined);
      if (
        kv &&
        (await kv.put(key, body).then(
          () => true,
          () => false,
        ))
      ) {
        failing = false;
        return;
      }
      if (!failing) logger.warn({ bucket, key, err: (err as Error).message }, 'cannot register in the NATS registry');
      failing = true;
    }
  }

  const timer = setInterval(() => void beat(), registration.heartbeatMs);
  // A reconnect (a cluster node gone) registers at once: a gateway must not see a gap.
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'reconnect') void beat();
  })().catch(() => undefined);
  return {
    beat,
    stop: () => clearInterval(timer),
  };
}
