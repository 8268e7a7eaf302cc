// What one walk shares across its directories: the summary, the stop, the deadline clock,
// reading a directory through the filter, and whether to descend. The tree and ranked
// shapes (walk/tree.ts, walk/ranked.ts) are written on top of it.

import type {
  Entry,
  EntryError,
  RankCut,
  RawEntry,
  TreeSource,
  Truncation,
  WalkRequest,
  WalkSummary,
} from '../domain/types.js';
import { filterFeatures } from '../find/filter.js';
import { entryComparator } from '../order/order.js';
import { joinPath, toEntry } from './raw-entry.js';
import type { WalkFilter } from './row-filters.js';
import { compileFilter } from './row-filters.js';

/** How often (in entries) a long directory read looks at the clock. */
const CLOCK_EVERY = 512;

/**
 * A child on its way through a directory's ranking: what the source gave (unfilled while
 * `raw.lazy`), and its Entry once one is needed (to rank by a key other than the name, to
 * test, to size, to show). A directory of 50,000 names holds 50,000 of these at once, so
 * they stay small: no path or Entry until the child is kept.
 */
export interface Pending {
  raw: RawEntry;
  dir: Buffer;
  depth: number;
  entry?: Entry;
  /** `nameKey` of the name, when siblings are ranked by name. */
  key?: string;
}

/** Directories on the way down, for symlink-loop detection when following links. */
export interface Ancestors {
  key: string;
  up?: Ancestors;
}

function hasAncestor(chain: Ancestors | undefined, key: string): boolean {
  for (let a = chain; a; a = a.up) if (a.key === key) return true;
  return false;
}

export type Descent = { go: true; chain: Ancestors | undefined } | { go: false; error?: EntryError };

export function errorRow(entry: Entry, error: EntryError): Entry {
  return { ...entry, error };
}

/** A summary of a walk that has counted nothing yet (the engine's start, a decoder's default). */
export function emptySummary(): WalkSummary {
  return { entriesSent: 0, entriesSeen: 0, entriesMatched: 0, truncations: [], elapsedMs: 0, depthLimitedDirs: 0 };
}

/** What a source dropped (RankCut) counted as if it had been offered: seen, and matched when of a shown type. */
function countDropped(summary: WalkSummary, cut: RankCut): void {
  summary.entriesSeen += cut.droppedMatched + cut.droppedUnmatched;
  summary.entriesMatched += cut.droppedMatched;
  cut.droppedMatched = 0;
  cut.droppedUnmatched = 0;
}

export class WalkState {
  readonly summary: WalkSummary = emptySummary();
  readonly compare: (a: Entry, b: Entry) => number;
  readonly filter: WalkFilter;
  readonly deadlineAt: number;
  /** Set once the walk must end (deadline, max_entries); the reason is in the summary. */
  stopped = false;
  /** The requested path's device, for one_file_system. */
  rootDev = 0;
  /**
   * The most max_entries the walk's rows so far depended on: it gives the same rows under
   * any max_entries at least this (a piece of a split walk is kept only then: walk-split.ts).
   */
  need = 0;
  private readonly started: number;

  constructor(
    readonly req: WalkRequest,
    private readonly source: TreeSource,
    private readonly now: () => number,
    /** When the walk began (a piece of a split walk keeps the walk's deadline). */
    startedAt = now(),
  ) {
    this.started = startedAt;
    this.deadlineAt = this.started + req.deadlineMs;
    this.compare = entryComparator(req.order, req.direction);
    this.filter = compileFilter(req);
    const applied = filterFeatures(req.filter);
    if (applied.length > 0) this.summary.applied = applied;
  }

  finish(): WalkSummary {
    this.summary.elapsedMs = Math.max(0, this.now() - this.started);
    return this.summary;
  }

  /** Notes that the rows depend on max_entries being at least `n`. */
  needs(n: number): void {
    if (n > this.need) this.need = n;
  }

