// The agent's TreeSource: the local file system, read with synchronous calls (the walk
// runs in a worker thread). Names are raw bytes from end to end: every path here is a
// Buffer, so a name that is not valid UTF-8 is listed and stat'ed unchanged.
// Everything is read by descriptor (beneath.ts): the walk's root is opened from `/` one
// component at a time without following a symlink, each directory from its parent's
// descriptor (fs/dir-handles.ts), each entry lstat'ed through its directory's descriptor; a
// followed symlink's target is opened the same way after checking it is inside the roots
// (fs/link-target.ts). Directories are read lazily: where the native module is loaded, by its
// getdents64 and statx on a descriptor opened from the directory's own, a chunk of packed
// records per call (fs/packed-dir.ts), else through node:fs, in chunks when large
// (fs/dir-read.ts); files are never opened.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { DirSize, EntryError, EntryType, RankCut, RawEntry, TreeSource } from '@fleetls/core';
import {
  entryErrorFromErrno,
  errnoOf,
  errorRawEntry,
  lazyRawEntry,
  OutsideRoots,
  prunedError,
  typeFromMode,
} from '@fleetls/core';
import { duApparentAt, UNREADABLE_DIR } from '../du/apparent.js';
import type { DirSizeMemo } from '../du/sums.js';
import { type CallProbe, watched } from '../walk/call-probe.js';
import { WalkCancelled } from '../walk/cancelled.js';
import type { SkippedPath } from '../walk/hung-mounts.js';
import { fdPath, openNoFollow } from './beneath.js';
import { type EntrySink, streamedEntries, wholeEntries } from './dir-entries.js';
import { DirHandles } from './dir-handles.js';
import { needsBufferNames, openDir, readWhole, readWholeBytes } from './dir-read.js';
import { FdPaths } from './fd-paths.js';
import { errnoCode, lstatAt, openDirRead } from './fsat.js';
import { openLinkTarget, statLinkTarget } from './link-target.js';
import { pseudoMountsUnder, readMounts, under } from './mounts.js';
import { FAILED, type PackedDir, PackedReader, STAT_ALL, STAT_DIRS, STATED } from './packed-dir.js';
import { fieldsAreLink, rawFromFields, rawFromRecord, rawFromStats } from './raw-stats.js';
import { SmallDirs } from './small-dirs.js';

export interface FsSourceOptions {
  followSymlinks: boolean;
  /** Real paths (already resolved) the walk may reach; a followed symlink leaving them is refused. */
  allowedRoots: string[];
  /** Polled while reading; when it returns true, listing throws WalkCancelled. */
  isCancelled?: () => boolean;
  /** Called once per directory entry read (for the worker's "entries seen" count). */
  onEntry?: () => void;
  /** Told of every file system call, so a call that never returns is noticed (walk/call-probe.ts). */
  probe?: CallProbe;
  /** Paths on hung mounts: listed as TIMEOUT errors without a system call. */
  skip?: readonly SkippedPath[];
  /** Pseudo file systems mounted below the root, point → type (default: from /proc/self/mountinfo, read now). */
  pseudo?: ReadonlyMap<string, string>;
}

/**
 * What a tree walk over packed records (walk/packed-tree.ts) needs of the source: its
 * directories opened for reading with every check list() makes, and the RawEntry of a record
 * it cannot encode from its fields.
 */
export interface PackedTreeAccess {
  readonly probe: CallProbe | undefined;
  /** Directory `rel` open for reading (`p`: its path, for the probe), or its listing error; as list() refuses it. */
  openRead(rel: Buffer): { fd: number; p: Buffer } | { error: EntryError };
  /** Closes what openRead opened. */
  closeRead(fd: number, p: Buffer): void;
  /** Record `name` of directory `rel` as list() and the walk's fill make it: a symlink, a failed or an unstat'ed entry. */
  oddEntry(rel: Buffer, name: Buffer, state: number, dtype: EntryType, errno: number): RawEntry;
}

