// What the gateway believes of a host's walk, whatever carried it (an agent over HTTP/2 or
// NATS, SSH, the embedded agent): no more rows than its request allows, and, once its rows
// began, rows that keep coming. A host past either is ended: what it sent within bounds
// stands, the offending batch is dropped, and nothing more of it is read (its call is
// cancelled). A fleet has one hostile host; it must not cost the gateway its memory, nor a
// caller its scans.
import { FleetError, type HostBackend, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';

/** A host sent more than its request allows: its status is `error`, saying what it overran. */
export class HostOverrun extends FleetError {
  constructor(what: string) {
    super('internal', `the host sent more than its request allows (${what}): cut off, the rest not read`);
  }
}

/** A host whose rows began and then stopped coming: its status is `timeout`. */
export class HostStalled extends FleetError {
  constructor(stallMs: number) {
    super('deadline_exceeded', `no rows for ${fmtSeconds(stallMs)} s: the host stalled and was ended`);
  }
}

function fmtSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/**
 * The rows one walk may send, counted as they arrive. An honest walk (core's walk engine, on
 * every route) sends at most max_entries entry rows in the tree shape and top_n in the ranked
 * one (the root's own error row is one entry); a directory other than the requested path (or
 * it too, with cap_root) shows at most max_items_per_dir children, each entry row followed by
 * at most one error row of the same path; and a truncation row closes a directory whose
 * children it follows, so there are never more of them than entries, plus the root's.
 */
export class RowAllowance {
  private entries = 0;
  private truncations = 0;
  private readonly maxEntries: number;
  private readonly perDir: Map<string, number> | undefined;
  private lastPath: Buffer | undefined;

  constructor(private readonly req: WalkRequest) {
    this.maxEntries = req.shape === 'ranked' ? req.topN : req.maxEntries;
    this.perDir = req.shape === 'tree' ? new Map() : undefined;
  }

  /** What the first row of `batch` past the allowance overruns; undefined when every row fits. */
  excess(batch: Row[]): string | undefined {
    for (const row of batch) {
      if (row.kind === 'truncation') {
        if (++this.truncations > this.entries + 1) {
          return `${this.truncations} truncation rows after ${this.entries} entries`;
        }
        continue;
      }
      if (++this.entries > this.maxEntries) {
        return this.req.shape === 'ranked'
          ? `more than top_n=${this.maxEntries} rows`
          : `more than max_entries=${this.maxEntries} rows`;
      }
      const over = this.perDir && this.dirExcess(row.entry.path, this.perDir);
      if (over) return over;
    }
    return undefined;
  }

  /** Counts a tree row among its directory's children (an error row right after its entry is not another child). */
  private dirExcess(path: Buffer, perDir: Map<string, number>): string | undefined {
    const again = this.lastPath?.equals(path) ?? false;
    this.lastPath = path;
    if (again || path.length === 0) return undefined;
    const slash = path.lastIndexOf(0x2f);
    if (slash < 0 && !this.req.capRoot) return undefined;
    const dir = slash < 0 ? '' : path.toString('latin1', 0, slash);
    const n = (perDir.get(dir) ?? 0) + 1;
    perDir.set(dir, n);
    if (n <= this.req.maxItemsPerDir) return undefined;
    return `more than max_items_per_dir=${this.req.maxItemsPerDir} children in one directory`;
  }
}

export interface WalkGuardOptions {
  /** Once a host's rows began, the longest it may send none (undefined: no such rule). */
  stallMs?: number;
  /**
   * Where the stall rule is timed: a fan-out's walks share one (one timer for the call, not
   * one per batch). Without it a stalled walk gets one of its own. Its `ms` is the rule's.
   */
  stallWatch?: StallWatch;
  /**
   * Ends the walk's `signal` with the guard's verdict: the caller owns that signal (a fan-out's
   * host has one already), and the walk runs on it with no AbortController of the guard's
   * own. Without it the guard makes one that follows `signal`.
   */
  end?: (verdict: FleetError) => void;
  /** Hears what passes the guard (a fan-out's progress), instead of another layer around it. */
  tap?: WalkTap;
}

/** What hears a guarded walk: each batch it let through, then the walk's summary. */
export interface WalkTap {
  rows(batch: Row[]): void;
  done(summary: WalkSummary): void;
}

type WalkFn = (req: WalkRequest, signal: AbortSignal) => AsyncGenerator<Row[], WalkSummary, void>;
/** One step of a walk: a batch of rows, or its summary at the end. */
type Step = IteratorResult<Row[], WalkSummary>;

/**
 * The stall rule of many walks on one timer. A walk is watched while it waits for its next
 * batch once its rows began; the timer is armed for the earliest of them and, when it fires,
 * ends each walk that waited `ms` and re-arms for the rest. Every watch lasts the same `ms`,
 * so a walk watched later is never due earlier than the timer already armed: a watch is a Set
 * entry, not a timer (a timer and a promise per batch was most of the guard's cost per host).
 */
export class StallWatch {
  private readonly waiting = new Set<Watched>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly ms: number) {
    if (!(ms > 0)) throw new RangeError(`StallWatch ms must be > 0, got ${ms}`);
  }

  watch(w: Watched): void {
    w.since = performance.now();
    this.waiting.add(w);
    this.timer ??= setTimeout(this.fire, this.ms);
  }

  unwatch(w: Watched): void {
    if (!this.waiting.delete(w) || this.waiting.size > 0 || !this.timer) return;
    // Nothing left to time: a process with no other work must not wait for the timer.
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const w of this.waiting) {
      const due = w.since + this.ms;
      if (due <= now) {
        this.waiting.delete(w);
        w.stalled(this.ms);
      } else if (due < next) next = due;
    }
    if (next !== Number.POSITIVE_INFINITY) this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(next - now)));
  };
}

