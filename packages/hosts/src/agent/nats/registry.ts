// The live registry of agents on NATS: the JetStream KV bucket the agents write their
// registration to every heartbeat. The gateway reads what the bucket holds once at start,
// then hears every heartbeat on a plain subscription to the bucket's subjects. A host is
// fresh while its last heartbeat is younger than MISSED_HEARTBEATS heartbeats; after that it
// answers `unreachable`, naming when it was last seen.
//
// A registration is the host's word, and the host may be the one compromised: only its name
// is bound (the server lets its credentials write its own key alone). The labels and groups
// selectors use are the operator's (`identity`, from the inventory); a claim beyond them is
// ignored and logged naming the host. The heartbeat it announces is held within the gateway's
// bounds, so no host stays "up" by announcing a heartbeat of days.

import { FleetError } from '@fleetls/core';
import {
  DEFAULT_HEARTBEAT_MS,
  hostFromToken,
  MAX_HEARTBEAT_MS,
  MIN_HEARTBEAT_MS,
  MISSED_HEARTBEATS,
  natsProblem,
  REGISTRY_BUCKET,
  REGISTRY_FORGET_MS,
  type Registration,
} from '@fleetls/runtime/nats';
import { type ConsumerMessages, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { openRetried } from './open-retried.js';

/** The labels and groups a host is selected by. */
export interface HostIdentity {
  labels: Record<string, string>;
  groups: string[];
}

export interface RegisteredHost {
  readonly name: string;
  /** When the host's last heartbeat was heard, in ms (the server's clock for what the bucket held at start). */
  readonly seenAtMs: number;
  /** seenAtMs as a Date, made when read (the registry keeps none: 100,000 hosts, 100,000 Dates). */
  readonly seenAt: Date;
  /** What the operator gives it (none when the operator names it nowhere): the inventory's object, shared. */
  readonly identity: HostIdentity;
  /** Its heartbeat held within the gateway's bounds: staleness is computed from this. */
  readonly heartbeatMs: number;
}

/**
 * One registered host as the registry keeps it: flat, with nothing of the message it came in.
 * The registration is parsed once and dropped (only its heartbeat is used; its labels and
 * groups are the operator's), and a heartbeat that repeats it is known by its length and two
 * 30-bit hashes (Smis, so the object holds no boxed number for them) instead of its bytes.
 * At 100,000 hosts the registry was most of the gateway's live heap: ~1,130 bytes a host for
 * the parsed registration, a Date, a copy of the bytes with its own ArrayBuffer and the
 * subject its key was sliced from; this is ~150.
 */
class Entry implements RegisteredHost {
  constructor(
    readonly name: string,
    public seenAtMs: number,
    public heartbeatMs: number,
    public identity: HostIdentity,
    public bodyLength: number,
    public bodyHashA: number,
    public bodyHashB: number,
  ) {}

  get seenAt(): Date {
    return new Date(this.seenAtMs);
  }
}

/** Two 30-bit hashes of a registration's bytes (FNV-1a and a multiply-rotate one): what a repeated heartbeat is told by. */
function hashes(data: Uint8Array): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < data.length; i++) {
    a = Math.imul(a ^ data[i], 0x01000193);
    b = Math.imul((b << 5) | (b >>> 27), 0x5bd1e995) ^ data[i];
  }
  return [a & 0x3fffffff, (b ^ (b >>> 15)) & 0x3fffffff];
}

export interface NatsRegistry {
  /** In name order (UTF-16 code units, as the fleet sorts its hosts). */
  hosts(): RegisteredHost[];
  get(name: string): RegisteredHost | undefined;
  /** The error a host that stopped heartbeating answers with; undefined while it is fresh (or unknown). */
  stale(name: string): FleetError | undefined;
  /** Why the bucket could not be read, while it could not (hosts are then known from heartbeats only). */
  problem(): string | undefined;
  close(): void;
}

/** Whether a host seen then is fresh now (a registered host's seenAtMs; or a Date, as a test gives it). */
export function isFresh(
  host: Pick<RegisteredHost, 'heartbeatMs'> & (Pick<RegisteredHost, 'seenAtMs'> | Pick<RegisteredHost, 'seenAt'>),
  now: number,
): boolean {
  const seen = 'seenAtMs' in host ? host.seenAtMs : host.seenAt.getTime();
  return now - seen <= MISSED_HEARTBEATS * host.heartbeatMs;
}

/** The announced heartbeat within [MIN_HEARTBEAT_MS, max]; none (or not a number) is the default. */
export function boundHeartbeat(announced: unknown, max = MAX_HEARTBEAT_MS): number {
  if (typeof announced !== 'number' || !Number.isFinite(announced) || announced <= 0) return DEFAULT_HEARTBEAT_MS;
  return Math.min(Math.max(announced, MIN_HEARTBEAT_MS), max);
}

