// The tree shape: depth-first, each directory's children in the requested order. A
// directory keeps at most `maxItemsPerDir` children (memory O(cap), not O(entries)) and
// reports how many it hid; the requested path is exempt unless `capRoot`.
// A walk with `after` resumes there (walk-resume.ts), reading no directory wholly before it.
//
// The walk is one loop over a stack of open directories, not a generator per level: every
// row is yielded once, not handed up through each ancestor's generator.
import { compareNames, nameKey } from './order.js';
import type { Entry, EntryError, Row } from './types.js';
import { pathParts, type ResumeMode, resumeIndex } from './walk-resume.js';
import { type Ancestors, errorRow, type Pending, type WalkState } from './walk-state.js';

/** A directory being listed: its kept children in order, and the next one to visit. */
interface Frame {
  dir: Buffer;
  depth: number;
  chain: Ancestors | undefined;
  kept: Pending[];
  next: number;
  total: number;
  cap: number;
  /** The child that is `after`'s component here (resume path), or -1. */
  resumeAt: number;
}

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

export function* walkTree(state: WalkState, rootEntry: Entry, rootChain: Ancestors | undefined): Generator<Row, void> {
  const { req, summary, filter } = state;
  const after = req.after !== undefined && req.after.length > 0 ? pathParts(req.after) : undefined;
  const afterRow = req.afterRow ?? 'entry';
  // By name, siblings compare as the entry order compares them (their paths differ only in
  // the name), without an Entry each; other orders rank full entries.
  const sign = req.direction === 'descending' ? -1 : 1;
  const byName = req.order === 'name';
  const compare = byName
    ? (a: Pending, b: Pending) =>
        sign *
          ((a.key as string) < (b.key as string)
            ? -1
            : (a.key as string) > (b.key as string)
              ? 1
              : compareNames(a.raw.name, b.raw.name)) ||
        Number(a.raw.error !== undefined) - Number(b.raw.error !== undefined)
    : (a: Pending, b: Pending) => state.compare(a.entry as Entry, b.entry as Entry);
  const stack: Frame[] = [];
  /** A row to yield before going on (an error row of a directory, or after an entry). */
  let pending: Row | undefined;

  function entryRow(entry: Entry): Row {
    summary.entriesSent++;
    return { kind: 'entry', entry };
  }

  /** The error row that follows an entry (a symlink loop), unless max_entries is reached. */
  function errorAfter(entry: Entry, error: EntryError, dir: Buffer): void {
    if (summary.entriesSent >= req.maxEntries) {
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
    const room = mode === 'path' ? Number.POSITIVE_INFINITY : req.maxEntries - summary.entriesSent;
    const keep = keepBest(Math.min(cap, room), compare);
    let total = 0;
    const error = state.readDir(dir, depth, !byName, (p) => {
      total++;
      if (byName) p.key = nameKey(p.raw.name);
      keep.push(p);
    });
    if (error) {
      // In skip-error mode this row was shown. On the resume path the directory was read for
      // the earlier rows and cannot be now: its error row comes here, after them.
      if (mode === 'skip-error') return;
      if (summary.entriesSent >= req.maxEntries) {
        state.stop('max_entries', dir);
        return;
      }
      pending = entryRow(errorRow(dirEntry, error));
      return;
    }
    if (state.stopped) return;
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
    stack.push({ dir, depth, chain, kept, next: resume.at, total, cap, resumeAt: resume.found ? resume.at : -1 });
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
    if (f.kept.length < Math.min(f.total, f.cap)) {
      // What was left of max_entries kept fewer children than the cap: the rest are lost.
      state.stop('max_entries', f.dir);
    } else if (f.total > f.cap) {
      return {
        kind: 'truncation',
        truncation: { dir: f.dir, shown: f.kept.length, total: f.total, reason: 'items_per_dir' },
      };
    }
    return undefined;
  }

  if (after === undefined && req.after !== undefined && afterRow !== 'entry') {
    // Resuming after a row of the root itself: its error row, or its [WARNING] (the last row).
    if (afterRow !== 'error') return;
    open(rootEntry, 1, rootChain, 'skip-error');
  } else open(rootEntry, 1, rootChain, after ? 'path' : undefined);

  for (;;) {
    if (pending !== undefined) {
      const row = pending;
      pending = undefined;
      yield row;
    }
    if (state.stopped || stack.length === 0) return;
    const f = stack[stack.length - 1];
    if (f.next >= f.kept.length) {
      stack.pop();
      pending = close(f);
      continue;
    }
    const i = f.next++;
    const p = f.kept[i];
    if (i === f.resumeAt) {
      resumeChild(p, f.depth, f.chain);
      continue;
    }
    if (summary.entriesSent >= req.maxEntries) {
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
