// The tree shape: depth-first, each directory's children in the requested order. A
// directory keeps at most `maxItemsPerDir` children (bounded heap: memory O(cap), not
// O(entries)) and reports how many it hid; the requested path is exempt unless `capRoot`.
// A walk with `after` resumes there (walk-resume.ts), reading no directory wholly before it.
import { baseName } from './order.js';
import { TopN } from './top-n.js';
import type { Entry, EntryError, Row } from './types.js';
import { pathParts, type ResumeMode, resumeIndex } from './walk-resume.js';
import { type Ancestors, errorRow, type Pending, type WalkState } from './walk-state.js';

export function* walkTree(state: WalkState, rootEntry: Entry, rootChain: Ancestors | undefined): Generator<Row, void> {
  const { req, summary, filter } = state;
  const after = req.after !== undefined && req.after.length > 0 ? pathParts(req.after) : undefined;
  const afterRow = req.afterRow ?? 'entry';

  /** `after`'s component in a directory on its path: its own rows are skipped, what follows is not. */
  function* resumeChild(p: Pending, depth: number, chain: Ancestors | undefined): Generator<Row, void, void> {
    const last = depth === (after as Buffer[]).length;
    if (last && afterRow === 'warning') return; // its whole subtree, [WARNING] included, was shown
    const entry = state.materialize(p);
    const d = state.descent(entry, p.dev, chain);
    if (d.go)
      yield* listTree(entry, depth + 1, d.chain, !last ? 'path' : afterRow === 'error' ? 'skip-error' : undefined);
    else if (d.error && last && afterRow === 'entry') yield* errorAfter(entry, d.error, dirOf(entry));
    // Shown before without an error (or its children were), it cannot be read now (a mount
    // that stopped answering mid-walk): its error row says so, and the walk goes on after it.
    else if (entry.error && (!last || afterRow === 'entry')) yield* errorAfter(entry, entry.error, dirOf(entry));
  }

  /** The error row that follows an entry (a symlink loop), unless max_entries is reached. */
  function* errorAfter(entry: Entry, error: EntryError, dir: Buffer): Generator<Row, void, void> {
    if (summary.entriesSent >= req.maxEntries) {
      state.stop('max_entries', dir);
      return;
    }
    summary.entriesSent++;
    yield { kind: 'entry', entry: errorRow(entry, error) };
  }

  function* listTree(
    dirEntry: Entry,
    depth: number,
    chain: Ancestors | undefined,
    mode?: ResumeMode,
  ): Generator<Row, void, void> {
    const dir = dirEntry.path;
    if (state.outOfTime()) {
      state.stop('deadline', dir);
      return;
    }
    const cap = depth === 1 && !req.capRoot ? Number.POSITIVE_INFINITY : req.maxItemsPerDir;
    // On the resume path the directory keeps what an uncut walk keeps (cap only), then skips.
    const room = mode === 'path' ? Number.POSITIVE_INFINITY : req.maxEntries - summary.entriesSent;
    const keep = new TopN<Pending>(Math.min(cap, room), (a, b) => state.compare(a.entry, b.entry));
    let total = 0;
    const error = state.readDir(dir, depth, (p) => {
      total++;
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
      summary.entriesSent++;
      yield { kind: 'entry', entry: errorRow(dirEntry, error) };
      return;
    }
    if (state.stopped) return;
    const kept = keep.sorted();
    const resume =
      mode === 'path'
        ? resumeIndex(
            kept.map((p) => baseName(p.entry.path)),
            (after as Buffer[])[depth - 1],
            req.order,
            req.direction,
          )
        : { at: 0, found: false };
    for (let i = resume.at; i < kept.length; i++) {
      const p = kept[i];
      if (resume.found && i === resume.at) {
        yield* resumeChild(p, depth, chain);
        if (state.stopped) return;
        continue;
      }
      if (summary.entriesSent >= req.maxEntries) {
        state.stop('max_entries', dir);
        return;
      }
      const entry = state.materialize(p);
      if (filter.accepts(entry)) {
        summary.entriesMatched++;
        summary.entriesSent++;
        yield { kind: 'entry', entry };
      }
      const d = state.descent(entry, p.dev, chain);
      if (d.go) {
        yield* listTree(entry, depth + 1, d.chain);
        if (state.stopped) return;
      } else if (d.error) {
        yield* errorAfter(entry, d.error, dir);
        if (state.stopped) return;
      }
    }
    if (kept.length < Math.min(total, cap)) {
      // What was left of max_entries kept fewer children than the cap: the rest are lost.
      state.stop('max_entries', dir);
    } else if (total > cap) {
      yield { kind: 'truncation', truncation: { dir, shown: kept.length, total, reason: 'items_per_dir' } };
    }
  }

  if (after === undefined && req.after !== undefined && afterRow !== 'entry') {
    // Resuming after a row of the root itself: its error row, or its [WARNING] (the last row).
    if (afterRow === 'error') yield* listTree(rootEntry, 1, rootChain, 'skip-error');
    return;
  }
  yield* listTree(rootEntry, 1, rootChain, after ? 'path' : undefined);
}

function dirOf(e: Entry): Buffer {
  const i = e.path.lastIndexOf(0x2f);
  return i < 0 ? Buffer.alloc(0) : e.path.subarray(0, i);
}