  stop(reason: Truncation['reason'], dir: Buffer): void {
    if (this.stopped) return;
    this.stopped = true;
    this.summary.truncations.push({ dir, shown: this.summary.entriesSent, total: this.summary.entriesSeen, reason });
  }

  outOfTime(): boolean {
    return this.now() >= this.deadlineAt;
  }

  /** The entry of a Pending as it stands (a lazy one with the zeros it holds until filled). */
  entryOf(p: Pending): Entry {
    if (p.entry === undefined) p.entry = toEntry(p.raw, p.dir, p.depth);
    return p.entry;
  }

  /** The entry of a kept Pending, filled if it was left lazy. */
  materialize(p: Pending): Entry {
    if (p.raw.lazy) {
      p.raw = this.fill(p.dir, p.raw);
      p.entry = toEntry(p.raw, p.dir, p.depth, p.entry?.path);
    }
    return this.entryOf(p);
  }

  private fill(dir: Buffer, raw: RawEntry): RawEntry {
    return raw.lazy && this.source.fill ? this.source.fill(dir, raw) : raw;
  }

  /**
   * Reads one directory: prunes, fills what the filter needs, sizes directories, and offers
   * each child to `accept`. Returns the listing error, if any. Stops early (and marks the
   * walk stopped) at the deadline. The Entry is made now only when ranking or sizing needs
   * it (`eager`, or a directory size); otherwise when the child is kept. `keeps`: how many
   * children the caller keeps at most (the source may lstat that many as it reads them).
   * `cut`: what the source may drop unseen (a ranked walk's), counted here as it would have been.
   */
  readDir(
    dir: Buffer,
    depth: number,
    eager: boolean,
    keeps: number,
    accept: (p: Pending) => void,
    cut?: RankCut,
  ): EntryError | undefined {
    const { req, filter, summary } = this;
    const children = this.source.list(dir, filter.statsAll ? Number.POSITIVE_INFINITY : keeps, cut);
    if ('error' in children) return children.error;
    let sinceClock = 0;
    for (let raw of children) {
      if (++sinceClock === CLOCK_EVERY) {
        sinceClock = 0;
        if (this.outOfTime()) {
          if (cut) countDropped(summary, cut);
          this.stop('deadline', dir);
          return undefined;
        }
      }
      summary.entriesSeen++;
      const path = filter.prunesByPath ? joinPath(dir, raw.name) : undefined;
      if (filter.prunes(raw.name, path)) continue;
      if (raw.lazy && filter.needsStat(raw)) raw = this.fill(dir, raw);
      const p: Pending = { raw, dir, depth };
      if (path !== undefined) p.entry = toEntry(raw, dir, depth, path);
      if (req.dirSizes && raw.type === 'dir' && !raw.error && (!req.oneFileSystem || raw.dev === this.rootDev)) {
        const entry = this.entryOf(p);
        const { size, partial, allocated, unreadableDirs } = this.source.dirSize(
          entry.path,
          this.deadlineAt,
          req.maxDepth - depth,
        );
        entry.size = size;
        if (partial) entry.sizePartial = true;
        if (allocated !== undefined) entry.allocated = allocated;
        if (unreadableDirs) entry.unreadableDirs = unreadableDirs;
      } else if (eager) this.entryOf(p);
      accept(p);
    }
    if (cut) countDropped(summary, cut);
    return undefined;
  }

  /** May the walk descend into this entry? Counts depth-limited dirs; reports loops. */
  descent(entry: Entry, dev: number, chain: Ancestors | undefined): Descent {
    const { req } = this;
    if (entry.type !== 'dir' || entry.error) return { go: false };
    if (entry.depth >= req.maxDepth) {
      this.summary.depthLimitedDirs++;
      return { go: false };
    }
    if (req.oneFileSystem && dev !== this.rootDev) return { go: false };
    if (!req.followSymlinks) return { go: true, chain };
    const key = `${dev}:${entry.inode}`;
    if (hasAncestor(chain, key)) return { go: false, error: { code: 'ERROR', detail: 'symlink loop' } };
    return { go: true, chain: { key, up: chain } };
  }
}
