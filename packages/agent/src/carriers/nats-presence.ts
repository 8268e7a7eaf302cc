// Presence: the agent writes its registration (name, labels, groups, version, capabilities)
// under its own key of the JetStream KV bucket, again every heartbeat. Gateways read the
// bucket as the inventory (hosts_from: nats); a key whose last write is older than
// MISSED_HEARTBEATS heartbeats is a host that stopped. The agent only ever publishes to its
// own key ($KV.<bucket>.<host>), a JetStream publish, so its credentials need nothing of the
// stream API (`$JS.API.>`): the shipped permissions deny it, and a KV handle would ask it.

import {
  clusterReplicas,
  hostToken,
  natsProblem,
  REGISTRY_BUCKET,
  REGISTRY_FORGET_MS,
  type Registration,
} from '@fleetls/runtime/nats';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface Presence {
  /** Writes the registration now (then every heartbeat, and on every reconnect). */
  beat(): Promise<void>;
  stop(): void;
}

/** Why a registration was not stored, in the operator's words (which permission, which bucket). */
export function registrationFailure(err: unknown, bucket: string, subject: string): string {
  const e = err as { name?: string; message?: string };
  if (e?.name === 'JetStreamNotEnabled' || /jetstream is not enabled|no responders/i.test(e?.message ?? '')) {
    return `no JetStream stream stores ${subject}: the registry bucket ${bucket} is not made yet (a gateway makes it at start), or JetStream is off on the server or for this account`;
  }
  if (/timeout/i.test(e?.message ?? '') || /Timeout/.test(e?.name ?? '')) {
    return `JetStream did not acknowledge ${subject} in time (the nodes of bucket ${bucket} busy or down)`;
  }
  return natsProblem(err);
}

/** The first retry of a registration that was not stored. */
export const REGISTER_RETRY_MS = 1000;

export function startPresence(deps: {
  nc: NatsConnection;
  registration: Registration;
  logger: Logger;
  bucket?: string;
  /** The servers the agent was given: with the cluster's, how many replicas a bucket it makes has. */
  servers?: string[];
}): Presence {
  const { nc, registration, logger } = deps;
  const bucket = deps.bucket ?? REGISTRY_BUCKET;
  const key = hostToken(registration.name);
  const subject = `$KV.${bucket}.${key}`;
  const body = new TextEncoder().encode(JSON.stringify(registration));
  const js = jetstream(nc);
  let failing = false;
  // Not stored: tried again sooner than a heartbeat (1 s, doubling up to it), so an agent
  // started before any gateway made the bucket is registered soon after one does.
  let retry: NodeJS.Timeout | undefined;
  let retryMs = REGISTER_RETRY_MS;

  async function beat(): Promise<void> {
    try {
      await js.publish(subject, body);
      if (failing) logger.info({ bucket, key }, 'registered again in the NATS registry');
      failing = false;
      retryMs = REGISTER_RETRY_MS;
    } catch (err) {
      // No bucket yet (no gateway has run): make it, where these credentials may (the
      // shipped permissions do not let an agent: it then waits for a gateway to).
      let made: unknown;
      try {
        const kv = await new Kvm(nc).create(bucket, {
          history: 1,
          ttl: REGISTRY_FORGET_MS,
          replicas: clusterReplicas(nc, deps.servers ?? []),
        });
        await kv.put(key, body);
        failing = false;
        retryMs = REGISTER_RETRY_MS;
        return;
      } catch (err2) {
        made = err2;
      }
      if (!failing) {
        logger.warn(
          { bucket, key, err: (err as Error).message, create: (made as Error).message },
          `cannot register in the NATS registry: ${registrationFailure(err, bucket, subject)}; making the bucket: ${natsProblem(made)}. Gateways still hear each heartbeat; the agent keeps trying`,
        );
      }
      failing = true;
      retryLater();
    }
  }

  function retryLater(): void {
    if (retry || retryMs >= registration.heartbeatMs) return;
    retry = setTimeout(() => {
      retry = undefined;
      retryMs *= 2;
      void beat();
    }, retryMs);
    retry.unref();
  }

  const timer = setInterval(() => void beat(), registration.heartbeatMs);
  // A reconnect (a cluster node gone) registers at once: a gateway must not see a gap.
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'reconnect') void beat();
  })().catch(() => undefined);
  return {
    beat,
    stop() {
      clearInterval(timer);
      clearTimeout(retry);
    },
  };
}
