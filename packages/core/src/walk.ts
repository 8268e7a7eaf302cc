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
import { entryComparator } from './order.js';
import { TopN } from './top-n.js';
import type {
  Entry,
  EntryError,
  EntryType,
  RawEntry,
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

export function toEntry(raw: RawEntry, dir: Buffer, depth: number): Entry {
  const entry: Entry = {
    path: joinPath(dir, raw.name),
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
export function errorRawEntry(name: Buffer, type: EntryType, error: EntryError): RawEntry {
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
    error,
  };
}

interface Pending {
  entry: Entry;
  dev: number;
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

  // Reads one directory: filters, sizes, and offers each child to `accept`. Returns the
  // listing error, if any. Stops early (and marks the walk stopped) at the deadline.
  const readDir = (
    dir: Buffer,
    depth: number,
    rootDev: number,
    accept: (e: Entry, dev: number) => void,
  ): EntryError | undefined => {
    const children = source.list(dir);
    if ('error' in children) return children.error;
    let sinceClock = 0;
    for (const raw of children) {
      if (++sinceClock === CLOCK_EVERY) {
        sinceClock = 0;
        if (outOfTime()) {
          stop('deadline', dir);
          return undefined;
        }
      }
      summary.entriesSeen++;
      if (req.excludeHidden && raw.name[0] === DOT) continue;
      const entry = toEntry(raw, dir, depth);
      if (exclude?.(entry.path.toString('utf8'))) continue;
      if (req.dirSizes && entry.type === 'dir' && !entry.error && (!req.oneFileSystem || raw.dev === rootDev)) {
        const { size, partial } = source.dirSize(entry.path, deadlineAt);
        entry.size = size;
        if (partial) entry.sizePartial = true;
      }
      accept(entry, raw.dev);
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
    const keep = new TopN<Entry>(req.offset + req.topN, compare);
    const offer = (e: Entry): void => {
      if (!selected(e)) return;
      summary.entriesMatched++;
      keep.push(e);
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
      const error = readDir(dir, depth, root.dev, (e, dev) => {
        offer(e);
        const d = descent(e, dev, root.dev, chain);
        if (d.go) stack.push({ dir: e.path, depth: depth + 1, chain: d.chain, entry: e });
        else if (d.error) offer(errorRow(e, d.error));
      });
      if (error) offer(errorRow(dirEntry, error));
    }
    const ranked = keep.sorted().slice(req.offset);
    for (const entry of ranked) {
      summary.entriesSent++;
      yield { kind: 'entry', entry };
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
  function* listTree(dirEntry: Entry, depth: number, chain: Ancestors | undefined): Generator<Row, void, void> {
    const dir = dirEntry.path;
    if (outOfTime()) {
      stop('deadline', dir);
      return;
    }
    const cap = depth === 1 && !req.capRoot ? Number.POSITIVE_INFINITY : req.maxItemsPerDir;
    const room = req.maxEntries - summary.entriesSent;
    const keep = new TopN<Pending>(Math.min(cap, room), (a, b) => compare(a.entry, b.entry));
    let total = 0;
    const error = readDir(dir, depth, root.dev, (entry, dev) => {
      total++;
      keep.push({ entry, dev });
    });
    if (error) {
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
    for (const { entry, dev } of kept) {
      if (summary.entriesSent >= req.maxEntries) {
        stop('max_entries', dir);
        return;
      }
      if (selected(entry)) {
        summary.entriesMatched++;
        summary.entriesSent++;
        yield { kind: 'entry', entry };
      }
      const d = descent(entry, dev, root.dev, chain);
      if (d.go) {
        yield* listTree(entry, depth + 1, d.chain);
        if (stopped) return;
      } else if (d.error && summary.entriesSent < req.maxEntries) {
        summary.entriesSent++;
        yield { kind: 'entry', entry: errorRow(entry, d.error) };
      }
    }
    if (total > cap) {
      yield { kind: 'truncation', truncation: { dir, shown: kept.length, total, reason: 'items_per_dir' } };
    } else if (total > kept.length) {
      // The directory fit its own cap but not what was left of max_entries.
      stop('max_entries', dir);
    }
  }

  yield* listTree(rootEntry, 1, rootChain);
  return finish();
}
