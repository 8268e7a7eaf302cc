// Runs one walk in a worker thread and hands its rows out as an async generator of
// batches. Taking a batch grants the worker one credit; cancel() raises the shared flag
// (the worker stops within one entry) and terminates the worker if it does not stop.
// Workers are pooled: starting a thread costs tens of milliseconds, a message does not.
import { Worker } from 'node:worker_threads';
import type { Row, WalkCounts, WalkRequest, WalkSummary } from '@fleetls/core';
import { FleetError } from '@fleetls/core';
import {
  CANCEL,
  CONTROL_SLOTS,
  CREDITS,
  rowFromPlain,
  SEEN,
  summaryFromPlain,
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
}

export interface WalkOutcome {
  /** Directory entries the worker read. */
  seen: number;
  cancelled: boolean;
  error?: string;
  /** What a walk that ran to its end produced (for metrics). */
  counts?: WalkCounts;
}

export interface RunningWalk<B = Row[]> {
  batches: AsyncGenerator<B, WalkSummary, void>;
  cancel(): void;
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
/** Idle workers kept warm between walks; more walks at once start more workers. */
const MAX_IDLE_WORKERS = 4;
const WORKER_URL = new URL('./walk-worker.js', import.meta.url);
const idle: Worker[] = [];

/** A new worker that leaves the idle list if it ever exits. */
function newWorker(): Worker {
  const worker = new Worker(WORKER_URL);
  worker.once('exit', () => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  return worker;
}

/** Starts a worker ahead of the first walk, so that walk does not wait for a thread to boot. */
export function warmWalker(): void {
  if (idle.length === 0) releaseWorker(newWorker());
}

function acquireWorker(): Worker {
  const worker = idle.pop() ?? newWorker();
  worker.ref();
  return worker;
}

/** A worker whose walk ended cleanly goes back to the pool, unref'd so it never holds the process open. */
function releaseWorker(worker: Worker): void {
  if (idle.length >= MAX_IDLE_WORKERS) {
    void worker.terminate();
    return;
  }
  worker.unref();
  idle.push(worker);
}

function spawnWalk<B>(req: WalkRequest, opts: WalkerOptions, mode: 'rows' | 'wire'): RunningWalk<B> {
  const control = new SharedArrayBuffer(CONTROL_SLOTS * 4);
  const ctl = new Int32Array(control);
  ctl[CREDITS] = opts.credits ?? 4;
  const input: WorkerInput = {
    req,
    allowedRoots: opts.allowedRoots,
    control,
    mode,
    batchRows: opts.batchRows ?? 512,
    batchBytes: opts.batchBytes ?? 32 * 1024,
    flushMs: opts.flushMs ?? 50,
  };
  const worker = acquireWorker();

  const queue: WorkerMessage[] = [];
  let wake: (() => void) | undefined;
  let resolveFinished: (o: WalkOutcome) => void = () => {};
  const finished = new Promise<WalkOutcome>((r) => {
    resolveFinished = r;
  });
  let terminal = false;

  const detach = () => {
    worker.off('message', fromWorker);
    worker.off('error', onError);
    worker.off('exit', onExit);
  };
  /** Queues a message for the consumer; the walk's last one settles `finished`. */
  const push = (m: WorkerMessage) => {
    if (m.t !== 'rows' && m.t !== 'wire' && !terminal) {
      terminal = true;
      detach();
      resolveFinished({
        seen: m.seen,
        cancelled: m.t === 'cancelled',
        ...(m.t === 'error' ? { error: m.message } : {}),
        ...(m.t === 'done' ? { counts: m.counts } : {}),
      });
    }
    queue.push(m);
    wake?.();
  };
  function fromWorker(m: WorkerMessage): void {
    const last = m.t !== 'rows' && m.t !== 'wire';
    push(m);
    // The worker ended this walk by itself: it is healthy and free for the next one.
    if (last) releaseWorker(worker);
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
  worker.on('message', fromWorker);
  worker.on('error', onError);
  worker.on('exit', onExit);
  worker.postMessage(input);

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

  async function* batches(): AsyncGenerator<B, WalkSummary, void> {
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
            throw new FleetError('internal', `walk failed: ${m.message}`);
        }
      }
    } finally {
      // The consumer stopped early (return/throw): stop the worker too.
      if (!done) cancel();
    }
  }

  return { batches: batches(), cancel, finished };
}
