// The plumbing every NATS walk on a connection shares: one reply subscription demultiplexed
// by walk, and publishes gathered per turn of the event loop.

import { FleetError } from '@fleetls/core';
import { createInbox, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { HostOverrun } from '../../walk-guard.js';

/**
 * What a walk's reply stream may hold: undefined when `m` may be queued behind `queued` others,
 * else why the stream is broken (a slice past the window granted, a slice too large).
 */
export type ReplyBound = (m: Msg, queued: number) => string | undefined;

/**
 * One queue of a walk's reply messages, read with a timeout. Bounded: a message its bound
 * refuses breaks the stream (the queue is emptied and nothing more is kept), and a keepalive
 * behind a queued message is dropped (the queue already shows the host alive).
 */
export class Replies {
  private readonly queue: Msg[] = [];
  private waiter: ((m: Msg | Error | undefined) => void) | undefined;
  private failed: Error | undefined;
  /** performance.now() by which the waiting reader hears silence (Waits). */
  dueAt = 0;

  constructor(
    private readonly bound: ReplyBound,
    private readonly isKeepalive: (m: Msg) => boolean,
    private readonly waits: Waits,
  ) {}

  push(m: Msg): void {
    if (this.failed) return;
    if (!this.waiter && this.queue.length > 0 && this.isKeepalive(m)) return;
    const over = this.bound(m, this.queue.length);
    if (over) {
      this.overrun(over);
      return;
    }
    if (this.waiter) this.wake(m);
    else this.queue.push(m);
  }

  /** The stream broke past its bound: what it queued is dropped, and its reader fails now. */
  private overrun(why: string): void {
    this.queue.length = 0;
    this.fail(new HostOverrun(why));
  }

  fail(err: Error): void {
    this.failed = err;
    this.wake(err);
  }

  /**
   * The next message, undefined after `ms` of silence; throws the subscription's error, or
   * `cancelled` once `signal` aborted. The signal is not listened to here (a listener per wait
   * was a large part of a fan-out's garbage): its walk listens once and calls cancel(). Nor
   * is there a timer per wait: the connection's walks share one (Waits).
   */
  next(ms: number, signal: AbortSignal): Promise<Msg | undefined> {
    const m = this.queue.shift();
    if (m) return Promise.resolve(m);
    if (this.failed) return Promise.reject(this.failed);
    if (signal.aborted) return Promise.reject(new FleetError('cancelled', 'cancelled'));
    return new Promise((resolve, reject) => {
      this.waiter = (v) => {
        if (v instanceof Error) reject(v);
        else resolve(v);
      };
      this.waits.add(this, ms);
    });
  }

  /** The walk's signal aborted: a reader waiting fails now with `cancelled`. */
  cancel(): void {
    this.wake(new FleetError('cancelled', 'cancelled'));
  }

  /** The reader waiting hears `v` (undefined: silence), once. */
  wake(v: Msg | Error | undefined): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    this.waits.delete(this);
    w(v);
  }
}

/**
 * The silences every walk on a connection waits out, on one timer armed for the earliest: a
 * timer per wait was one more object per host's reply. A wait is a Set entry; the timer is
 * moved only for a wait due before it (walks wait the same connect timeout or liveness, so a
 * later wait is rarely due sooner).
 */
export class Waits {
  private readonly waiting = new Set<Replies>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedAt = Number.POSITIVE_INFINITY;

  add(r: Replies, ms: number): void {
    r.dueAt = performance.now() + ms;
    this.waiting.add(r);
    if (r.dueAt < this.armedAt) this.arm(r.dueAt);
  }

  delete(r: Replies): void {
    if (!this.waiting.delete(r) || this.waiting.size > 0 || !this.timer) return;
    // Nothing left to wait for: a process with no other work must not wait for the timer.
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(at - performance.now())));
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const r of this.waiting) {
      if (r.dueAt <= now) r.wake(undefined);
      else if (r.dueAt < next) next = r.dueAt;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  };
}

/**
 * Every walk's replies on a connection come on one subscription, `<inbox prefix>.<nuid>.*`,
 * each walk a token under it: a walk per host on its own inbox subscription was a SUB and an
 * UNSUB on the wire and in the server for each of 5,000 hosts per call. The client subscribes
 * it again on every node it reconnects to, as it did each walk's own.
 */
class ReplyMux {
  readonly prefix: string;
  private readonly walks = new Map<string, Replies>();
  private readonly waits = new Waits();
  private dead = false;

  constructor(nc: NatsConnection) {
    this.prefix = createInbox(inboxPrefixOf(nc));
    const at = this.prefix.length + 1;
    nc.subscribe(`${this.prefix}.*`, {
      callback: (err, msg) => {
        if (!err) return void this.walks.get(msg.subject.slice(at))?.push(msg);
        // The subscription is gone (e.g. refused): its walks fail, the next walk makes another.
        this.dead = true;
        for (const r of this.walks.values()) r.fail(err);
      },
    });
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** The reply subject of walk `token` and its queue (held to `bound`), until close(). */
  open(
    token: string,
    bound: ReplyBound,
    isKeepalive: (m: Msg) => boolean,
  ): { subject: string; replies: Replies; close(): void } {
    const replies = new Replies(bound, isKeepalive, this.waits);
    this.walks.set(token, replies);
    return { subject: `${this.prefix}.${token}`, replies, close: () => this.walks.delete(token) };
  }
}

const muxes = new WeakMap<NatsConnection, ReplyMux>();

export function muxOf(nc: NatsConnection): ReplyMux {
  let m = muxes.get(nc);
  if (!m?.alive) {
    m = new ReplyMux(nc);
    muxes.set(nc, m);
  }
  return m;
}

/**
 * Publishes at the end of this turn of the event loop, all together: the client writes to the
 * socket once per microtask batch, and a fan-out's walks publish each from its own promise
 * chain, so 5,000 hosts were 5,000 socket writes (the largest part of the gateway's CPU on a
 * call); gathered, they are a few writes.
 */
const outgoing = new WeakMap<NatsConnection, (() => void)[]>();

export function publishSoon(nc: NatsConnection, send: () => void): void {
  let queue = outgoing.get(nc);
  if (!queue) {
    const q: (() => void)[] = [];
    queue = q;
    outgoing.set(nc, q);
    setImmediate(() => {
      outgoing.delete(nc);
      for (const f of q) f();
    });
  }
  queue.push(send);
}

/** The client's inboxPrefix option: the connection holds its options, its interface does not declare them. */
function inboxPrefixOf(nc: NatsConnection): string | undefined {
  if (!('options' in nc)) return undefined;
  const { options } = nc;
  if (typeof options !== 'object' || options === null || !('inboxPrefix' in options)) return undefined;
  return typeof options.inboxPrefix === 'string' ? options.inboxPrefix : undefined;
}
