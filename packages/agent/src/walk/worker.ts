// The walk, run in a worker thread so the agent's event loop never blocks on the file
// system. Rows leave in batches (count, bytes, or time); the main thread grants credits
// for batches it has consumed, and the worker sleeps (Atomics.wait) when it has none.
// A cancel flag in the same shared buffer stops the walk within one directory entry.
// The worker is kept in a pool: it runs one walk per message, one at a time.
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { WalkSummary } from '@fleetls/core';
import { walk } from '@fleetls/core';
import { loadFindWalk } from '../find/find-source.js';
import { FIND_AFTER_ENTRIES } from '../find/route.js';
import { type HeldWalk, held, smallWalk } from '../find/small-walk.js';
import { createFsSource } from '../fs/source.js';
import { CallProbe } from './call-probe.js';
import { WalkCancelled } from './cancelled.js';
import { packedTreeServes, walkPackedTree } from './packed-tree.js';
import { RowBatches } from './row-batches.js';
import { type HelperInput, runHelper } from './split/helper.js';
import { PACKED_FRAMES } from './split/packed-split.js';
import { PortShare, type RankedHelperInput, runRankedHelper } from './split/ranked-share.js';
import { PieceChannel } from './split/shared.js';
import { CORE_FRAMES, ThreadSplitter } from './split/split.js';
import { type HelperAsk, summaryToPlain, type WorkerInput, type WorkerMessage } from './transit.js';

const port = parentPort;
if (!port) throw new Error('walk-worker must run in a worker thread');

async function runWalk(input: WorkerInput, to: MessagePort): Promise<void> {
  const out = new RowBatches(to, input);
  const { cancelled } = out;
  /**
   * Set while a walk meant for find runs in the JS walker first (find/small-walk.ts). Not when
   * sizing directories: one entry's size is a whole subtree, which the count does not see.
   */
  let trying = input.find && FIND_AFTER_ENTRIES > 0 && !input.req.dirSizes;
  /** The trial saw more than it may: its listing stops as on a cancel, and find starts. */
  const tooBig = (): boolean => trying && out.seen > FIND_AFTER_ENTRIES;
  const newSource = () =>
    createFsSource(input.req.path, {
      followSymlinks: input.req.followSymlinks,
      allowedRoots: input.allowedRoots,
      isCancelled: () => tooBig() || cancelled(),
      onEntry: out.onEntry,
      probe: new CallProbe(input.probe),
      skip: input.skip,
      pseudo: input.pseudo,
    });
  let source = newSource();
  // The root's lstat is held by the source: no system call.
  const packedTree = input.find !== true && packedTreeServes(input.req);
  const rootDev = () => source.root().dev;
  const helper = helperOf(input, out);
  const split =
    helper && !packedTree
      ? new ThreadSplitter(CORE_FRAMES, new PieceChannel(...helper), rootDev, Date.now(), out.sink, out.helperCounts)
      : undefined;
  const packedSplit =
    helper && packedTree
      ? new ThreadSplitter(PACKED_FRAMES, new PieceChannel(...helper), rootDev, Date.now(), out.sink, out.helperCounts)
      : undefined;
  const share =
    input.ranked === undefined
      ? undefined
      : new PortShare(
          (helperPort, shared) =>
            to.postMessage({ t: 'ranked-helper', shared, port: helperPort } satisfies HelperAsk, [helperPort]),
          () => source.root().dev,
          Date.now(),
          cancelled,
        );

  try {
    let small: HeldWalk | undefined;
    if (trying) {
      try {
        small = smallWalk(input.req, source, tooBig, cancelled);
      } finally {
        trying = false;
      }
      if (!small) {
        // A big tree: find lists it from the start, with a source of its own.
        out.seen = 0;
        source.close();
        source = newSource();
      }
    }
    const loaded =
      input.find && !small ? await loadFindWalk(input.req, { fs: source, isCancelled: cancelled }) : undefined;
    // A tree walk the packed records serve (walk/packed-tree.ts): no object per entry.
    const packed =
      !small && loaded === undefined && packedTree
        ? walkPackedTree(input.req, source, out, () => Date.now(), packedSplit)
        : undefined;
    if (packed !== undefined) {
      out.tally.summary(packed);
      out.finish(doneMessage(packed, out, undefined, packedSplit, undefined));
      return;
    }
    const found = loaded && 'source' in loaded ? loaded : undefined;
    const gen = small
      ? held(small)
      : walk(
          input.req,
          found?.source ?? source,
          found?.now ?? (() => Date.now()),
          found ? undefined : split,
          found ? undefined : share,
        );
    for (;;) {
      const r = gen.next();
      if (r.done) {
        found?.finish(r.value);
        out.tally.summary(r.value);
        out.finish(doneMessage(r.value, out, loaded, split, share));
        return;
      }
      out.add(r.value);
      if (cancelled()) throw new WalkCancelled('walk cancelled');
    }
  } catch (err) {
    if (err instanceof WalkCancelled || cancelled()) {
      out.post({ t: 'cancelled', seen: out.seen });
      return;
    }
    out.post({ t: 'error', message: err instanceof Error ? err.message : String(err), seen: out.seen });
  } finally {
    split?.quit();
    packedSplit?.quit();
    input.split?.port.close();
    share?.close();
    // The walk's directory descriptors (a worker runs many walks).
    source.close();
    out.release();
  }
}

/**
 * What the walk's end of its helper thread is made of (split/shared.ts's PieceChannel), when
 * the walk was given one (wire mode only): either tree walk splits with it (split/split.ts),
 * given its frames: core's, or packed records' (split/packed-split.ts).
 */
function helperOf(
  input: WorkerInput,
  out: RowBatches,
): [port: MessagePort, shared: SharedArrayBuffer, cancelled: () => boolean, timeoutMs: number] | undefined {
  if (!input.split || !out.encoder) return undefined;
  const { port, shared, timeoutMs } = input.split;
  return [port, shared, out.cancelled, timeoutMs];
}

/** The walk's last message: its summary, what it counted, and which source listed it. */
function doneMessage(
  summary: WalkSummary,
  out: RowBatches,
  loaded: Awaited<ReturnType<typeof loadFindWalk>> | undefined,
  split: { given: number; spliced: number } | undefined,
  share: PortShare | undefined,
): Extract<WorkerMessage, { t: 'done' }> {
  const found = loaded && 'source' in loaded;
  const fallback = loaded && 'fallback' in loaded ? { fallback: loaded.fallback } : {};
  return {
    t: 'done',
    summary: summaryToPlain(summary),
    seen: found ? summary.entriesSeen : out.seen,
    counts: out.tally,
    route: found ? 'find' : 'js',
    ...fallback,
    ...(split ? { split: { given: split.given, spliced: split.spliced } } : {}),
    // A shared ranked walk: the directories handed out, and how many of them the helper walked.
    ...(share && !found && share.given > 0 ? { split: { given: share.given, spliced: share.helperTook } } : {}),
  };
}

port.on('message', (input: WorkerInput | HelperInput | RankedHelperInput) => {
  if ('role' in input) {
    try {
      if (input.role === 'ranked-helper') runRankedHelper(input);
      else runHelper(input);
    } finally {
      input.port.close();
      port.postMessage({ t: 'helper-done' });
    }
    return;
  }
  void runWalk(input, port);
});
