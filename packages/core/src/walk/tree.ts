// The tree shape: depth-first, each directory's children in the requested order. A
// directory keeps at most `maxItemsPerDir` children (memory O(cap), not O(entries)) and
// reports how many it hid; the requested path is exempt unless `capRoot`.
// A walk with `after` resumes there (walk/resume.ts), reading no directory wholly before it.
//
// The walk is one loop over a stack of open directories, not a generator per level: every
// row is yielded once, not handed up through each ancestor's generator. The same loop runs
// a piece of a tree for a helper thread (walkPiece, walk-split.ts): a range of one
// directory's kept children with their subtrees, spliced back into the walk in order.

import type { Entry, EntryError, Row } from '../domain/types.js';
import { compareNames, nameKey } from '../order/order.js';
import { pathParts, type ResumeMode, resumeIndex } from './resume.js';
import { type Frame, type PieceRest, splitStep, type TreeSplitter } from './split.js';
import { type Ancestors, errorRow, type Pending, type WalkState } from './state.js';

/**
 * The best `limit` children of one directory, in order: gathered unsorted and cut back to
 * `limit` whenever twice that many are held, so a directory under its cap is sorted once.
 */
function keepBest(limit: number, compare: (a: Pending, b: Pending) => number) {
  let items: Pending[] = [];
  return {
    push(p: Pending): void {
      if (limit <= 0) return;
      items.push(p);
      if (items.length >= 2 * limit) {
        items.sort(compare);
        items.length = limit;
      }
    },
    sorted(): Pending[] {
      items.sort(compare);
      if (items.length > limit) items.length = Math.max(0, limit);
      const out = items;
      items = [];
      return out;
    },
  };
}

/** The siblings' order of a tree walk (by name: keys, without an Entry each). */
export function treeCompare(state: WalkState): (a: Pending, b: Pending) => number {
  const sign = state.req.direction === 'descending' ? -1 : 1;
  return state.req.order === 'name'
    ? (a: Pending, b: Pending) =>
        sign *
          ((a.key as string) < (b.key as string)
            ? -1
            : (a.key as string) > (b.key as string)
              ? 1
              : compareNames(a.raw.name, b.raw.name)) ||
        Number(a.raw.error !== undefined) - Number(b.raw.error !== undefined)
    : (a: Pending, b: Pending) => state.compare(a.entry as Entry, b.entry as Entry);
}