/** The agent's source: a TreeSource that holds descriptors until close(). */
export interface FsSource extends TreeSource {
  /** Set where the native module is loaded and no hung mount is skipped. */
  readonly packedTree: PackedTreeAccess | undefined;
  /** The walk root's directory descriptor (O_PATH), opened by root(); undefined when it is not a directory. */
  rootDirFd(): number | undefined;
  /** Closes every descriptor the source holds. */
  close(): void;
}

const SLASH = Buffer.from('/');
const EMPTY = Buffer.alloc(0);
/** One options object for every entry's lstat, not a new one each. */
const BIGINT = { bigint: true } as const;

/**
 * A directory read by the native module has every entry stat'ed as it is read (fsat.c
 * readPacked) up to the number the walk may keep, and at least this many: past it, only the
 * entries every walk stats (directories, unknown types), the rest left for the walk to stat
 * if it keeps them (a name-ordered walk capped at 100 of a million names stats 100).
 */
const EAGER_STATS_MIN = 4096;

/** Directory sizes a walk keeps from one pass for its later questions (duApparent's memo). */
const DIR_SIZES_KEPT = 65_536;

/** A directory changed into something else between its lstat and its opening: its error. */
function readError(err: unknown): EntryError {
  return entryErrorFromErrno(errnoOf(err));
}

/**
 * Does a ranked walk's cut drop record `i` unseen (RankCut)? Counted there if so. Only a
 * stat'ed entry that is not a directory or a symlink: the walk descends into, follows or
 * shows the rest whatever their key.
 */
function dropped(cut: RankCut, dir: PackedDir, i: number): boolean {
  if (dir.state(i) !== STATED) return false;
  const type = dir.type(i);
  if (type === 'dir' || type === 'symlink') return false;
  if (cut.types !== undefined && !cut.types.has(type)) {
    cut.droppedUnmatched++;
    return true;
  }
  const worst = cut.worst;
  if (worst === undefined) return false;
  const d =
    cut.order === 'size'
      ? dir.size(i) - worst.size
      : dir.mtimeSec(i) - worst.mtimeSec || dir.mtimeNsec(i) - worst.mtimeNsec;
  // Strictly worse only: on a tie the path decides, which the engine compares.
  if (cut.sign * d <= 0) return false;
  cut.droppedMatched++;
  return true;
}

/** What packedEntries reads of its source. */
interface PackedReading {
  readonly probe: CallProbe | undefined;
  readonly isCancelled: () => boolean;
  readonly onEntry: (() => void) | undefined;
  /** A hung mount is skipped: no entry is stat'ed by the read (each goes through entryAt's check). */
  readonly hungSkipped: boolean;
  /** Record `i` of the chunk as the walk's RawEntry. */
  fromRecord(rel: Buffer, dir: PackedDir, i: number): RawEntry;
}

/**
 * A directory read by the native module, a chunk of packed records per call: every entry
 * stat'ed as it is read up to `stats` (at least EAGER_STATS_MIN), then only those the walk
 * must stat; none while a hung mount is skipped (each entry then goes through entryAt,
 * which checks it against the skip list before any call).
 * Here, not inside createFsSource: V8 gives a generator function a map of its own (for the
 * generators it makes) at its first call, in the old generation, and that map points back
 * at the function. A generator function declared per source left, after each walk, a dead
 * old map holding the function, its context, and through it the walk's whole graph (the
 * source's closures, the worker's input, the row batches) alive through every scavenge,
 * copied and promoted until the next full collection (bench/results/structure.why.md).
 */
function* packedEntries(
  reading: PackedReading,
  rel: Buffer,
  p: Buffer,
  dir: PackedDir,
  stats: number,
  cut: RankCut | undefined,
): Generator<RawEntry, void, void> {
  const { probe, isCancelled, onEntry } = reading;
  const eagerUpTo = Math.max(stats, EAGER_STATS_MIN);
  let read = 0;
  try {
    for (;;) {
      const mask = reading.hungSkipped ? 0 : read < eagerUpTo ? STAT_ALL : STAT_DIRS;
      let more: boolean;
      if (probe !== undefined) {
        const held = probe.enter(p);
        try {
          more = dir.next(mask, probe, held);
        } finally {
          probe.leave();
        }
      } else more = dir.next(mask, undefined, 0);
      if (!more) return;
      const count = dir.count;
      for (let i = 0; i < count; i++) {
        if (isCancelled()) throw new WalkCancelled('walk cancelled');
        onEntry?.();
        if (cut !== undefined && dropped(cut, dir, i)) continue;
        yield reading.fromRecord(rel, dir, i);
      }
      read += count;
    }
  } finally {
    try {
      watched(probe, p, () => dir.close());
    } catch {
      // already closed
    }
  }
}

