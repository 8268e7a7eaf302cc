// The ranked shape: one list over the whole walk, keeping the best offset + topN with a
// bounded heap (memory O(offset + topN), not O(entries)); offset + topN itself is bounded
// (MAX_RANKED_HELD). Children not kept are dropped as they are offered: nothing is held
// per directory entry beyond the heap.
// A ranked walk may be shared with a helper thread (RankedShare): the directories below the
// root (read breadth first until there are enough) are handed out one at a time to whichever
// thread asks first, each keeps a heap of its own,
// and the helper's kept entries are offered to the walk's heap at the end. Only the ranks
// are merged, never rows in order, so the answer is the one a single thread gives.

import type { Entry, RankCut, RawEntry, Row, Truncation, WalkRequest } from '../domain/types.js';
import { assertRankedHold } from '../limits/limits.js';
import { TopN } from '../order/top-n.js';
import { type Ancestors, errorRow, type Pending, type WalkState } from './state.js';

/**
 * What the source may drop unseen (RankCut): only when no filter but the types reads an entry
 * (an exclude, a hidden name, an include glob, a find filter would each need the entry itself).
 */
function rankCut(req: WalkRequest): RankCut | undefined {
  if (req.order === 'name' || req.excludeHidden || req.exclude.length > 0 || req.include.length > 0) return undefined;
  if (req.filter !== undefined) return undefined;
  return {
    order: req.order,
    sign: req.direction === 'descending' ? -1 : 1,
    worst: undefined,
    types: req.types.length > 0 ? new Set(req.types) : undefined,
    droppedMatched: 0,
    droppedUnmatched: 0,
  };
}

/** A directory waiting to be read, and what its own row is if it cannot be. */
interface RankedDir {
  dir: Buffer;
  depth: number;
  chain: Ancestors | undefined;
  raw: RawEntry;
  entry: Entry;
}

/** What a helper thread gives back of its share of a ranked walk (rankShare). */
export interface RankedPart {
  /** Its kept entries (materialized), best first. */
  entries: Entry[];
  seen: number;
  matched: number;
  depthLimited: number;
  /** Where it stopped (the deadline), if it did. */
  stopped?: { reason: Truncation['reason']; dir: Buffer };
}

/** How a ranked walk shares the root's subdirectories with a helper thread. */
export interface RankedShare {
  /** The root's subdirectories the walk descends into, indexed as claim() counts: handed to the helper. */
  start(dirs: readonly Entry[]): void;
  /** The next subdirectory this thread walks, undefined once every one is taken. */
  claim(): number | undefined;
  /** The helper's part once it has walked what it claimed (empty if it claimed nothing). */
  finish(): RankedPart;
}

/** A walk's heap and how entries are offered to it, with the cut its source may drop by. */
function rankedKeeper(state: WalkState) {
  const { req, summary, filter } = state;
  // Checked where the request was resolved too; asserted here, where the heap is made, for
  // every caller (the embedded backend's requests come resolved by the gateway's tools).
  assertRankedHold(req.topN, req.offset);
  const keep = new TopN<Pending>(req.offset + req.topN, (a, b) => state.compare(a.entry as Entry, b.entry as Entry));
  const cut = rankCut(req);
  const offer = (p: Pending): void => {
    if (!filter.accepts(state.entryOf(p))) return;
    summary.entriesMatched++;
    keep.push(p);
    if (cut !== undefined) cut.worst = keep.worst()?.entry;
  };
  return { keep, cut, offer };
}

/** Reads one directory into the keeper; the subdirectories to descend into go to `into`. */
function rankDir(
  state: WalkState,
  keeper: ReturnType<typeof rankedKeeper>,
  top: RankedDir,
  into: (d: RankedDir) => void,
): void {
  const { req } = state;
  const { offer, cut } = keeper;
  const { dir, depth, chain, raw, entry: dirEntry } = top;
  const error = state.readDir(
    dir,
    depth,
    true,
    req.offset + req.topN,
    (p) => {
      offer(p);
      const entry = p.entry as Entry;
      const d = state.descent(entry, p.raw.dev, chain);
      if (d.go) into({ dir: entry.path, depth: depth + 1, chain: d.chain, raw: p.raw, entry });
      else if (d.error) offer({ raw: p.raw, dir, depth, entry: errorRow(entry, d.error) });
    },
    cut,
  );
  if (error) offer({ raw, dir, depth: dirEntry.depth, entry: errorRow(dirEntry, error) });
}

