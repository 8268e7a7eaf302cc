// Runs one walk in a worker thread and hands its rows out as an async generator of
// batches. Taking a batch grants the worker one credit; cancel() raises the shared flag
// (the worker stops within one entry) and terminates the worker if it does not stop.
import { Worker } from 'node:worker_threads';
import type { Row, WalkRequest, WalkSummary } from '@fleetls/core';
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
}

export interface RunningWalk<B = Row[]> {
  batches: AsyncGenerator<B, WalkSummary, void>;
  cancel(): void;
  /** Settles when the worker has exited. */
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
  const worker = new Worker(new URL('./walk-worker.js', import.meta.url), { workerData: input });

  const queue: WorkerMessage[] = [];
  let wake: (() => void) | undefined;
  let exited = false;
  let outcome: WalkOutcome = { seen: 0, cancelled: false };
  let resolveFinished: (o: WalkOutcome) => void = () => {};
  const finished = new Promise<WalkOutcome>((r) => {
    resolveFinished = r;
  });
  let terminal = false;

  const push = (m: WorkerMessage) => {
    if (m.t !== 'rows' && m.t !== 'wire') {
      terminal = true;
      outcome = {
        seen: m.seen,
        cancelled: m.t === 'cancelled',
        ...(m.t === 'error' ? { error: m.message } : {}),
      };
    }
    queue.push(m);
    wake?.();
  };
  worker.on('message', push);
  worker.on('error', (err) => {
    if (!terminal) push({ t: 'error', message: err.message, seen: Atomics.load(ctl, SEEN) });
  });
  worker.on('exit', () => {
    exited = true;
    if (!terminal) {
      const wasCancelled = Atomics.load(ctl, CANCEL) !== 0;
      push(
        wasCancelled
          ? { t: 'cancelled', seen: Atomics.load(ctl, SEEN) }
          : { t: 'error', message: 'walk worker exited unexpectedly', seen: Atomics.load(ctl, SEEN) },
      );
    }
    resolveFinished(outcome);
  });

  let killTimer: NodeJS.Timeout | undefined;
  function cancel(): void {
    if (exited || Atomics.load(ctl, CANCEL) !== 0) return;
    Atomics.store(ctl, CANCEL, 1);
    Atomics.notify(ctl, CREDITS);
    killTimer = setTimeout(() => {
      if (!exited) void worker.terminate();
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