/** A walk a StallWatch times. */
interface Watched {
  /** performance.now() when it began to wait. */
  since: number;
  /** It waited the watch's `ms`: it is ended. */
  stalled(ms: number): void;
}

/**
 * `walk` held to `req`: a batch past the allowance ends the host with HostOverrun; once rows
 * began, `stallMs` without a batch ends it with HostStalled. Either way the inner walk is
 * cancelled (a stalled one through its signal, so its carrier resets the stream), and no more
 * is read. Before the first row the walk's own deadline applies: a ranked walk sends nothing
 * until it is done, honestly.
 */
export function guardWalk(
  walk: WalkFn,
  req: WalkRequest,
  signal: AbortSignal,
  opts: WalkGuardOptions = {},
): AsyncGenerator<Row[], WalkSummary, void> {
  return new GuardedWalk(walk, req, signal, opts);
}

const noop = () => {};

/**
 * guardWalk's iterator, written by hand rather than as an async generator: every batch of
 * every host passes it, and a generator layer is a queue, promises and a resumption per step
 * where this is one `then` (issue 34: the row path's layers).
 */
class GuardedWalk implements AsyncGenerator<Row[], WalkSummary, void>, Watched {
  since = 0;
  private readonly allowance: RowAllowance;
  private readonly inner: AsyncGenerator<Row[], WalkSummary, void>;
  private readonly signal: AbortSignal;
  private readonly ctrl: AbortController | undefined;
  private readonly onAbort: (() => void) | undefined;
  private readonly watch: StallWatch | undefined;
  /** The watch is the guard's own (no fan-out's): its timer goes with the walk. */
  private readonly ownWatch: boolean;
  private readonly endWith: ((verdict: FleetError) => void) | undefined;
  private readonly tap: WalkTap | undefined;
  private began = false;
  private pending = false;
  private closed = false;
  /** HostStalled or HostOverrun, once the guard ended the walk. */
  private verdict: FleetError | undefined;
  /**
   * The next() the stall rule watches, once rows began: its promise is the guard's own, settled
   * by the inner step (stepped, stepFailed) or, first, by the rule (stalled).
   */
  private resolveNext: ((r: Step | PromiseLike<Step>) => void) | undefined;
  private rejectNext: ((err: unknown) => void) | undefined;
  // A step's handlers: methods bound per walk, not arrow fields. An arrow field is a closure
  // made per walk, and V8 keeps a closure's optimized code only while one of them lives, so a
  // full collection between calls dropped it and the next calls compiled it again; a method's
  // code lives as long as the class.
  private readonly passed = this.pass.bind(this);
  private readonly failed = this.fail.bind(this);
  private readonly stepped = this.onStep.bind(this);
  private readonly stepFailed = this.onStepFailed.bind(this);