/** Reads directories depth first off `stack` into the keeper until it is empty and `next` gives no more. */
function rankDirs(
  state: WalkState,
  keeper: ReturnType<typeof rankedKeeper>,
  stack: RankedDir[],
  next: () => RankedDir | undefined,
): void {
  const push = (d: RankedDir) => stack.push(d);
  while (!state.stopped) {
    const top = stack.pop() ?? next();
    if (top === undefined) return;
    if (state.outOfTime()) {
      state.stop('deadline', top.dir);
      return;
    }
    rankDir(state, keeper, top, push);
  }
}

/**
 * A shared walk's directories to hand out: read breadth first from the root until this many
 * wait (or none), so that whichever thread is free takes the next one, and a tree whose root
 * holds one big directory is still shared. Many, so that each is a small part of the walk:
 * with 64 the two threads of a 300k-tree walk took 740-890 and 100-180 ms of CPU, with 1024
 * 470-650 and 350-440 ms (per-thread /proc, load 8); reading them first costs a few hundred
 * directories of the walk's own, and holding them 1024 small objects.
 */
const SHARED_DIRS = 1024;

/** A kept entry of another thread as a Pending of this walk's heap (already materialized: never filled again). */
function pendingOf(entry: Entry): Pending {
  const raw: RawEntry = { ...entry, name: entry.path, dev: 0 };
  return { raw, dir: entry.path, depth: entry.depth, entry };
}

/** A ranked directory of the root's, as its Entry: the helper's share starts there. */
function rankedDirOf(entry: Entry): RankedDir {
  return { dir: entry.path, depth: entry.depth + 1, chain: undefined, raw: pendingOf(entry).raw, entry };
}

export function* walkRanked(
  state: WalkState,
  rootRaw: RawEntry,
  rootEntry: Entry,
  rootChain: Ancestors | undefined,
  share?: RankedShare,
): Generator<Row, void> {
  const { req, summary } = state;
  const keeper = rankedKeeper(state);
  const { keep } = keeper;
  const stack: RankedDir[] = [{ dir: rootEntry.path, depth: 1, chain: rootChain, raw: rootRaw, entry: rootEntry }];
  if (share === undefined) rankDirs(state, keeper, stack, () => undefined);
  else {
    const queue = stack;
    let at = 0;
    const push = (d: RankedDir) => queue.push(d);
    while (at < queue.length && queue.length - at < SHARED_DIRS && !state.stopped) {
      const top = queue[at++];
      if (state.outOfTime()) state.stop('deadline', top.dir);
      else rankDir(state, keeper, top, push);
    }
    const held = state.stopped ? [] : queue.slice(at);
    share.start(held.map((h) => h.entry));
    rankDirs(state, keeper, [], () => {
      const i = share.claim();
      return i === undefined ? undefined : held[i];
    });
    const part = share.finish();
    summary.entriesSeen += part.seen;
    summary.entriesMatched += part.matched;
    summary.depthLimitedDirs += part.depthLimited;
    for (const e of part.entries) keep.push(pendingOf(e));
    if (part.stopped) state.stop(part.stopped.reason, part.stopped.dir);
  }
  const ranked = keep.sorted().slice(req.offset);
  for (const p of ranked) {
    summary.entriesSent++;
    yield { kind: 'entry', entry: state.materialize(p) };
  }
  if (summary.entriesMatched > req.offset + req.topN) {
    summary.truncations.push({
      dir: Buffer.alloc(0),
      shown: ranked.length,
      total: summary.entriesMatched,
      reason: 'top_n',
    });
  }
}

/**
 * A helper thread's share of a ranked walk: the root's subdirectories `dirs` (as the walk
 * handed them out) that `claim` gives it, walked into a heap of its own; its kept entries,
 * materialized, and what it counted.
 */
export function rankShare(state: WalkState, dirs: readonly Entry[], claim: () => number | undefined): RankedPart {
  const keeper = rankedKeeper(state);
  rankDirs(state, keeper, [], () => {
    const i = claim();
    return i === undefined ? undefined : rankedDirOf(dirs[i]);
  });
  const { summary } = state;
  const part: RankedPart = {
    entries: keeper.keep.sorted().map((p) => state.materialize(p)),
    seen: summary.entriesSeen,
    matched: summary.entriesMatched,
    depthLimited: summary.depthLimitedDirs,
  };
  const t = summary.truncations[0];
  if (state.stopped && t !== undefined) part.stopped = { reason: t.reason, dir: t.dir };
  return part;
}
