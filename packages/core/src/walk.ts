// The walk engine: every limit, filter, order, ranking and truncation report of fleetls,
// written once. The agent runs it over its file system, the SSH backend over a listing
// loaded in memory; the same tree and request give the same rows on both paths.
//
// Two shapes:
// - tree: depth-first, each directory's children in the requested order. A directory
//   keeps at most `maxItemsPerDir` children (bounded heap: memory O(cap), not O(entries))
//   and reports how many it hid; the requested path is exempt unless `capRoot`.
// - ranked: one list over the whole walk, keeping the best offset + topN with a heap.
import { compileGlobs } from './glob.js';
import { baseName, compareNames, entryComparator } from './order.js';
import { TopN } from './top-n.js';
import type {
  Entry,
  EntryError,
  EntryType,
  RawEntry,
  ResumeRow,
  Row,
  TreeSource,
  Truncation,
  WalkRequest,
  WalkSummary,
} from './types.js';

const SLASH = Buffer.from('/');
const DOT = 0x2e;
/** How often (in entries) a long directory read looks at the clock. */
const CLOCK_EVERY = 512;

/** Joins a relative directory path and a name. */
export function joinPath(dir: Buffer, name: Buffer): Buffer {
  return dir.length === 0 ? name : Buffer.concat([dir, SLASH, name]);
}

export function toEntry(raw: RawEntry, dir: Buffer, depth: number, path = joinPath(dir, raw.name)): Entry {
  const entry: Entry = {
    path,
    type: raw.type,
    size: raw.size,
    mtimeSec: raw.mtimeSec,
    mtimeNsec: raw.mtimeNsec,
    utcOffsetMin: raw.utcOffsetMin,
    mode: raw.mode,
    uid: raw.uid,
    gid: raw.gid,
    inode: raw.inode,
    nlink: raw.nlink,
    depth,
  };
  if (raw.linkTarget !== undefined) entry.linkTarget = raw.linkTarget;
  if (raw.error !== undefined) entry.error = raw.error;
  return entry;
}

/** What a source gives for an object it could not stat: its name, a type if known, the error, every number 0. */
function zeroRawEntry(name: Buffer, type: EntryType): RawEntry {
  return {
    name,
    type,
    size: 0,
    mtimeSec: 0,
    mtimeNsec: 0,
    utcOffsetMin: 0,
    mode: 0,
    uid: 0,
    gid: 0,
    inode: 0,
    nlink: 0,
    dev: 0,
  };
}

export function errorRawEntry(name: Buffer, type: EntryType, error: EntryError): RawEntry {
  return { ...zeroRawEntry(name, type), error };
}

/** A child known by name and type only, for the source's `fill` to complete if it is kept. */
export function lazyRawEntry(name: Buffer, type: EntryType): RawEntry {
  const raw = zeroRawEntry(name, type);
  raw.lazy = true;
  return raw;
}

/** An entry on its way through a heap; `lazy` holds its unfilled RawEntry until it is kept. */
interface Pending {
  entry: Entry;
  dev: number;
  dir: Buffer;
  lazy?: RawEntry;
}

/** Directories on the way down, for symlink-loop detection when following links. */
interface Ancestors {
  key: string;
  up?: Ancestors;
}

function hasAncestor(chain: Ancestors | undefined, key: string): boolean {
  for (let a = chain; a; a = a.up) if (a.key === key) return true;
  return false;
}

/**
 * How a tree directory is listed when resuming after `req.after` (a row of an earlier page):
 * - `path`: the directory is an ancestor of `after`: children before `after`'s component are
 *   skipped unread, the component is skipped but descended into, the rest follow;
 * - `skip-error`: the directory is `after` and its error row was shown: skip that row.
 */
type ResumeMode = 'path' | 'skip-error' | undefined;

