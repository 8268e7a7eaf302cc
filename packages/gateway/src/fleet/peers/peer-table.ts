// Which gateways serve this fleet now: each serving gateway says hello on HELLO_SUBJECT every
// HELLO_MS and says goodbye when it closes; every gateway (and a one-shot CLI) keeps the ones
// heard within PEER_TTL_MS. A gateway that starts asks for hellos at once (a hello with a
// reply subject), so its table is whole within a round trip, not a HELLO_MS later.
import { randomBytes } from 'node:crypto';
import { natsProblem } from '@fleetls/runtime/nats';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { HELLO_SUBJECT, ID_RE, PEERS_PREFIX } from './protocol.js';

export const HELLO_MS = 5000;
/** Three hellos missed: the peer is gone (a call that sends it a shard finds out sooner). */
export const PEER_TTL_MS = 3 * HELLO_MS;
/** After the first answer to a discovery, how long the others are waited for. */
const DISCOVER_GRACE_MS = 50;

interface Hello {
  id: string;
  /** It serves shards (a one-shot CLI asking for hellos does not: it is no peer). */
  serves?: true;
  /** It closes: drop it now. */
  bye?: true;
}

export interface PeerTable {
  /** This gateway's id: its subjects are under PEERS_PREFIX.<id>. */
  readonly id: string;
  /** The serving gateways heard within PEER_TTL_MS, this one excepted, in id order. */
  alive(): string[];
  /** A peer that failed a shard: not sent another until it says hello again. */
  forget(id: string): void;
  /** Says hello now and every HELLO_MS (a serving gateway); a one-shot CLI only listens. */
  announce(): void;
  /**
   * Asks every serving gateway for a hello, once; resolves DISCOVER_GRACE_MS after the first
   * answer (the others answer within a round trip of it), or after `waitMs` with none.
   */
  discover(waitMs: number): Promise<void>;
  close(): void;
}

export function openPeerTable(nc: NatsConnection, logger: Logger): PeerTable {
  const id = randomBytes(8).toString('hex');
  const seen = new Map<string, number>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let discovered: Promise<void> | undefined;
  /** Set while a discovery waits: an answer shortens its wait. */
  let answered: (() => void) | undefined;
  let announcing = false;
  const hello = () => JSON.stringify((announcing ? { id, serves: true } : { id }) satisfies Hello);
  const hear = (data: Uint8Array) => {
    let h: Hello;
    try {
      h = JSON.parse(Buffer.from(data).toString('utf8')) as Hello;
    } catch {
      return;
    }
    if (typeof h?.id !== 'string' || !ID_RE.test(h.id) || h.id === id) return;
    if (h.bye) seen.delete(h.id);
    else if (h.serves) {
      if (!seen.has(h.id)) logger.info({ peer: h.id }, 'peer gateway joined');
      seen.set(h.id, Date.now());
    }
  };
  const answers = `${PEERS_PREFIX}.${id}.hello`;
  // Credentials issued before gateways talked to each other may not use their subjects: the
  // gateway then works alone, and says why once.
  let denied = false;
  const refused = (err: Error) => {
    if (denied) return;
    denied = true;
    logger.warn({ err: natsProblem(err) }, `peer gateways: ${natsProblem(err)}; calls are not split`);
  };
  const subs: Subscription[] = [
    nc.subscribe(HELLO_SUBJECT, {
      callback: (err, msg) => {
        if (err) return refused(err);
        hear(msg.data);
        // Asked: a serving gateway answers the asker at once (on a gateway subject, which gateways may publish to).
        if (announcing && msg.reply?.startsWith(`${PEERS_PREFIX}.`)) nc.publish(msg.reply, hello());
      },
    }),
    nc.subscribe(answers, {
      callback: (err, msg) => {
        if (err) return refused(err);
        hear(msg.data);
        answered?.();
      },
    }),
  ];
  return {
    id,
    alive() {
      const now = Date.now();
      const out: string[] = [];
      for (const [peer, at] of seen) {
        if (now - at <= PEER_TTL_MS) out.push(peer);
        else seen.delete(peer);
      }
      return out.sort();
    },
    forget: (peer) => seen.delete(peer),
    announce() {
      if (announcing) return;
      announcing = true;
      nc.publish(HELLO_SUBJECT, hello(), { reply: answers });
      timer = setInterval(() => nc.publish(HELLO_SUBJECT, hello()), HELLO_MS);
      timer.unref();
    },
    discover(waitMs) {
      discovered ??= new Promise<void>((resolve) => {
        const done = () => {
          answered = undefined;
          resolve();
        };
        const t = setTimeout(done, waitMs);
        answered = () => {
          answered = undefined;
          clearTimeout(t);
          setTimeout(done, DISCOVER_GRACE_MS);
        };
        nc.publish(HELLO_SUBJECT, hello(), { reply: answers });
      });
      return discovered;
    },
    close() {
      clearInterval(timer);
      if (announcing && !nc.isClosed()) nc.publish(HELLO_SUBJECT, JSON.stringify({ id, bye: true } satisfies Hello));
      for (const s of subs) s.unsubscribe();
    },
  };
}
