// Runs one walk in a worker thread and hands its rows out as an async generator of
// batches. Taking a batch grants the worker one credit; cancel() raises the shared flag
// (the worker stops within one entry) and terminates the worker if it does not stop.
// Workers come from the caller's WalkPool (walk/pool.ts), which owns them and the state of
// its hung mounts.
//
// A worker whose file system call does not return within the timeout (a hung mount) is
// abandoned: it is never reused, and counts as stuck until its call returns. Its mount is
// marked hung (walk/hung-mounts.ts) and the walk goes on in a fresh worker from the last row the
// stuck one sent, the hung mount listed as TIMEOUT; its rows and summary read as one walk.
import type { Worker } from 'node:worker_threads';
import type { Row, WalkCounts, WalkRequest, WalkSummary } from '@fleetls/core';
import { FleetError } from '@fleetls/core';
import { takeFind } from '../find/route.js';
import { readsDents } from '../fs/fsat.js';
import { pseudoMountsUnder, readMounts } from '../fs/mounts.js';
import { CallWatch, type StuckCall } from './call-probe.js';
import { DEFAULT_FS_TIMEOUT_MS, type HungMount } from './hung-mounts.js';
import { packedTreeServes } from './packed-tree.js';
import type { WalkPool } from './pool.js';
import { resumeRequest, wholeWalkSummary } from './rest.js';
import { rankedSplits, startRankedHelper } from './split/ranked-share.js';
import { splits, startSplitHelper } from './split/start.js';
import {
  CANCEL,
  CONTROL_SLOTS,
  CREDITS,
  type HelperAsk,
  type LastRow,
  rowFromPlain,
  SEEN,
  type SplitCounts,
  summaryFromPlain,
  type WalkRoute,
  type WorkerInput,
  type WorkerMessage,
} from './transit.js';

export interface WalkerOptions {
  allowedRoots: string[];
  /** Batches in flight between worker and consumer. */
  credits?: number;
  batchRows?: number;
  batchBytes?: number;
  flushMs?: number;
  /** A file system call that does not return within this many ms marks its mount hung. */
  fsTimeoutMs?: number;
  /** Workers that may be stuck at once; past it, a walk whose worker gets stuck ends there. */
  maxStuckWorkers?: number;
  /** The workers, the hung mounts and the find slots this walk shares with its owner's other walks. */
  pool: WalkPool;
  /** Told of each worker given up on, with the mount now skipped. */
  onStuck?: (mount: HungMount, call: StuckCall) => void;
  /** false: the JS walker lists every walk (default: find/route.ts decides). */
  find?: boolean;
  /**
   * Split a tree walk with a helper thread (walk-split.ts): true always, false never;
   * default: a walk that may send SPLIT_MIN_ENTRIES rows or more, alone in its pool, given two CPUs
   * (walk/split/start.ts).
   */
  split?: boolean;
}

export interface WalkOutcome {
  /** Directory entries the worker read. */
  seen: number;
  cancelled: boolean;
  error?: string;
  /** What a walk that ran to its end produced (for metrics). */
  counts?: WalkCounts;
  /** Workers of this walk given up on, stuck in a call on a hung mount. */
  stuck: number;
  /** Which source listed a walk that ran to its end. */
  route?: WalkRoute;
  /** Why a walk meant for find was listed by the JS walker. */
  fallback?: string;
  /** A split tree walk's pieces (walk-split.ts). */
  split?: SplitCounts;
}

export interface RunningWalk<B = Row[]> {
  batches: AsyncGenerator<B, WalkSummary, void>;
  cancel(): void;
  /** Directory entries read so far (published by the worker every 256): progress while it walks. */
  seen(): number;
  /** Settles when the walk has ended and its worker is free (or gone). */
  finished: Promise<WalkOutcome>;
}

/** A batch already encoded as one protobuf WalkResponse (rows only), and its entry count. */
export interface WireBatch {
  bytes: Buffer;
  entries: number;
}

/** Runs a walk in a worker; batches are Row arrays (the embedded backend, tests). */
export function startWalk(req: WalkRequest, opts: WalkerOptions): RunningWalk<Row[]> {
  return spawnWalk<Row[]>(req, opts, 'rows');
}

/** Runs a walk in a worker; batches come encoded as WalkResponse messages (the gRPC service). */
export function startWireWalk(req: WalkRequest, opts: WalkerOptions): RunningWalk<WireBatch> {
  return spawnWalk<WireBatch>(req, opts, 'wire');
}

const TERMINATE_AFTER_MS = 2000;
const DEFAULT_MAX_STUCK_WORKERS = 8;