const NO_IDENTITY: HostIdentity = { labels: {}, groups: [] };

/** What a registration claims beyond the operator's identity for it, in words; undefined = nothing. */
export function claimsBeyond(registration: Registration, given: HostIdentity): string | undefined {
  const groups = Array.isArray(registration.groups)
    ? registration.groups.map(String).filter((g) => !given.groups.includes(g))
    : [];
  const labels =
    typeof registration.labels === 'object' && registration.labels !== null && !Array.isArray(registration.labels)
      ? Object.entries(registration.labels)
          .filter(([k, v]) => given.labels[k] !== String(v))
          .map(([k, v]) => `${k}=${String(v)}`)
      : [];
  const parts = [
    groups.length > 0 ? `groups ${groups.join(', ')}` : '',
    labels.length > 0 ? `labels ${labels.join(', ')}` : '',
  ].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/**
 * The bucket, created when missing (an agent's credentials may only write its own key). One
 * found with fewer replicas than asked (an agent made it first, on one node) is raised to
 * them, so one node down does not take the registry with it.
 */
export async function openRegistryBucket(
  nc: NatsConnection,
  bucket = REGISTRY_BUCKET,
  replicas = 1,
  logger?: Logger,
): Promise<KV> {
  const kv = await new Kvm(nc).create(bucket, { history: 1, ttl: REGISTRY_FORGET_MS, replicas });
  if (replicas > 1) {
    const info = (await kv.status()).streamInfo;
    if (info.config.num_replicas < replicas) {
      await (await jetstreamManager(nc)).streams.update(info.config.name, { ...info.config, num_replicas: replicas });
      logger?.info(
        { bucket, from: info.config.num_replicas, to: replicas },
        `registry bucket ${bucket}: replicas raised from ${info.config.num_replicas} to ${replicas}`,
      );
    }
  }
  return kv;
}

/** How often a registry that could not be read at start is tried again (hosts meanwhile come from heartbeats). */
export const REGISTRY_READ_RETRY_MS = 5000;

/** How long the read of what the bucket holds may go silent before hosts are left to their heartbeats. */
export const REGISTRY_READ_SILENCE_MS = 3000;

/**
 * Reads the bucket, then follows it; resolves once every registration already there is read,
 * or once reading it failed: then hosts appear as their heartbeats arrive, the failure is
 * logged naming the bucket, and the read is tried again every REGISTRY_READ_RETRY_MS.
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
  /** The operator's labels and groups for a host (the inventory's `nats.hosts`); none by default. */
  identity?: (name: string) => HostIdentity | undefined;
  /** The longest heartbeat believed (default MAX_HEARTBEAT_MS). */
  maxHeartbeatMs?: number;
}): Promise<NatsRegistry> {
  const now = deps.now ?? Date.now;
  const maxHeartbeatMs = deps.maxHeartbeatMs ?? MAX_HEARTBEAT_MS;
  const bucket = deps.bucket ?? REGISTRY_BUCKET;
  const prefix = `$KV.${bucket}.`;
  const byName = new Map<string, Entry>();
  /**
   * The hosts in name order, made again only when one comes or goes: every call lists them
   * (the fleet sorts its hosts by name), and sorting 100,000 unordered names is ~60 ms a call.
   */
  let ordered: Entry[] | undefined;
  const apply = (subject: string, headers: MsgHdrs | undefined, data: Uint8Array, seenAt: number) => {
    const key = subject.slice(prefix.length);
    const op = headers?.get('KV-Operation') ?? '';
    if (op === 'DEL' || op === 'PURGE') {
      if (byName.delete(hostFromToken(key))) ordered = undefined;
      return;
    }
    try {
      // A flat copy of the name: the key is a slice of the subject, and would keep all of it.
      const name = hostFromToken(key);
      const before = byName.get(name);
      const [hashA, hashB] = hashes(data);
      if (before && before.bodyLength === data.length && before.bodyHashA === hashA && before.bodyHashB === hashB) {
        if (before.seenAtMs < seenAt) before.seenAtMs = seenAt;
        return;
      }
      const registration = JSON.parse(
        Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString(),
      ) as Registration;
      if (registration.name !== name) throw new Error(`key ${key} names another host`);
      if (before && before.seenAtMs > seenAt) return; // the bucket's copy is older than a heartbeat heard
      const identity = deps.identity?.(name) ?? NO_IDENTITY;
      const claimed = claimsBeyond(registration, identity);
      if (claimed) {
        deps.logger.warn(
          { host: name, claimed },
          `host ${name} registers claiming ${claimed}, which the operator does not give it: ignored (labels and groups of NATS hosts come from the inventory's nats.hosts)`,
        );
      }
      const heartbeatMs = boundHeartbeat(registration.heartbeatMs, maxHeartbeatMs);
      if (heartbeatMs !== registration.heartbeatMs) {
        deps.logger.warn(
          { host: name, announced: registration.heartbeatMs, heartbeatMs },
          `host ${name} announces a heartbeat of ${registration.heartbeatMs} ms: held to ${heartbeatMs} ms`,
        );
      }
      byName.set(name, new Entry(name, seenAt, heartbeatMs, identity, data.length, hashA, hashB));
      ordered = undefined;
    } catch (err) {
      deps.logger.warn({ key, err: (err as Error).message }, 'registry entry ignored');
    }
  };
  const live = deps.nc.subscribe(`${prefix}>`, {
    callback: (err, m) => {
      if (!err) apply(m.subject, m.headers, m.data, now());
    },
  });
  await deps.nc.flush();
  const what = `registry read (bucket ${bucket})`;
  const readHeld = () =>
    readAll().catch((err) => {
      throw err instanceof FleetError
        ? err
        : new FleetError('unavailable', `${what}: ${natsProblem(err)}`, { cause: err });
    });
  const readAll = async () => {
    const kv = await openRetried(
      what,
      () => openRegistryBucket(deps.nc, bucket, deps.replicas, deps.logger),
      deps.logger,
    );
    deps.logger.debug({ bucket }, `${what}: opened`);
    // A stream whose replicas were just raised (or whose leader moved) can be slow to answer
    // while its group re-forms, and an ordered consumer retries its own creation for good: the
    // gateway's start was seen waiting on it for over a minute, saying nothing. So the read has
    // a deadline on silence (not on the whole read: a bucket of 100,000 hosts is read to its
    // end); past it, hosts come from their heartbeats and the read is tried again.
    let held: ConsumerMessages | undefined;
    let silent = false;
    let wake: (err: FleetError) => void = () => undefined;
    const silence = new Promise<never>((_resolve, reject) => {
      wake = reject;
    });
    silence.catch(() => undefined);
    let deadline: NodeJS.Timeout | undefined;
    const quiet = () => {
      clearTimeout(deadline);
      deadline = setTimeout(() => {
        silent = true;
        held?.stop();
        wake(
          new FleetError(
            'deadline_exceeded',
            `${what}: the bucket's stream answered nothing for ${REGISTRY_READ_SILENCE_MS / 1000} s`,
          ),
        );
      }, REGISTRY_READ_SILENCE_MS);
    };
    quiet();
    try {
      const status = await Promise.race([kv.status(), silence]);
      if (status.values === 0) return;
      // What the bucket held when the read began: heartbeats go on arriving meanwhile (they are
      // heard on the live subscription), and a consumer that restarts while the stream's group
      // re-forms would otherwise never see `pending` reach 0.
      const lastAtStart = status.streamInfo.state.last_seq;
      const consumer = await Promise.race([
        jetstream(deps.nc).consumers.get(`KV_${bucket}`, {
          // one subject: nats-server 2.9 (Debian) knows no list of them
          filter_subjects: `${prefix}>`,
          deliver_policy: DeliverPolicy.LastPerSubject,
        }),
        silence,
      ]);
      held = await Promise.race([
        consumer.consume().then((late) => {
          if (silent) late.stop(); // answered after the deadline: nobody reads it
          return late;
        }),
        silence,
      ]);
      for await (const m of held) {
        quiet();
        apply(m.subject, m.headers, m.data, m.time.getTime());
        if (m.info.pending === 0 || m.seq >= lastAtStart) break;
      }
      if (silent) await silence;
    } finally {
      clearTimeout(deadline);
      held?.stop();
    }
  };
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let problem: string | undefined;
  const readLater = (err: unknown) => {
    problem = (err as Error).message;
    if (closed) return;
    deps.logger.warn(
      { bucket, err: (err as Error).message },
      `${(err as Error).message}; hosts are known from their heartbeats until it is read (tried again in ${REGISTRY_READ_RETRY_MS / 1000} s)`,
    );
    // Unref'd: a one-shot CLI ends without waiting for it.
    retry = setTimeout(() => {
      readHeld().then(() => {
        problem = undefined;
        deps.logger.info({ bucket }, `registry read (bucket ${bucket}): read`);
      }, readLater);
    }, REGISTRY_READ_RETRY_MS).unref();
  };
  await readHeld().catch(readLater);
  return {
    hosts() {
      ordered ??= [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return ordered.slice();
    },
    get: (name) => byName.get(name),
    stale(name) {
      const h = byName.get(name);
      if (!h || isFresh(h, now())) return undefined;
      const ago = Math.round((now() - h.seenAtMs) / 1000);
      return new FleetError(
        'unavailable',
        `agent ${name} stopped heartbeating on NATS: last seen ${h.seenAt.toISOString()} (${ago} s ago; heartbeat every ${h.heartbeatMs} ms)`,
      );
    },
    problem: () => problem,
    close() {
      closed = true;
      clearTimeout(retry);
      live.unsubscribe();
    },
  };
}
