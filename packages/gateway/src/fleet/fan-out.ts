// Asks many hosts the same thing: bounded concurrency, a deadline per host within the
// call's own, the caller's cancellation reaching every in-flight host, and a failing host
// turned into a status row.
import {
  type Code,
  FleetError,
  type HostBackend,
  type HostStatus,
  hostStatusFromCode,
  type OnEntriesSeen,
  type WalkRequest,
} from '@fleetls/core';
import { guardWalk, StallWatch, viaOf } from '@fleetls/hosts';
import { HostEntriesSeen } from './entries-seen.js';
import type { Fleet, FleetHost } from './fleet-types.js';

export interface FanOutOptions {
  concurrency: number;
  deadlineMs: number;
  /** When the whole call must be done (performance.now() time): no host runs past it. */
  deadlineAt?: number;
  signal?: AbortSignal;
  /** Called once per host as it finishes, in finishing order. */
  onHostDone?: (status: HostStatus, done: number, total: number) => void;
  /** Called once per host with its result (value included) as it finishes: a scan keeps them as they come. */
  onResult?: (index: number, result: HostResult<unknown>) => void;
  /** Once a host's rows began, the longest it may send none before it is ended (`timeout`). */
  stallMs?: number;
  /**
   * While a host's task runs, the entries its walks have read so far (rising; entries-seen.ts):
   * a long walk of one host is seen to move before it answers.
   */
  onEntriesSeen?: (index: number, entriesSeen: number) => void;
}

/** A host whose turn leaves less of the call than this is not asked at all. */
const MIN_HOST_MS = 250;

export interface HostResult<T> {
  host: FleetHost;
  /** Not `ok` with a value: what the host sent before it failed (a partial answer). */
  status: HostStatus;
  value?: T;
}

/**
 * A task that failed after part of its answer arrived (an agent killed mid-walk): the host's
 * status is `error` (or `code`'s, e.g. `timeout` for a host that stalled), saying so, and what
 * arrived is kept as its value.
 */
export class PartialFailure<T> extends FleetError {
  constructor(
    readonly partial: T,
    what: string,
    cause: unknown,
    code: Code = 'internal',
  ) {
    super(code, `partial answer: ${what}, then ${FleetError.from(cause).message}`, { cause });
  }
}

/**
 * One host's signal and deadline in a fan-out (hostSignals): made once per host, its methods
 * on the class, so a host costs one object and one AbortController here, not a set of closures.
 */
class HostDeadline {
  readonly signal: AbortSignal;
  /** Set once the host is done (dispose) or aborted: the queue skips it. */
  settled = false;
  /**
   * Heard right after the host's signal aborts by its deadline or the call's cancel (the
   * fan-out's race against its task), instead of a listener of its own.
   */
  reject: ((reason: unknown) => void) | undefined;

  constructor(
    private readonly ctrl: AbortController,
    /** performance.now() time at which the host's timeout fires. */
    readonly at: number,
    readonly timeoutMs: number,
    private readonly release: (h: HostDeadline) => void,
    /** A deadline earlier than the queue's last: its own timer. */
    readonly timer?: ReturnType<typeof setTimeout>,
  ) {
    this.signal = ctrl.signal;
  }

  abort(reason: unknown): void {
    this.settled = true;
    this.ctrl.abort(reason);
    this.reject?.(reason);
  }

  /**
   * Ends the host's work with `verdict` (the walk guard's: a host that stalled), without
   * deciding the host's answer: its task still ends and says what it got before.
   */
  readonly end = (verdict: unknown): void => {
    if (!this.signal.aborted) this.ctrl.abort(verdict);
  };

  /** The host is done: its deadline no longer fires. */
  dispose(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    this.release(this);
  }
}

/**
 * The hosts' signals of one fan-out. Each aborts when the call's signal does or after its
 * own timeout, with a FleetError reason (cancelled or deadline_exceeded). The call's signal
 * gets one listener for the whole fan-out, however many hosts are in flight: a listener per
 * host would pile up on it (Node warns past ten) and outlive nothing but the host.
 * The hosts' timeouts share one timer too: a fan-out starts its hosts in order with the same
 * budget (or the call's deadline), so their deadlines come in the order they were asked and a
 * queue armed for its head fires each at its own time; a timer per host was a large part of a
 * 100,000-host call's garbage. A deadline earlier than the queue's last gets a timer of its own.
 * `forHost(...).dispose` releases the host's deadline; `close` the call's listener.
 */
