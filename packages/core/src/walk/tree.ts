// The tree shape: depth-first, each directory's children in the requested order. A
// directory keeps at most `maxItemsPerDir` children (memory O(cap), not O(entries)) and
// reports how many it hid; the requested path is exempt unless `capRoot`.
// A walk with `after` resumes there (walk/resume.ts), reading no directory wholly before it.
//
// The walk is one loop over a stack of open directories, not a generator per level: every
// row is yielded once, not handed up through each ancestor's generator. The same loop runs
// a piece of a tree for a helper thread (walkPiece, walk-split.ts): a range of one
// directory's kept children with their subtrees, spliced back into the walk in order.

import type { Entry, EntryError, ResumeRow, Row } from '../domain/types.js';
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

/**
 * The loop and its steps over one WalkState: a whole walk, or a piece of one.
 *
 * A class, not closures made per walk: its loop is then one generator function for every
 * walk. A generator function made per walk gets a map of its own at its first call, in the
 * old generation and pointing back at the function; once the walk ended that dead old map
 * kept the function's context (this walk's state, stack and rows) alive through every
 * scavenge, copied and promoted, until the next full collection (bench/results/
 * structure.why.md, issue 34, session 19). The methods' optimized code also outlives a walk.
 */
// Over 80 lines: the per-entry loop of every walk; its steps share the loop's fields, and a split is kept out until a same-turn walk A/B shows it costs nothing.
class TreeWalker {
  private readonly req: WalkState['req'];
  private readonly summary: WalkState['summary'];
  private readonly filter: WalkState['filter'];
  readonly after: Buffer[] | undefined;
  readonly afterRow: ResumeRow;
  private readonly byName: boolean;
  private readonly compare: (a: Pending, b: Pending) => number;
  readonly stack: Frame[] = [];
  /** A row to yield before going on (an error row of a directory, or after an entry). */
  private pending: Row | undefined = undefined;

  constructor(private readonly state: WalkState) {
    const { req } = state;
    this.req = req;
    this.summary = state.summary;
    this.filter = state.filter;
    this.after = req.after !== undefined && req.after.length > 0 ? pathParts(req.after) : undefined;
    this.afterRow = req.afterRow ?? 'entry';
    this.byName = req.order === 'name';
    this.compare = treeCompare(state);
  }

  private entryRow(entry: Entry): Row {
    this.summary.entriesSent++;
    return { kind: 'entry', entry };
  }

  /** Has max_entries been reached? Notes what a piece's walk needed (walk-split.ts). */
  private full(): boolean {
    this.state.needs(this.summary.entriesSent + 1);
    return this.summary.entriesSent >= this.req.maxEntries;
  }

  /** The error row that follows an entry (a symlink loop), unless max_entries is reached. */
  private errorAfter(entry: Entry, error: EntryError, dir: Buffer): void {
    if (this.full()) {
      this.state.stop('max_entries', dir);
      return;
    }
    this.pending = this.entryRow(errorRow(entry, error));
  }

  /** Reads a directory and pushes its frame; an unreadable one leaves its error row in `pending`. */
  open(dirEntry: Entry, depth: number, chain: Ancestors | undefined, mode?: ResumeMode): void {
    const { state, req, summary, byName } = this;
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
    const room = mode === 'path' || this.filter.refuses ? Number.POSITIVE_INFINITY : req.maxEntries - sentAtOpen;
    const limit = Math.min(cap, room);
    const keep = keepBest(limit, this.compare);
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
      if (this.full()) {
        state.stop('max_entries', dir);
        return;
      }
      this.pending = this.entryRow(errorRow(dirEntry, error));
      return;
    }
    if (state.stopped) return;
    state.needs(sentAtOpen + Math.min(cap, total));
    const kept = keep.sorted();
    const resume =
      mode === 'path'
        ? resumeIndex(
            kept.map((p) => p.raw.name),
            (this.after as Buffer[])[depth - 1],
            req.order,
            req.direction,
          )
        : { at: 0, found: false };
    this.stack.push({
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
  private resumeChild(p: Pending, depth: number, chain: Ancestors | undefined): void {
    const { state, afterRow } = this;
    const last = depth === (this.after as Buffer[]).length;
    if (last && afterRow === 'warning') return; // its whole subtree, [WARNING] included, was shown
    const entry = state.materialize(p);
    const d = state.descent(entry, p.raw.dev, chain);
    if (d.go) this.open(entry, depth + 1, d.chain, !last ? 'path' : afterRow === 'error' ? 'skip-error' : undefined);
    else if (d.error && last && afterRow === 'entry') this.errorAfter(entry, d.error, p.dir);
    // Shown before without an error (or its children were), it cannot be read now (a mount
    // that stopped answering mid-walk): its error row says so, and the walk goes on after it.
    else if (entry.error && (!last || afterRow === 'entry')) this.errorAfter(entry, entry.error, p.dir);
  }

  /** A directory whose children are all visited: what its cap hid, or the max_entries stop. */
  private close(f: Frame): Row | undefined {
    if (f.len < Math.min(f.total, f.cap)) {
      // What was left of max_entries kept fewer children than the cap: the rest are lost.
      this.state.stop('max_entries', f.dir);
    } else if (f.total > f.cap) {
      return {
        kind: 'truncation',
        truncation: { dir: f.dir, shown: f.len, total: f.total, reason: 'items_per_dir' },
      };
    }
    return undefined;
  }

  /** Runs the stack down to `bottom` frames (a piece: until its range is done or `giveBack()`). */
  *loop(split: TreeSplitter | undefined, bottom: number, giveBack?: () => boolean): Generator<Row, void, void> {
    const { state, stack, summary, filter } = this;
    for (;;) {
      if (this.pending !== undefined) {
        const row = this.pending;
        this.pending = undefined;
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
        this.pending = this.close(f);
        continue;
      }
      const i = f.next++;
      const p = f.kept[i - f.off];
      if (i === f.resumeAt) {
        this.resumeChild(p, f.depth, f.chain);
        continue;
      }
      if (this.full()) {
        state.stop('max_entries', f.dir);
        return;
      }
      const entry = state.materialize(p);
      if (filter.accepts(entry)) {
        summary.entriesMatched++;
        yield this.entryRow(entry);
      }
      const d = state.descent(entry, p.raw.dev, f.chain);
      if (d.go) this.open(entry, f.depth + 1, d.chain);
      else if (d.error) this.errorAfter(entry, d.error, f.dir);
    }
  }
}

export function* walkTree(
  state: WalkState,
  rootEntry: Entry,
  rootChain: Ancestors | undefined,
  split?: TreeSplitter,
): Generator<Row, void> {
  const w = new TreeWalker(state);
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
  const w = new TreeWalker(state);
  for (const f of frames) w.stack.push(f);
  yield* w.loop(undefined, 0, giveBack);
  if (w.stack.length === 0 || state.stopped) return undefined;
  const bottom = w.stack[0];
  if (bottom.next >= (bottom.end ?? bottom.len) && w.stack.length === 1) return undefined;
  return { next: bottom.next, frames: w.stack.slice(1) };
}