// Over 80 lines: the per-entry closures (fromName, entryAt) read the source's locals on the hot path; a class or parameters would cost every entry until an A/B says not.
export function createFsSource(path: string, opts: FsSourceOptions): FsSource {
  const rootStr = nodePath.resolve(path);
  const rootBuf = Buffer.from(rootStr);
  /** What a child's path starts with before its "/": the root, or nothing when the root is "/". */
  const base = rootStr === '/' ? EMPTY : rootBuf;
  const follow = opts.followSymlinks;
  // Compared byte-exactly, as bytes.
  const roots = opts.allowedRoots.map((r) => Buffer.from(nodePath.resolve(r)));
  const hardLinks = new Set<number>();
  const sizes: DirSizeMemo = { sizes: new Map(), max: DIR_SIZES_KEPT };
  const isCancelled = opts.isCancelled ?? (() => false);
  const onEntry = opts.onEntry;
  const probe = opts.probe;
  const skip = opts.skip ?? [];
  const pseudo = opts.pseudo ?? pseudoMountsUnder(readMounts(), path);
  const packed = PackedReader.ifLoaded();
  /** Only node:fs reads a small directory differently (whole); the native module reads every one alike. */
  const smallDirs = packed === undefined ? new SmallDirs() : undefined;
  /** Logical paths (for the probe and the skip list) and descriptor paths (for the calls). */
  const paths = new FdPaths(base);

  /** The root's descriptor and the handles below it, opened on first use. */
  let opened: { fd: number; st: fs.BigIntStats; dirs?: DirHandles } | { error: unknown } | undefined;
  function openRoot(): { fd: number; st: fs.BigIntStats; dirs?: DirHandles } | { error: unknown } {
    if (opened !== undefined) return opened;
    try {
      const fd = watched(probe, rootBuf, () => openNoFollow(rootBuf, false));
      const st = fs.fstatSync(fd, { bigint: true });
      const followLink = follow
        ? (parentFd: number, name: Buffer) => openLinkTarget(parentFd, name, roots, true)
        : undefined;
      opened = st.isDirectory() ? { fd, st, dirs: new DirHandles(fd, followLink) } : { fd, st };
    } catch (err) {
      opened = { error: err };
    }
    return opened;
  }

  /** The descriptor of directory `rel`, or throws. */
  function dirFd(rel: Buffer, p: Buffer): number {
    const r = openRoot();
    if ('error' in r) throw r.error;
    if (r.dirs === undefined) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    const dirs = r.dirs;
    // The entries of one directory ask for its descriptor in a row: held, no call to watch.
    const fd = dirs.held(rel);
    if (fd !== undefined) return fd;
    return watched(probe, p, () => dirs.fdOf(rel));
  }

  /** The PRUNED error of a pseudo file system's mount point (not the root's own). */
  function prunedAt(p: Buffer): EntryError | undefined {
    if (pseudo.size === 0) return undefined;
    const type = pseudo.get(p.toString('latin1'));
    if (type === undefined) return undefined;
    return prunedError(type);
  }

  /** The TIMEOUT detail when `p` is on a hung mount the walk must not touch. */
  function skippedAt(p: Buffer): string | undefined {
    if (skip.length === 0) return undefined;
    const s = p.toString('latin1');
    for (const k of skip) if (k.exact ? s === k.point : under(k.point, s)) return k.detail;
    return undefined;
  }

  function full(rel: Buffer): Buffer {
    return rel.length === 0 ? rootBuf : Buffer.concat([base, SLASH, rel]);
  }

  function readLink(p: Buffer, at: Buffer): Buffer | undefined {
    try {
      return watched(probe, p, () => fs.readlinkSync(at, { encoding: 'buffer' }));
    } catch {
      return undefined;
    }
  }

  /** A symlink's entry when following: its target's stat, inside the allowed roots, or the link with the error. */
  function followed(parentFd: number, name: Buffer, p: Buffer, at: Buffer, st: fs.BigIntStats): RawEntry {
    const linkTarget = readLink(p, at);
    const asLink = (error?: EntryError): RawEntry => {
      const raw = rawFromStats(name, st);
      if (linkTarget) raw.linkTarget = linkTarget;
      if (error) raw.error = error;
      return raw;
    };
    if (!follow) return asLink();
    let target: fs.BigIntStats;
    try {
      target = watched(probe, p, () => statLinkTarget(parentFd, name, roots), true);
    } catch (err) {
      if (err instanceof OutsideRoots)
        return asLink({ code: 'DENIED', detail: 'symlink target outside allowed roots' });
      const code = errnoOf(err);
      return asLink(entryErrorFromErrno(code, code === 'ENOENT' ? 'symlink target does not exist' : undefined));
    }
    const raw = rawFromStats(name, target);
    if (linkTarget) raw.linkTarget = linkTarget;
    return raw;
  }

  /** One entry of directory `rel`: lstat through the directory's descriptor (and its target's stat when following). */
  function entryAt(rel: Buffer, name: Buffer, hint: EntryType): RawEntry {
    const p = paths.child(rel, name);
    const hung = skippedAt(p);
    if (hung !== undefined)
      return errorRawEntry(name, hint === 'unknown' ? 'dir' : hint, { code: 'TIMEOUT', detail: hung });
    let st: fs.BigIntStats;
    let at: Buffer;
    let fd: number;
    try {
      fd = dirFd(rel, p);
      // watched() inlined: a closure per entry was garbage for every lstat of a walk.
      probe?.enter(p);
      try {
        // By fstatat where the native module is loaded; a symlink is lstat'ed again below,
        // through the magic link, as its target is read (fs/link-target.ts) by that path.
        const f = lstatAt(fd, name);
        if (f !== undefined && !fieldsAreLink(f)) return rawFromFields(name, f);
        at = paths.atFd(fd, name);
        st = fs.lstatSync(at, BIGINT);
      } finally {
        probe?.leave();
      }
    } catch (err) {
      return errorRawEntry(name, hint, readError(err));
    }
    if (!st.isSymbolicLink()) return rawFromStats(name, st);
    return followed(fd, name, p, at, st);
  }

  /** The RawEntry of one directory entry: lazy when the read gave its type, lstat'ed now when not. */
  function fromName(rel: Buffer, name: Buffer, type: EntryType): RawEntry {
    // The directory read gives the type; lstat waits until the engine keeps the entry.
    if (type !== 'unknown') return lazyRawEntry(name, type);
    const raw = entryAt(rel, name, type);
    smallDirs?.note(rel, name, raw);
    return raw;
  }

  const sink: EntrySink = { probe, isCancelled, onEntry, fromName, dirFd };

  /** Record `i` of a packed chunk of directory `rel` as the walk's RawEntry. */
  function fromRecord(rel: Buffer, dir: PackedDir, i: number): RawEntry {
    const state = dir.state(i);
    const name = dir.name(i);
    if (state === STATED) {
      // A symlink goes the way of every symlink (its target read, followed or not).
      if (typeFromMode(dir.mode(i)) !== 'symlink') return rawFromRecord(name, dir, i);
      return entryAt(rel, name, 'symlink');
    }
    if (state === FAILED) return errorRawEntry(name, dir.dtype(i), entryErrorFromErrno(errnoCode(dir.errno(i))));
    return fromName(rel, name, dir.dtype(i));
  }

  const reading: PackedReading = { probe, isCancelled, onEntry, hungSkipped: skip.length > 0, fromRecord };

  const packedTree: PackedTreeAccess | undefined =
    packed === undefined || skip.length > 0
      ? undefined
      : {
          probe,
          openRead(rel) {
            const p = full(rel);
            const pruned = prunedAt(p);
            if (pruned) return { error: pruned };
            try {
              const fd = dirFd(rel, p);
              return { fd: watched(probe, p, () => openDirRead(fd) as number), p };
            } catch (err) {
              return { error: readError(err) };
            }
          },
          closeRead(fd, p) {
            try {
              watched(probe, p, () => fs.closeSync(fd));
            } catch {
              // already closed
            }
          },
          oddEntry(rel, name, state, dtype, errno) {
            if (state === FAILED) return errorRawEntry(name, dtype, entryErrorFromErrno(errnoCode(errno)));
            // A symlink (its target read, followed or not), or an entry the read left unstat'ed:
            // lstat'ed now, as the walk fills a lazy entry it keeps.
            return entryAt(rel, name, state === STATED ? 'symlink' : dtype);
          },
        };

  return {
    packedTree,

    root(): RawEntry {
      const name = Buffer.from(nodePath.basename(rootStr));
      const hung = skippedAt(rootBuf);
      if (hung !== undefined) return errorRawEntry(name, 'dir', { code: 'TIMEOUT', detail: hung });
      const r = openRoot();
      if ('error' in r) return errorRawEntry(name, 'dir', readError(r.error));
      // The path was resolved before the walk (policy.ts): a symlink here was swapped in since.
      if (r.st.isSymbolicLink())
        return errorRawEntry(name, 'dir', {
          code: 'ERROR',
          detail: 'path changed into a symlink while it was resolved',
        });
      const raw = rawFromStats(name, r.st);
      smallDirs?.note(EMPTY, undefined, raw);
      return raw;
    },

    fill(rel: Buffer, raw: RawEntry): RawEntry {
      const filled = entryAt(rel, raw.name, raw.type);
      if (filled.type === 'dir') smallDirs?.note(rel, raw.name, filled);
      return filled;
    },

    list(rel: Buffer, stats = Number.POSITIVE_INFINITY, cut?: RankCut): Iterable<RawEntry> | { error: EntryError } {
      const p = full(rel);
      const hung = skippedAt(p);
      if (hung !== undefined) return { error: { code: 'TIMEOUT', detail: hung } };
      const pruned = prunedAt(p);
      if (pruned) return { error: pruned };
      try {
        const fd = dirFd(rel, p);
        if (packed !== undefined)
          return packedEntries(
            reading,
            rel,
            p,
            watched(probe, p, () => packed.open(fd)),
            stats,
            cut,
          );
        const link = Buffer.from(fdPath(fd));
        if (smallDirs?.take(rel)) {
          let dirents: fs.Dirent[];
          try {
            dirents = watched(probe, p, () => readWhole(link));
          } catch (err) {
            if (!needsBufferNames(err)) throw err;
            dirents = watched(probe, p, () => readWholeBytes(link));
          }
          return wholeEntries(sink, rel, dirents);
        }
        return streamedEntries(
          sink,
          rel,
          p,
          watched(probe, p, () => openDir(link)),
        );
      } catch (err) {
        return { error: readError(err) };
      }
    },

    dirSize(rel: Buffer, deadlineAt: number, levels = 0): DirSize {
      const relStr = rel.toString('latin1');
      const known = sizes.sizes.get(relStr);
      if (known !== undefined) {
        sizes.sizes.delete(relStr);
        return known;
      }
      const p = full(rel);
      if (skippedAt(p) !== undefined || prunedAt(p)) return { size: 0, partial: true };
      let fd: number;
      try {
        fd = dirFd(rel, p);
      } catch {
        return { ...UNREADABLE_DIR };
      }
      const keep = levels > 0 ? { rel: relStr, levels, memo: sizes } : undefined;
      return duApparentAt(p, fd, deadlineAt, {
        isCancelled,
        onEntry,
        seenInodes: hardLinks,
        probe,
        skippedAt: skip.length > 0 ? skippedAt : undefined,
        keep,
        packed,
      });
    },

    rootDirFd(): number | undefined {
      const r = openRoot();
      return 'error' in r || r.dirs === undefined ? undefined : r.fd;
    },

    close(): void {
      const r = opened;
      if (r === undefined || 'error' in r) return;
      if (r.dirs) r.dirs.close();
      else fs.closeSync(r.fd);
      opened = { error: new Error('source closed') };
    },
  };
}
