// The owner's side of a split tree walk (walk-split.ts): whether a walk gets a helper thread,
// and starting and stopping that thread (walk/split/helper.ts) on a worker of the walk's pool.
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { WalkRequest } from '@fleetls/core';
import type { WalkPool } from '../pool.js';
import type { WorkerInput } from '../transit.js';
import type { HelperInput } from './helper.js';
import { fromWalk, SPLIT } from './shared.js';

/** A tree walk allowed this many rows is worth a second thread (a small listing is not). */
export const SPLIT_MIN_ENTRIES = 10_000;
const SPLIT_BY_DEFAULT = false;

/**
 * Should this walk's first part get a helper thread? `split`: the caller's choice, if it made
 * one. `packed`: the walk is over packed records (walk/packed-tree.ts), where it pays.
 */
export function splits(
  req: WalkRequest,
  split: boolean | undefined,
  pool: WalkPool,
  mode: 'rows' | 'wire',
  packed = false,
): boolean {
  if (mode !== 'wire' || req.shape !== 'tree' || req.dirSizes || req.after !== undefined) return false;
  if (split !== undefined) return split;
  // The helper takes a core no other walk of this agent is using: with walks running side by
  // side (a burst of calls), each already has one, and a second thread each only adds memory.
  // Off by default: measured through the agent's gRPC stream (bench walk, load 3) the split
  // walk gave 0.51x find where one thread gave 0.48x, and raised a tree walk's peak RSS to
  // 378-479 MiB (the helper's heap and held pieces); opt in with `split: true` (tests do).
  // Over packed records a walk's main thread only forwards ready bytes, and each of the two
  // walking threads costs about what find does per entry (walk.why.md): on by default there,
  // where a piece can hold a subtree (a listing one level deep is one directory, read whole
  // before a piece could be given: the helper would be ~45 MiB of thread for nothing).
  return (
    (SPLIT_BY_DEFAULT || (packed && req.maxDepth > 1)) &&
    req.maxEntries >= SPLIT_MIN_ENTRIES &&
    pool.walking === 1 &&
    availableParallelism() >= 2
  );
}

/** A walk's helper thread: the walk worker's end of their port, and how to end the helper's loop. */
export interface SplitHelper {
  port: MessagePort;
  /** Ends the helper's loop; a helper that does not come back (a hung call) is abandoned. */
  stop(): void;
}

/**
 * A helper thread on a worker of `pool`, started with the message `inputOf` makes of the
 * counters it shares and its end of the port. stop() sets the counter `quit`, wakes a wait on
 * `wake`, and gives up on a helper still in a call `timeoutMs` later (its worker not reused).
 */
export function launchHelper<Input>(
  pool: WalkPool,
  counters: HelperCounters,
  timeoutMs: number,
  inputOf: (shared: SharedArrayBuffer, port: MessagePort) => Input,
  lean = false,
): { port: MessagePort; shared: SharedArrayBuffer; stop(): void } {
  const { port1, port2 } = new MessageChannel();
  const shared = new SharedArrayBuffer(counters.slots * 4);
  const stop = helperOn(pool, counters, timeoutMs, shared, port2, inputOf(shared, port2), lean);
  return { port: port1, shared, stop };
}

/** The slots of a helper's control buffer that stop() writes: how many, the quit flag, the wait it wakes. */
export interface HelperCounters {
  slots: number;
  quit: number;
  wake: number;
}

/**
 * Runs `input` on a helper worker of `pool`, its end of the port `port` (transferred) and its
 * control buffer `shared` made by the caller (launchHelper, or a ranked walk's worker once it
 * has directories to hand out); the returned function stops it as launchHelper's stop() does.
 */
export function helperOn<Input>(
  pool: WalkPool,
  counters: HelperCounters,
  timeoutMs: number,
  shared: SharedArrayBuffer,
  port: MessagePort,
  input: Input,
  lean = false,
): () => void {
  const helper = pool.acquire({ lean });
  const sc = new Int32Array(shared);
  let gone = false;
  const off = () => {
    gone = true;
    helper.off('message', onMessage);
    helper.off('exit', off);
  };
  function onMessage(m: { t?: string }): void {
    if (m?.t !== 'helper-done') return;
    off();
    pool.release(helper);
  }
  helper.on('message', onMessage);
  helper.once('exit', off);
  helper.postMessage(input, [port]);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    Atomics.store(sc, counters.quit, 1);
    Atomics.notify(sc, counters.wake);
    const timer = setTimeout(() => {
      if (gone) return;
      off();
      pool.abandon(helper);
    }, timeoutMs);
    timer.unref();
  };
}

/** Starts the helper thread of the walk `input` starts (and sets its `split`), on a worker of `pool`. */
export function startSplitHelper(pool: WalkPool, input: WorkerInput, timeoutMs: number): SplitHelper {
  const helper = launchHelper(
    pool,
    { slots: SPLIT.SLOTS, quit: SPLIT.QUIT, wake: SPLIT.WORK },
    timeoutMs,
    (shared, port): HelperInput => ({ role: 'helper', ...fromWalk(input), split: shared, port }),
    // Pieces of a tree walk hold a few MiB of rows at most: a small young generation does.
    true,
  );
  input.split = { port: helper.port, shared: helper.shared, timeoutMs };
  return { port: helper.port, stop: helper.stop };
}