/** The components of a resume point (`after` split at '/'); a worker may hand a Uint8Array. */
function resumeParts(after: Uint8Array): Buffer[] {
  const buf = Buffer.isBuffer(after) ? after : Buffer.from(after.buffer, after.byteOffset, after.byteLength);
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= buf.length; i++) {
    if (i === buf.length || buf[i] === 0x2f) {
      parts.push(buf.subarray(start, i));
      start = i + 1;
    }
  }
  return parts;
}

export function* walk(req: WalkRequest, source: TreeSource, now: () => number): Generator<Row, WalkSummary, void> {
  const started = now();
  const deadlineAt = started + req.deadlineMs;
  const compare = entryComparator(req.order, req.direction);
  const include = req.include.length > 0 ? compileGlobs(req.include) : undefined;
  const exclude = req.exclude.length > 0 ? compileGlobs(req.exclude) : undefined;
  const types = req.types.length > 0 ? new Set<EntryType>(req.types) : undefined;

  const summary: WalkSummary = {
    entriesSent: 0,
    entriesSeen: 0,
    entriesMatched: 0,
    truncations: [],
    elapsedMs: 0,
    depthLimitedDirs: 0,
  };
  let stopped = false;

  const finish = (): WalkSummary => {
    summary.elapsedMs = Math.max(0, now() - started);
    return summary;
  };
  const stop = (reason: Truncation['reason'], dir: Buffer): void => {
    if (stopped) return;
    stopped = true;
    summary.truncations.push({ dir, shown: summary.entriesSent, total: summary.entriesSeen, reason });
  };
  const outOfTime = (): boolean => now() >= deadlineAt;

  /** A row is shown when it passes the type and include filters; error rows always are. */
  const selected = (e: Entry): boolean =>
    e.error !== undefined ||
    ((types === undefined || types.has(e.type)) && (include === undefined || include(e.path.toString('utf8'))));

  const errorRow = (dirEntry: Entry, error: EntryError): Entry => ({ ...dirEntry, error });

  // Names are enough to rank by name, hide, exclude or match a glob; lstat is needed for
  // other orders, and for directories (descent needs their device, inode and error).
  const fill = (dir: Buffer, raw: RawEntry): RawEntry => (raw.lazy && source.fill ? source.fill(dir, raw) : raw);
  const mustFill = (raw: RawEntry): boolean =>
    req.order !== 'name' ||
    raw.type === 'dir' ||
    raw.type === 'unknown' ||
    (req.followSymlinks && raw.type === 'symlink');
  /** The entry of a kept Pending, filled if it was left lazy. */
  const materialize = (p: Pending): Entry => {
    if (p.lazy) {
      p.entry = toEntry(fill(p.dir, p.lazy), p.dir, p.entry.depth, p.entry.path);
      p.lazy = undefined;
    }
    return p.entry;
  };

  // Reads one directory: filters, sizes, and offers each child to `accept`. Returns the
  // listing error, if any. Stops early (and marks the walk stopped) at the deadline.
  const readDir = (
    dir: Buffer,
    depth: number,
    rootDev: number,
    accept: (p: Pending) => void,
  ): EntryError | undefined => {
    const children = source.list(dir);
    if ('error' in children) return children.error;
    let sinceClock = 0;
    for (let raw of children) {
      if (++sinceClock === CLOCK_EVERY) {
        sinceClock = 0;
        if (outOfTime()) {
          stop('deadline', dir);
          return undefined;
        }
      }
      summary.entriesSeen++;
      if (req.excludeHidden && raw.name[0] === DOT) continue;
      const path = joinPath(dir, raw.name);
      if (exclude?.(path.toString('utf8'))) continue;
      if (raw.lazy && mustFill(raw)) raw = fill(dir, raw);
      const entry = toEntry(raw, dir, depth, path);
      if (req.dirSizes && entry.type === 'dir' && !entry.error && (!req.oneFileSystem || raw.dev === rootDev)) {
        const { size, partial } = source.dirSize(entry.path, deadlineAt);
        entry.size = size;
        if (partial) entry.sizePartial = true;
      }
      accept(raw.lazy ? { entry, dev: raw.dev, dir, lazy: raw } : { entry, dev: raw.dev, dir });
    }
    return undefined;
  };

  /** May the walk descend into this entry? Counts depth-limited dirs; reports loops. */
  const descent = (
    entry: Entry,
    dev: number,
    rootDev: number,
    chain: Ancestors | undefined,
  ): { go: true; chain: Ancestors | undefined } | { go: false; error?: EntryError } => {
    if (entry.type !== 'dir' || entry.error) return { go: false };
    if (entry.depth >= req.maxDepth) {
      summary.depthLimitedDirs++;
      return { go: false };
    }
    if (req.oneFileSystem && dev !== rootDev) return { go: false };
    if (!req.followSymlinks) return { go: true, chain };
    const key = `${dev}:${entry.inode}`;
    if (hasAncestor(chain, key)) return { go: false, error: { code: 'ERROR', detail: 'symlink loop' } };
    return { go: true, chain: { key, up: chain } };
  };

  const root = source.root();
  const rootEntry = toEntry(root, Buffer.alloc(0), 0);
  rootEntry.path = Buffer.alloc(0);
  if (root.error) {
    summary.entriesSent = 1;
    yield { kind: 'entry', entry: rootEntry };
    return finish();
  }
  if (root.type !== 'dir') {
    summary.entriesSent = 1;
    yield { kind: 'entry', entry: errorRow(rootEntry, { code: 'ERROR', detail: 'not a directory' }) };
    return finish();
  }
  const rootChain: Ancestors | undefined = req.followSymlinks ? { key: `${root.dev}:${root.inode}` } : undefined;

  if (req.shape === 'ranked') {
    const keep = new TopN<Pending>(req.offset + req.topN, (a, b) => compare(a.entry, b.entry));
    const offer = (p: Pending): void => {
      if (!selected(p.entry)) return;
      summary.entriesMatched++;
      keep.push(p);
    };
    const stack: { dir: Buffer; depth: number; chain: Ancestors | undefined; entry: Entry }[] = [
      { dir: rootEntry.path, depth: 1, chain: rootChain, entry: rootEntry },
    ];
    while (stack.length > 0 && !stopped) {
      const { dir, depth, chain, entry: dirEntry } = stack.pop()!;
      if (outOfTime()) {
        stop('deadline', dir);
        break;
      }
      const error = readDir(dir, depth, root.dev, (p) => {
        offer(p);
        const d = descent(p.entry, p.dev, root.dev, chain);
        if (d.go) stack.push({ dir: p.entry.path, depth: depth + 1, chain: d.chain, entry: p.entry });
        else if (d.error) offer({ entry: errorRow(p.entry, d.error), dev: p.dev, dir });
      });
      if (error) offer({ entry: errorRow(dirEntry, error), dev: root.dev, dir });
    }
    const ranked = keep.sorted().slice(req.offset);
    for (const p of ranked) {
      summary.entriesSent++;
      yield { kind: 'entry', entry: materialize(p) };
    }
    if (summary.entriesMatched > req.offset + req.topN) {
      summary.truncations.push({
        dir: Buffer.alloc(0),
        shown: ranked.length,
        total: summary.entriesMatched,
        reason: 'top_n',
      });
    }
    return finish();
  }

  // Tree shape.
  const after = req.after !== undefined && req.after.length > 0 ? resumeParts(req.after) : undefined;
  const afterRow: ResumeRow = req.afterRow ?? 'entry';

  /**
   * Resuming in a directory on the path of `after`: the index in `kept` of `after`'s
   * component (`found`), or of the first child that sorts after it when it is gone.
   */
  const resumeIndex = (kept: Pending[], level: number): { at: number; found: boolean } => {
    const name = (after as Buffer[])[level];
    const at = kept.findIndex((p) => baseName(p.entry.path).equals(name));
    if (at >= 0) return { at, found: true };
    if (req.order !== 'name') return { at: 0, found: false };
    const sign = req.direction === 'descending' ? -1 : 1;
    const next = kept.findIndex((p) => sign * compareNames(baseName(p.entry.path), name) > 0);
    return { at: next < 0 ? kept.length : next, found: false };
  };

  /** `after`'s component in a directory on its path: its own rows are skipped, what follows is not. */
  function* resumeChild(p: Pending, depth: number, chain: Ancestors | undefined): Generator<Row, void, void> {
    const last = depth === (after as Buffer[]).length;
    if (last && afterRow === 'warning') return; // its whole subtree, [WARNING] included, was shown
    const entry = materialize(p);
    const d = descent(entry, p.dev, root.dev, chain);
    if (d.go)
      yield* listTree(entry, depth + 1, d.chain, !last ? 'path' : afterRow === 'error' ? 'skip-error' : undefined);
    else if (d.error && last && afterRow === 'entry') yield* errorAfter(entry, d.error, dirOf(entry));
  }

  const dirOf = (e: Entry): Buffer => {
    const i = e.path.lastIndexOf(0x2f);
    return i < 0 ? Buffer.alloc(0) : e.path.subarray(0, i);
  };

  /** The error row that follows an entry (a symlink loop), unless max_entries is reached. */
  function* errorAfter(entry: Entry, error: EntryError, dir: Buffer): Generator<Row, void, void> {
    if (summary.entriesSent >= req.maxEntries) {
      stop('max_entries', dir);
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
    if (outOfTime()) {
      stop('deadline', dir);
      return;
    }
    const cap = depth === 1 && !req.capRoot ? Number.POSITIVE_INFINITY : req.maxItemsPerDir;
    // On the resume path the directory keeps what an uncut walk keeps (cap only), then skips.
    const room = mode === 'path' ? Number.POSITIVE_INFINITY : req.maxEntries - summary.entriesSent;
    const keep = new TopN<Pending>(Math.min(cap, room), (a, b) => compare(a.entry, b.entry));
    let total = 0;
    const error = readDir(dir, depth, root.dev, (p) => {
      total++;
      keep.push(p);
    });
    if (error) {
      // On the resume path this row came before `after`; in skip-error mode it was shown.
      if (mode !== undefined) return;
      if (summary.entriesSent >= req.maxEntries) {
        stop('max_entries', dir);
        return;
      }
      summary.entriesSent++;
      yield { kind: 'entry', entry: errorRow(dirEntry, error) };
      return;
    }
    if (stopped) return;
    const kept = keep.sorted();
    const resume = mode === 'path' ? resumeIndex(kept, depth - 1) : { at: 0, found: false };
    for (let i = resume.at; i < kept.length; i++) {
      const p = kept[i];
      if (resume.found && i === resume.at) {
        yield* resumeChild(p, depth, chain);
        if (stopped) return;
        continue;
      }
      if (summary.entriesSent >= req.maxEntries) {
        stop('max_entries', dir);
        return;
      }
      const entry = materialize(p);
      const dev = p.dev;
      if (selected(entry)) {
        summary.entriesMatched++;
        summary.entriesSent++;
        yield { kind: 'entry', entry };
      }
      const d = descent(entry, dev, root.dev, chain);
      if (d.go) {
        yield* listTree(entry, depth + 1, d.chain);
        if (stopped) return;
      } else if (d.error) {
        yield* errorAfter(entry, d.error, dir);
        if (stopped) return;
      }
    }
    if (kept.length < Math.min(total, cap)) {
      // What was left of max_entries kept fewer children than the cap: the rest are lost.
      stop('max_entries', dir);
    } else if (total > cap) {
      yield { kind: 'truncation', truncation: { dir, shown: kept.length, total, reason: 'items_per_dir' } };
    }
  }

  if (after === undefined && req.after !== undefined && afterRow !== 'entry') {
    // Resuming after a row of the root itself: its error row, or its [WARNING] (the last row).
    if (afterRow === 'error') yield* listTree(rootEntry, 1, rootChain, 'skip-error');
    return finish();
  }
  yield* listTree(rootEntry, 1, rootChain, after ? 'path' : undefined);
  return finish();
}