  // `opts` is read here and not kept: a fan-out makes it per host as a literal, which V8 would
  // allocate in the old generation if it lived as long as the walk (agent/http2/channel.ts,
  // StartedCall, says why).
  constructor(
    walk: WalkFn,
    req: WalkRequest,
    private readonly parent: AbortSignal,
    opts: WalkGuardOptions,
  ) {
    this.allowance = new RowAllowance(req);
    const ms = opts.stallWatch?.ms ?? opts.stallMs;
    this.watch = ms === undefined ? undefined : (opts.stallWatch ?? new StallWatch(ms));
    this.ownWatch = !opts.stallWatch;
    this.endWith = opts.end;
    this.tap = opts.tap;
    if (opts.end) {
      this.signal = parent;
    } else {
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(parent.reason);
      if (parent.aborted) onAbort();
      else parent.addEventListener('abort', onAbort, { once: true });
      this.ctrl = ctrl;
      this.onAbort = onAbort;
      this.signal = ctrl.signal;
    }
    this.inner = walk(req, this.signal);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Row[], WalkSummary>> {
    if (this.closed) return Promise.resolve({ done: true, value: undefined as never });
    this.pending = true;
    const step = this.inner.next();
    if (!this.began || !this.watch) return step.then(this.passed, this.failed);
    const watch = this.watch;
    // One promise the stall rule can reject, the step's outcome handed to it: no race promise
    // and second `then` around the step (every batch of every host after its first).
    return new Promise<IteratorResult<Row[], WalkSummary>>((resolve, reject) => {
      this.resolveNext = resolve;
      this.rejectNext = reject;
      watch.watch(this);
      step.then(this.stepped, this.stepFailed);
    });
  }

  stalled(ms: number): void {
    const stalled = new HostStalled(ms);
    this.end(stalled);
    const reject = this.rejectNext;
    if (!reject) return;
    this.resolveNext = this.rejectNext = undefined;
    this.pending = false;
    // Its inner next() is still running: it settles on the abort, and return() would queue behind it.
    void this.inner.return(undefined as never).catch(noop);
    this.close();
    reject(stalled);
  }

  /** A watched step's batch or summary; none once the stall rule answered the next(). */
  private onStep(r: IteratorResult<Row[], WalkSummary>): void {
    const resolve = this.resolveNext;
    const reject = this.rejectNext;
    if (!resolve || !reject) return;
    this.resolveNext = this.rejectNext = undefined;
    try {
      resolve(this.pass(r));
    } catch (err) {
      reject(err);
    }
  }

  private onStepFailed(err: unknown): void {
    const reject = this.rejectNext;
    if (!reject) return;
    this.resolveNext = this.rejectNext = undefined;
    try {
      this.fail(err);
    } catch (thrown) {
      reject(thrown);
    }
  }

  private end(verdict: FleetError): void {
    this.verdict ??= verdict;
    if (this.endWith) this.endWith(verdict);
    else if (!this.ctrl!.signal.aborted) this.ctrl!.abort(verdict);
  }

  private pass(
    r: IteratorResult<Row[], WalkSummary>,
  ): Promise<IteratorResult<Row[], WalkSummary>> | IteratorResult<Row[], WalkSummary> {
    this.settled();
    if (r.done) {
      this.close();
      this.tap?.done(r.value);
      return r;
    }
    const over = this.allowance.excess(r.value);
    if (over) {
      const overrun = new HostOverrun(over);
      return this.stop().then(() => {
        throw overrun;
      });
    }
    if (r.value.length > 0) this.began = true;
    this.tap?.rows(r.value);
    return r;
  }

  private fail(err: unknown): never {
    this.settled();
    this.close();
    // The inner walk ended because this guard ended it: the guard's verdict is the reason.
    const reason = this.verdict ?? this.ctrl?.signal.reason;
    if (reason instanceof HostStalled || reason instanceof HostOverrun) throw reason;
    throw err;
  }

  private settled(): void {
    this.pending = false;
    if (this.began && this.watch) this.watch.unwatch(this);
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.onAbort) this.parent.removeEventListener('abort', this.onAbort);
    // A watch of the walk's own (no fan-out's): its timer goes with it.
    if (this.watch && this.ownWatch) this.watch.close();
  }

  /** Ends the inner walk, which has not finished (the consumer stopped, or a batch overran). */
  private async stop(): Promise<void> {
    const pending = this.pending;
    this.close();
    if (this.ctrl && !this.ctrl.signal.aborted) this.ctrl.abort(new FleetError('cancelled', 'the walk was stopped'));
    // A next() still waiting settles on the abort; return() would queue behind it.
    if (pending) void this.inner.return(undefined as never).catch(noop);
    else await this.inner.return(undefined as never).catch(noop);
  }

  async return(value?: WalkSummary | PromiseLike<WalkSummary>): Promise<IteratorResult<Row[], WalkSummary>> {
    if (!this.closed) await this.stop();
    return { done: true, value: (await value) as WalkSummary };
  }

  async throw(err?: unknown): Promise<IteratorResult<Row[], WalkSummary>> {
    if (!this.closed) await this.stop();
    throw err;
  }
}

/** `backend` with every walk guarded (guardWalk); its other calls as they are. */
export function guardBackend(backend: HostBackend, opts: WalkGuardOptions = {}): HostBackend {
  return {
    get via() {
      return backend.via;
    },
    walk: (req, signal, onEntriesSeen) => guardWalk((r, s) => backend.walk(r, s, onEntriesSeen), req, signal, opts),
    stat: (path, follow, signal) => backend.stat(path, follow, signal),
    probe: (signal) => backend.probe(signal),
    close: () => backend.close(),
  };
}