export function hostSignals(parent: AbortSignal | undefined): {
  forHost: (timeoutMs: number) => HostDeadline;
  close: () => void;
} {
  const live = new Set<HostDeadline>();
  const queue: HostDeadline[] = [];
  let head = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedAt = Number.POSITIVE_INFINITY;
  const cancelled = () => new FleetError('cancelled', 'cancelled by the client', { cause: parent?.reason });
  const abort = (h: HostDeadline, reason: unknown) => {
    live.delete(h);
    h.abort(reason);
  };
  const expire = (h: HostDeadline) =>
    abort(h, new FleetError('deadline_exceeded', `no answer within ${h.timeoutMs} ms`));
  // Arms the one timer for the queue's first host still waiting; fires every host due.
  const arm = () => {
    while (head < queue.length && queue[head].settled) head++;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
      if (timer) clearTimeout(timer);
      timer = undefined;
      armedAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    const at = queue[head].at;
    if (timer && armedAt <= at) return;
    if (timer) clearTimeout(timer);
    armedAt = at;
    timer = setTimeout(fire, Math.max(1, Math.ceil(at - performance.now())));
  };
  const fire = () => {
    timer = undefined;
    armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    while (head < queue.length && (queue[head].settled || queue[head].at <= now)) {
      const h = queue[head++];
      if (!h.settled) expire(h);
    }
    arm();
  };
  const onAbort = () => {
    for (const h of live) abort(h, cancelled());
    arm();
  };
  const release = (h: HostDeadline) => {
    live.delete(h);
    // The queue's head done: the timer moves on to the next host (or stops).
    if (queue[head] === h) arm();
  };
  parent?.addEventListener('abort', onAbort, { once: true });
  return {
    forHost(timeoutMs) {
      const ctrl = new AbortController();
      const at = performance.now() + timeoutMs;
      if (parent?.aborted) {
        ctrl.abort(cancelled());
        const h = new HostDeadline(ctrl, at, timeoutMs, release);
        h.settled = true;
        return h;
      }
      const last = queue.length > head ? queue[queue.length - 1].at : Number.NEGATIVE_INFINITY;
      if (at >= last) {
        const h = new HostDeadline(ctrl, at, timeoutMs, release);
        live.add(h);
        queue.push(h);
        arm();
        return h;
      }
      const own = setTimeout(() => {
        if (!h.settled) expire(h);
      }, timeoutMs);
      const h = new HostDeadline(ctrl, at, timeoutMs, release, own);
      live.add(h);
      return h;
    },
    close: () => parent?.removeEventListener('abort', onAbort),
  };
}

/**
 * Rejects with the host's abort reason when it aborts, so a hung backend cannot hold a host
 * past its deadline. Told by hostSignals (host.reject), with no listener of its own on the signal.
 */
function raceAbort<T>(p: Promise<T>, host: HostDeadline): Promise<T> {
  const { signal } = host;
  if (signal.aborted) {
    // The task's own failure (it saw the aborted signal too) is not the answer, and must not
    // go unhandled: a call cancelled with hosts still waiting for a slot crashed the gateway.
    p.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    host.reject = reject;
    p.then(resolve, reject);
  });
}

/**
 * The host's task, started now; a task that throws before it returns a promise rejects like
 * one that fails later (no Promise.resolve().then around every host's task: two promises a host).
 */
function startTask<T>(
  task: (backend: HostBackend, host: FleetHost, signal: AbortSignal, budgetMs: number) => Promise<T>,
  backend: HostBackend,
  host: FleetHost,
  signal: AbortSignal,
  budgetMs: number,
): Promise<T> {
  try {
    return task(backend, host, signal, budgetMs);
  } catch (err) {
    return Promise.reject(err);
  }
}