// Over 80 lines: one walk's life (worker, helper thread, consumer queue, stuck watchdog) in closures over its shared state; its split into a run object is not yet tested.
function spawnWalk<B>(req: WalkRequest, opts: WalkerOptions, mode: 'rows' | 'wire'): RunningWalk<B> {
  const control = new SharedArrayBuffer(CONTROL_SLOTS * 4);
  const ctl = new Int32Array(control);
  ctl[CREDITS] = opts.credits ?? 4;
  const timeoutMs = opts.fsTimeoutMs ?? DEFAULT_FS_TIMEOUT_MS;
  const maxStuck = opts.maxStuckWorkers ?? DEFAULT_MAX_STUCK_WORKERS;
  const pool = opts.pool;
  const hung = pool.hung;
  const started = Date.now();
  pool.walking++;

  const queue: WorkerMessage[] = [];
  let wake: (() => void) | undefined;
  let resolveFinished: (o: WalkOutcome) => void = () => {};
  const finished = new Promise<WalkOutcome>((r) => {
    resolveFinished = r;
  });
  let terminal = false;

  // What the walk's earlier workers (given up on) sent and read, for the resumed part.
  let sent = 0;
  let sentBefore = 0;
  let seenBefore = 0;
  let last: LastRow | undefined;
  let stuckHere = 0;

  let worker: Worker;
  let unwatch: () => void = () => {};
  let detach: () => void = () => {};

  /** Gives back the find slot the walk took, if it took one (find/route.ts). */
  let releaseFind: () => void = () => {};

  /** Queues a message for the consumer; the walk's last one settles `finished`. */
  const push = (m: WorkerMessage) => {
    if (m.t !== 'rows' && m.t !== 'wire' && !terminal) {
      terminal = true;
      pool.walking--;
      releaseFind();
      stopHelper();
      detach();
      unwatch();
      resolveFinished({
        seen: seenBefore + m.seen,
        cancelled: m.t === 'cancelled',
        ...(m.t === 'error' ? { error: m.message } : {}),
        ...(m.t === 'done' ? { counts: m.counts, route: m.route } : {}),
        ...(m.t === 'done' && m.fallback ? { fallback: m.fallback } : {}),
        ...(m.t === 'done' && m.split ? { split: m.split } : {}),
        stuck: stuckHere,
      });
    }
    queue.push(m);
    wake?.();
  };

  function startPart(partReq: WalkRequest): void {
    const probe = new CallWatch();
    const current = pool.acquire();
    worker = current;
    function fromWorker(m: WorkerMessage | HelperAsk): void {
      if (m.t === 'ranked-helper') {
        // A ranked walk with directories to hand out (walk/split/ranked-share.ts); once the walk
        // ended there is none to take, and the worker's end finds the helper never started.
        if (terminal) m.port.close();
        else stopHelper = startRankedHelper(pool, input, timeoutMs, m.shared, m.port);
        return;
      }
      if (m.t === 'done' && m.final) {
        // The last batch came inside the end (walk/row-batches.ts): queued first, as if sent alone.
        const { final, ...done } = m;
        fromWorker(final);
        m = done;
      }
      const lastOfWalk = m.t !== 'rows' && m.t !== 'wire';
      if (m.t === 'rows' || m.t === 'wire') {
        sent += m.entries;
        last = m.last;
      } else if (m.t === 'done' && sentBefore + seenBefore > 0) {
        m = { ...m, summary: wholeWalkSummary(m.summary, sentBefore, seenBefore, Date.now() - started) };
      }
      push(m);
      // The worker ended this walk by itself: it is healthy and free for the next one.
      if (lastOfWalk) pool.release(current);
    }
    function onError(err: Error): void {
      push({ t: 'error', message: err.message, seen: Atomics.load(ctl, SEEN) });
    }
    function onExit(): void {
      const seen = Atomics.load(ctl, SEEN);
      push(
        Atomics.load(ctl, CANCEL) !== 0
          ? { t: 'cancelled', seen }
          : { t: 'error', message: 'walk worker exited unexpectedly', seen },
      );
    }
    current.on('message', fromWorker);
    current.on('error', onError);
    current.on('exit', onExit);
    detach = () => {
      current.off('message', fromWorker);
      current.off('error', onError);
      current.off('exit', onExit);
    };
    unwatch = pool.watch({ watch: probe, timeoutMs, onStuck: (call) => onStuck(current, call) });
    const skip = hung.active().map(({ point, exact, detail }) => ({ point, exact, detail }));
    // Read once per walk part: find/route.ts decides with it and the worker's source prunes by it.
    const mounts = readMounts();
    // The worker is given only what it prunes: the pseudo file systems below the root.
    const pseudo = pseudoMountsUnder(mounts, partReq.path);
    const input: WorkerInput = {
      req: partReq,
      allowedRoots: opts.allowedRoots,
      control,
      mode,
      batchRows: opts.batchRows ?? 512,
      batchBytes: opts.batchBytes ?? 32 * 1024,
      flushMs: opts.flushMs ?? 50,
      probe: probe.shared,
      skip,
      pseudo,
      find: false,
    };
    // Only a walk's first part: a resumed one follows a worker stuck on a hung mount.
    const release = opts.find !== false && partReq === req ? takeFind(partReq, skip, pool.find, mounts) : undefined;
    if (release) {
      releaseFind = release;
      input.find = true;
    }
    if (partReq === req && opts.split !== false && rankedSplits(req, input, pool, mounts, readsDents())) {
      // The worker asks for its helper once it has directories to share (fromWorker above).
      input.ranked = true;
      current.postMessage(input);
      return;
    }
    if (!input.find && partReq === req && splits(req, opts.split, pool, mode, readsDents() && packedTreeServes(req))) {
      const helper = startSplitHelper(pool, input, timeoutMs);
      stopHelper = helper.stop;
      current.postMessage(input, [helper.port]);
      return;
    }
    current.postMessage(input);
  }

  /** Ends the helper's loop; a helper that does not come back (a hung call) is abandoned. */
  let stopHelper: () => void = () => {};

  function onStuck(stuckWorker: Worker, call: StuckCall): void {
    if (terminal || stuckWorker !== worker) return;
    stopHelper();
    detach();
    unwatch();
    pool.abandon(stuckWorker);
    stuckHere++;
    const mount = hung.mark(call, timeoutMs);
    opts.onStuck?.(mount, call);
    seenBefore += Atomics.load(ctl, SEEN);
    sentBefore = sent;
    if (Atomics.load(ctl, CANCEL) !== 0) {
      push({ t: 'cancelled', seen: 0 });
      return;
    }
    if (pool.stuckWorkers() > maxStuck) {
      push({
        t: 'error',
        code: 'resource_exhausted',
        message: `every walk worker is stuck in a file system call that does not return (${mount.detail})`,
        seen: 0,
      });
      return;
    }
    // A worker starts with SEEN at its own count: the new part's is added to seenBefore.
    Atomics.store(ctl, SEEN, 0);
    startPart(resumeRequest(req, sent, last, Date.now() - started));
  }

  startPart(req);

  let killTimer: NodeJS.Timeout | undefined;
  function cancel(): void {
    if (terminal || Atomics.load(ctl, CANCEL) !== 0) return;
    Atomics.store(ctl, CANCEL, 1);
    Atomics.notify(ctl, CREDITS);
    // A worker stuck in a system call (a hung mount) is not reused: it is terminated.
    killTimer = setTimeout(() => {
      if (!terminal) void worker.terminate();
    }, TERMINATE_AFTER_MS);
    killTimer.unref();
  }
  void finished.then(() => clearTimeout(killTimer));

  async function next(): Promise<WorkerMessage> {
    while (queue.length === 0) {
      await new Promise<void>((r) => {
        wake = r;
      });
      wake = undefined;
    }
    return queue.shift() as WorkerMessage;
  }

  return {
    batches: batchesOf<B>(next, ctl, cancel),
    cancel,
    finished,
    seen: () => seenBefore + Atomics.load(ctl, SEEN),
  };
}

