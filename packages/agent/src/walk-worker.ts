// The walk, run in a worker thread so the agent's event loop never blocks on the file
// system. Rows leave in batches (count, bytes, or time); the main thread grants credits
// for batches it has consumed, and the worker sleeps (Atomics.wait) when it has none.
// A cancel flag in the same shared buffer stops the walk within one directory entry.
// The worker is kept in a pool: it runs one walk per message, one at a time.
import { parentPort } from 'node:worker_threads';
import type { EntryErrorCode, Row, WalkSummary } from '@fleetls/core';
import { WalkTally, walk } from '@fleetls/core';
// The encoder alone, without the gRPC stack the package's root would load into each worker.
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import { CallProbe } from './call-probe.js';
import { FIND_AFTER_ENTRIES } from './find-route.js';
import { loadFindWalk } from './find-source.js';
import { createFsSource } from './fs-source.js';
import {
  CANCEL,
  CREDITS,
  type LastRow,
  type PlainRow,
  plainRowBytes,
  rowToPlain,
  SEEN,
  summaryToPlain,
  type WorkerInput,
  type WorkerMessage,
} from './transit.js';
import { WalkCancelled } from './walk-cancelled.js';
import { type HelperInput, lastRowOf, runHelper } from './walk-helper.js';
import { ThreadSplitter } from './walk-split.js';

const port = parentPort;
if (!port) throw new Error('walk-worker must run in a worker thread');

function post(msg: WorkerMessage): void {
  port?.postMessage(msg);
}