export async function fanOut<T>(
  fleet: Fleet,
  hosts: FleetHost[],
  task: (backend: HostBackend, host: FleetHost, signal: AbortSignal, budgetMs: number) => Promise<T>,
  opts: FanOutOptions,
): Promise<HostResult<T>[]> {
  // On NATS with peer gateways, a big call's hosts are split among them (fleet/peers/split.ts).
  const split = fleet.peers?.split(fleet, hosts, task, opts);
  if (split) return split;
  const results: HostResult<T>[] = new Array(hosts.length);
  const total = hosts.length;
  let next = 0;
  let done = 0;
  const signals = hostSignals(opts.signal);
  // The stall rule of every host's walks, on one timer for the call.
  const stalls = opts.stallMs === undefined ? undefined : new StallWatch(opts.stallMs);

  const runOne = async (i: number): Promise<void> => {
    const host = hosts[i];
    const started = performance.now();
    const left = opts.deadlineAt === undefined ? opts.deadlineMs : Math.floor(opts.deadlineAt - started);
    if (opts.deadlineAt !== undefined && left < MIN_HOST_MS) {
      // Its turn came too late in the call: say so rather than hold the whole answer.
      const status: HostStatus = {
        host: host.name,
        status: 'timeout',
        via: host.via,
        elapsedMs: 0,
        message: `not asked: the call's deadline ran out while ${total - i} of ${total} hosts waited for one of ${opts.concurrency} fan-out slots; ask fewer hosts at once or raise --concurrency`,
      };
      results[i] = { host, status };
      done++;
      fleet.observer?.hostDone(status);
      opts.onResult?.(i, results[i]);
      opts.onHostDone?.(status, done, total);
      return;
    }
    const budgetMs = Math.min(opts.deadlineMs, left);
    const deadline = signals.forHost(budgetMs);
    const { signal } = deadline;
    let status: HostStatus;
    let value: T | undefined;
    let backend: HostBackend | undefined;
    try {
      // Every walk held to its request, whatever carries it: a host that sends more than it
      // was asked, or stalls once its rows began, is cut off (@fleetls/hosts walk-guard.ts).
      const b = new FanOutBackend(fleet.backend(host.name), stalls, deadline.end, entriesSeenOf(opts, i));
      backend = b;
      // A host whose turn comes after the call was cancelled is not asked at all.
      if (signal.aborted) throw signal.reason;
      value = await raceAbort(startTask(task, b, host, signal, budgetMs), deadline);
      status = { host: host.name, status: 'ok', via: b.via, elapsedMs: elapsed(started) };
    } catch (err) {
      if (err instanceof PartialFailure) value = err.partial as T;
      const fe = signal.aborted && !(err instanceof FleetError) ? FleetError.from(signal.reason) : FleetError.from(err);
      status = {
        host: host.name,
        status: hostStatusFromCode(fe.code),
        via: viaOf(err, backend ?? host),
        elapsedMs: elapsed(started),
        message: fe.message,
      };
    } finally {
      deadline.dispose();
    }
    results[i] = value === undefined ? { host, status } : { host, status, value };
    done++;
    fleet.observer?.hostDone(status);
    opts.onResult?.(i, results[i]);
    opts.onHostDone?.(status, done, total);
  };

  const worker = async (): Promise<void> => {
    while (next < hosts.length) await runOne(next++);
  };
  const n = Math.max(1, Math.min(opts.concurrency, hosts.length));
  try {
    await Promise.all(Array.from({ length: n }, worker));
  } finally {
    signals.close();
    stalls?.close();
  }
  return results;
}

/** A host's progress for the fan-out's onEntriesSeen, if it asked for it. */
function entriesSeenOf(opts: FanOutOptions, i: number): HostEntriesSeen | undefined {
  const hear = opts.onEntriesSeen;
  return hear ? new HostEntriesSeen((n) => hear(i, n)) : undefined;
}

/**
 * A host's backend as a fan-out's task sees it: every walk guarded (guardWalk) on the host's
 * own signal, with the call's one stall timer, and counted for its progress as it passes the
 * guard. One object per host, with no generator of its own around the guard's.
 */
class FanOutBackend implements HostBackend {
  constructor(
    private readonly backend: HostBackend,
    private readonly stalls: StallWatch | undefined,
    private readonly end: (verdict: unknown) => void,
    private readonly seen: HostEntriesSeen | undefined,
  ) {}

  get via(): HostBackend['via'] {
    return this.backend.via;
  }

  walk(req: WalkRequest, signal: AbortSignal, onEntriesSeen?: OnEntriesSeen): ReturnType<HostBackend['walk']> {
    const tap = this.seen?.walk();
    const hear = tap ? tap.seen : onEntriesSeen;
    const { backend } = this;
    return guardWalk((r, s) => backend.walk(r, s, hear), req, signal, {
      stallWatch: this.stalls,
      end: this.end,
      tap,
    });
  }

  stat(path: string, followSymlinks: boolean, signal: AbortSignal): ReturnType<HostBackend['stat']> {
    return this.backend.stat(path, followSymlinks, signal);
  }

  probe(signal: AbortSignal): ReturnType<HostBackend['probe']> {
    return this.backend.probe(signal);
  }

  close(): void {
    this.backend.close();
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