/**
 * A walk's messages as the consumer takes its batches: each taken batch grants the worker a
 * credit; a consumer that stops early (return/throw) stops the worker too.
 * Here, not inside spawnWalk: V8 gives a generator function a map of its own (for the
 * generators it makes) at its first call, in the old generation, pointing back at the
 * function; one declared per walk left a dead old map that held the walk's closures and
 * their state alive through every scavenge until the next full collection
 * (bench/results/structure.why.md).
 */
async function* batchesOf<B>(
  next: () => Promise<WorkerMessage>,
  ctl: Int32Array,
  cancel: () => void,
): AsyncGenerator<B, WalkSummary, void> {
  let done = false;
  try {
    for (;;) {
      const m = await next();
      switch (m.t) {
        case 'rows':
          yield m.rows.map(rowFromPlain) as B;
          Atomics.add(ctl, CREDITS, 1);
          Atomics.notify(ctl, CREDITS);
          break;
        case 'wire':
          yield { bytes: Buffer.from(m.buf), entries: m.entries } as B;
          Atomics.add(ctl, CREDITS, 1);
          Atomics.notify(ctl, CREDITS);
          break;
        case 'done':
          done = true;
          return summaryFromPlain(m.summary);
        case 'cancelled':
          done = true;
          throw new FleetError('cancelled', 'walk cancelled');
        case 'error':
          done = true;
          throw new FleetError(m.code ?? 'internal', `walk failed: ${m.message}`);
      }
    }
  } finally {
    if (!done) cancel();
  }
}