async function runWalk(input: WorkerInput): Promise<void> {
  const control = new Int32Array(input.control);
  const encoder = input.mode === 'wire' ? new WalkResponseEncoder(64 * 1024) : undefined;
  let seen = 0;
  const tally = new WalkTally();
  let batch: PlainRow[] = [];
  let batchRows = 0;
  let batchEntries = 0;
  let batchBytes = 0;
  let lastFlush = Date.now();
  let lastRow: Row | undefined;

  const cancelled = (): boolean => Atomics.load(control, CANCEL) !== 0;
  /**
   * Set while a walk meant for find runs in the JS walker first (FIND_AFTER_ENTRIES). Not when
   * sizing directories: one entry's size is a whole subtree, which the count does not see.
   */
  let trying = input.find && FIND_AFTER_ENTRIES > 0 && !input.req.dirSizes;
  /** The trial saw more than it may: its listing stops as on a cancel, and find starts. */
  const tooBig = (): boolean => trying && seen > FIND_AFTER_ENTRIES;

  /** Waits for a credit: the consumer has not taken enough of what was sent. */
  function credit(): void {
    for (;;) {
      if (cancelled()) throw new WalkCancelled('walk cancelled');
      const credits = Atomics.load(control, CREDITS);
      if (credits > 0) break;
      Atomics.wait(control, CREDITS, credits, 1000);
    }
    Atomics.sub(control, CREDITS, 1);
  }

  function flush(): void {
    if (batchRows === 0) return;
    credit();
    Atomics.store(control, SEEN, seen);
    const last = lastRowOf(lastRow as Row);
    if (encoder) {
      const buf = encoder.takeArrayBuffer();
      port?.postMessage({ t: 'wire', buf, entries: batchEntries, last } satisfies WorkerMessage, [buf]);
    } else {
      post({ t: 'rows', rows: batch, entries: batchEntries, last });
      batch = [];
    }
    batchRows = 0;
    batchEntries = 0;
    batchBytes = 0;
    lastFlush = Date.now();
  }

  function onEntry(): void {
    seen++;
    // A slow directory still streams what is already decided.
    if ((seen & 255) === 0) {
      Atomics.store(control, SEEN, seen);
      if (batchRows > 0 && Date.now() - lastFlush >= input.flushMs) flush();
    }
  }

  function add(row: Row): void {
    batchRows++;
    tally.row(row);
    lastRow = row;
    if (row.kind === 'entry') batchEntries++;
    if (encoder) {
      encoder.addRow(row);
      batchBytes = encoder.length;
    } else {
      const p = rowToPlain(row);
      batch.push(p);
      batchBytes += plainRowBytes(p);
    }
  }

  const newSource = () =>
    createFsSource(input.req.path, {
      followSymlinks: input.req.followSymlinks,
      allowedRoots: input.allowedRoots,
      isCancelled: () => tooBig() || cancelled(),
      onEntry,
      probe: new CallProbe(input.probe),
      skip: input.skip,
    });
  let source = newSource();
  /** A helper's rows, spliced in after everything sent so far (walk-split.ts). */
  function sink(buf: ArrayBuffer, entries: number, last: LastRow): void {
    flush();
    credit();
    port?.postMessage({ t: 'wire', buf, entries, last } satisfies WorkerMessage, [buf]);
    lastFlush = Date.now();
  }

  const startedAt = Date.now();
  const split =
    input.split && encoder
      ? new ThreadSplitter(
          input.split.port,
          input.split.shared,
          // The root's lstat is held by the source: no system call.
          () => source.root().dev,
          startedAt,
          sink,
          cancelled,
          input.split.timeoutMs,
          (r) => {
            seen += r.seen;
            tally.entries += r.sent;
            for (const [code, n] of Object.entries(r.errors))
              tally.errors[code as EntryErrorCode] = (tally.errors[code as EntryErrorCode] ?? 0) + (n ?? 0);
          },
        )
      : undefined;
  /**
   * The walk in the JS walker with its rows held, while it stays within FIND_AFTER_ENTRIES
   * (a ranked walk sends its rows at its end anyway); undefined once it saw more.
   */
  function smallWalk(): { rows: Row[]; summary: WalkSummary } | undefined {
    const rows: Row[] = [];
    const gen = walk(input.req, source, () => Date.now());
    try {
      for (;;) {
        const r = gen.next();
        if (r.done) return { rows, summary: r.value };
        rows.push(r.value);
      }
    } catch (err) {
      if (!tooBig() || cancelled() || !(err instanceof WalkCancelled)) throw err;
      // A big tree: find lists it from the start, with a source of its own.
      seen = 0;
      source.close();
      source = newSource();
      return undefined;
    } finally {
      trying = false;
    }
  }

  try {
    const small = trying ? smallWalk() : undefined;
    const loaded =
      input.find && !small ? await loadFindWalk(input.req, { fs: source, isCancelled: cancelled }) : undefined;
    const found = loaded && 'source' in loaded ? loaded : undefined;
    const gen = small
      ? held(small.rows, small.summary)
      : walk(input.req, found?.source ?? source, found?.now ?? (() => Date.now()), found ? undefined : split);
    for (;;) {
      const r = gen.next();
      if (r.done) {
        found?.finish(r.value);
        flush();
        tally.summary(r.value);
        const route = found ? 'find' : 'js';
        const fallback = loaded && 'fallback' in loaded ? { fallback: loaded.fallback } : {};
        post({
          t: 'done',
          summary: summaryToPlain(r.value),
          seen: found ? r.value.entriesSeen : seen,
          counts: tally,
          route,
          ...fallback,
          ...(split ? { split: { given: split.given, spliced: split.spliced } } : {}),
        });
        return;
      }
      add(r.value);
      if (batchRows >= input.batchRows || batchBytes >= input.batchBytes || Date.now() - lastFlush >= input.flushMs) {
        flush();
      }
      if (cancelled()) throw new WalkCancelled('walk cancelled');
    }
  } catch (err) {
    if (err instanceof WalkCancelled || cancelled()) {
      post({ t: 'cancelled', seen });
      return;
    }
    post({ t: 'error', message: err instanceof Error ? err.message : String(err), seen });
  } finally {
    split?.quit();
    input.split?.port.close();
    // The walk's directory descriptors (a worker runs many walks).
    source.close();
  }
}

/** A walk already done, replayed. */
function* held(rows: Row[], summary: WalkSummary): Generator<Row, WalkSummary, void> {
  yield* rows;
  return summary;
}

port.on('message', (input: WorkerInput | HelperInput) => {
  if ('role' in input) {
    try {
      runHelper(input);
    } finally {
      input.port.close();
      port?.postMessage({ t: 'helper-done' });
    }
    return;
  }
  void runWalk(input);
});