/** The loop and its steps over one WalkState: a whole walk, or a piece of one. */
// Over 80 lines: the per-entry loop of every walk; its steps share the loop's locals, and a split is kept out until a same-turn walk A/B shows it costs nothing.
function treeWalker(state: WalkState) {
  const { req, summary, filter } = state;
  const after = req.after !== undefined && req.after.length > 0 ? pathParts(req.after) : undefined;
  const afterRow = req.afterRow ?? 'entry';
  const byName = req.order === 'name';
  const compare = treeCompare(state);
  const stack: Frame[] = [];
  /** A row to yield before going on (an error row of a directory, or after an entry). */
  let pending: Row | undefined;

  function entryRow(entry: Entry): Row {
    summary.entriesSent++;
    return { kind: 'entry', entry };
  }

  /** Has max_entries been reached? Notes what a piece's walk needed (walk-split.ts). */
  function full(): boolean {
    state.needs(summary.entriesSent + 1);
    return summary.entriesSent >= req.maxEntries;
  }

  /** The error row that follows an entry (a symlink loop), unless max_entries is reached. */
  function errorAfter(entry: Entry, error: EntryError, dir: Buffer): void {
    if (full()) {
      state.stop('max_entries', dir);
      return;
    }
    pending = entryRow(errorRow(entry, error));
  }

  /** Reads a directory and pushes its frame; an unreadable one leaves its error row in `pending`. */
  function open(dirEntry: Entry, depth: number, chain: Ancestors | undefined, mode?: ResumeMode): void {
    const dir = dirEntry.path;
    if (state.outOfTime()) {
      state.stop('deadline', dir);
      return;
    }
    const cap = depth === 1 && !req.capRoot ? Number.POSITIVE_INFINITY : req.maxItemsPerDir;
    // On the resume path the directory keeps what an uncut walk keeps (cap only), then skips.
    // Under a row filter too: children it refuses send no row, so the first `room` of them
    // need not hold the rows that max_entries leaves room for (a walk kept 5 children for
    // top_n=5, and a type=file filter left 4 rows, or none, and a stop at max_entries).
    const sentAtOpen = summary.entriesSent;
    const room = mode === 'path' || filter.refuses ? Number.POSITIVE_INFINITY : req.maxEntries - sentAtOpen;
    const limit = Math.min(cap, room);
    const keep = keepBest(limit, compare);
    let total = 0;
    const error = state.readDir(dir, depth, !byName, limit, (p) => {
      total++;
      if (byName) p.key = nameKey(p.raw.name);
      keep.push(p);
    });
    if (error) {
      // In skip-error mode this row was shown. On the resume path the directory was read for
      // the earlier rows and cannot be now: its error row comes here, after them.
      if (mode === 'skip-error') return;
      if (full()) {
        state.stop('max_entries', dir);
        return;
      }
      pending = entryRow(errorRow(dirEntry, error));
      return;
    }
    if (state.stopped) return;
    state.needs(sentAtOpen + Math.min(cap, total));
    const kept = keep.sorted();
    const resume =
      mode === 'path'
        ? resumeIndex(
            kept.map((p) => p.raw.name),
            (after as Buffer[])[depth - 1],
            req.order,
            req.direction,
          )
        : { at: 0, found: false };
    stack.push({
      dir,
      depth,
      chain,
      kept,
      off: 0,
      len: kept.length,
      next: resume.at,
      total,
      cap,
      resumeAt: resume.found ? resume.at : -1,
    });
  }

  /** `after`'s component in a directory on its path: its own rows are skipped, what follows is not. */
  function resumeChild(p: Pending, depth: number, chain: Ancestors | undefined): void {
    const last = depth === (after as Buffer[]).length;
    if (last && afterRow === 'warning') return; // its whole subtree, [WARNING] included, was shown
    const entry = state.materialize(p);
    const d = state.descent(entry, p.raw.dev, chain);
    if (d.go) open(entry, depth + 1, d.chain, !last ? 'path' : afterRow === 'error' ? 'skip-error' : undefined);
    else if (d.error && last && afterRow === 'entry') errorAfter(entry, d.error, p.dir);
    // Shown before without an error (or its children were), it cannot be read now (a mount
    // that stopped answering mid-walk): its error row says so, and the walk goes on after it.
    else if (entry.error && (!last || afterRow === 'entry')) errorAfter(entry, entry.error, p.dir);
  }

  /** A directory whose children are all visited: what its cap hid, or the max_entries stop. */
  function close(f: Frame): Row | undefined {
    if (f.len < Math.min(f.total, f.cap)) {
      // What was left of max_entries kept fewer children than the cap: the rest are lost.
      state.stop('max_entries', f.dir);
    } else if (f.total > f.cap) {
      return {
        kind: 'truncation',
        truncation: { dir: f.dir, shown: f.len, total: f.total, reason: 'items_per_dir' },
      };
    }
    return undefined;
  }

  /** Runs the stack down to `bottom` frames (a piece: until its range is done or `giveBack()`). */
  function* loop(split: TreeSplitter | undefined, bottom: number, giveBack?: () => boolean) {
    for (;;) {
      if (pending !== undefined) {
        const row = pending;
        pending = undefined;
        yield row;
      }
      if (state.stopped || stack.length === bottom) return;
      if (giveBack?.()) return;
      if (split && splitStep(state, stack, split)) continue;
      const f = stack[stack.length - 1];
      if (f.next >= (f.end ?? f.len)) {
        // A piece's first frame is the directory of the walk that gave it: closed there.
        if (f.end !== undefined) return;
        stack.pop();
        pending = close(f);
        continue;
      }
      const i = f.next++;
      const p = f.kept[i - f.off];
      if (i === f.resumeAt) {
        resumeChild(p, f.depth, f.chain);
        continue;
      }
      if (full()) {
        state.stop('max_entries', f.dir);
        return;
      }
      const entry = state.materialize(p);
      if (filter.accepts(entry)) {
        summary.entriesMatched++;
        yield entryRow(entry);
      }
      const d = state.descent(entry, p.raw.dev, f.chain);
      if (d.go) open(entry, f.depth + 1, d.chain);
      else if (d.error) errorAfter(entry, d.error, f.dir);
    }
  }

  return { stack, open, loop, after, afterRow };
}

export function* walkTree(
  state: WalkState,
  rootEntry: Entry,
  rootChain: Ancestors | undefined,
  split?: TreeSplitter,
): Generator<Row, void> {
  const w = treeWalker(state);
  if (w.after === undefined && state.req.after !== undefined && w.afterRow !== 'entry') {
    // Resuming after a row of the root itself: its error row, or its [WARNING] (the last row).
    if (w.afterRow !== 'error') return;
    w.open(rootEntry, 1, rootChain, 'skip-error');
  } else w.open(rootEntry, 1, rootChain, w.after ? 'path' : undefined);
  // A resumed walk is never split: its path frames skip what earlier pages showed.
  yield* w.loop(state.req.after === undefined ? split : undefined, 0);
}

/**
 * A piece of a tree walk (walk-split.ts): `frames[0]` is the range of one directory's kept
 * children the piece covers (its `end` set), the rest its open subdirectories when a piece
 * handed back continues elsewhere. Stops when `giveBack()` says so, at a row boundary, and
 * returns where it stopped; undefined when the range is done.
 */
export function* walkPiece(
  state: WalkState,
  frames: Frame[],
  giveBack: () => boolean,
): Generator<Row, PieceRest | undefined> {
  const w = treeWalker(state);
  for (const f of frames) w.stack.push(f);
  yield* w.loop(undefined, 0, giveBack);
  if (w.stack.length === 0 || state.stopped) return undefined;
  const bottom = w.stack[0];
  if (bottom.next >= (bottom.end ?? bottom.len) && w.stack.length === 1) return undefined;
  return { next: bottom.next, frames: w.stack.slice(1) };
}
