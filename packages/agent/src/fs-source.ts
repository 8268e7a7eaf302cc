// The agent's TreeSource: the local file system, read with synchronous calls (the walk
// runs in a worker thread). Names are raw bytes from end to end: every path here is a
// Buffer, so a name that is not valid UTF-8 is listed and stat'ed unchanged.
// Directories are read lazily in chunks, never loaded whole; files are never opened.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { EntryError, EntryType, RawEntry, TreeSource } from '@fleetls/core';
import {
  entryErrorFromErrno,
  errorRawEntry,
  lazyRawEntry,
  PSEUDO_FS_TYPES,
  prunedError,
  typeFromMode,
} from '@fleetls/core';
import type { CallProbe } from './call-probe.js';
import { type Mount, mountOf, readMounts, under } from './mounts.js';

const PSEUDO = new Set<string>(PSEUDO_FS_TYPES);

/**
 * Mount points of pseudo file systems below `root` (latin1 → type), other than the one the
 * root is on: a walk lists them but does not enter them, unless asked for them by path.
 */
export function pseudoMountsBelow(mounts: readonly Mount[], root: string): Map<string, string> {
  const own = mountOf(mounts, root)?.point;
  const below = new Map<string, string>();
  for (const m of mounts) {
    if (PSEUDO.has(m.fsType) && m.point !== own && m.point !== root && under(root, m.point))
      below.set(m.point, m.fsType);
  }
  return below;
}

/** A path the walk must not touch: a mount that did not answer (or, `exact`, one path whose resolution hung). */
export interface SkippedPath {
  /** latin1 string of the path's bytes. */
  point: string;
  exact: boolean;
  /** The TIMEOUT error's detail. */
  detail: string;
}

export interface FsSourceOptions {
  followSymlinks: boolean;
  /** Real paths (already resolved) the walk may reach; a followed symlink leaving them is refused. */
  allowedRoots: string[];
  /** Polled while reading; when it returns true, listing throws WalkCancelled. */
  isCancelled?: () => boolean;
  /** Called once per directory entry read (for the worker's "entries seen" count). */
  onEntry?: () => void;
  /** Told of every file system call, so a call that never returns is noticed (call-probe.ts). */
  probe?: CallProbe;
  /** Paths on hung mounts: listed as TIMEOUT errors without a system call. */
  skip?: readonly SkippedPath[];
  /** The mount table (default: /proc/self/mountinfo, read once per walk), for pseudo file systems. */
  mounts?: readonly Mount[];
}

/** Thrown from inside a listing when the walk was cancelled. */
export class WalkCancelled extends Error {
  override name = 'WalkCancelled';
}

const SLASH = Buffer.from('/');
const SLASH_BYTE = 0x2f;

// The UTC offset changes at most a few times a year, on quarter-hour boundaries at worst:
// cache it per 15-minute bucket instead of asking the time zone database per entry. The cache
// is direct-mapped (slot = bucket mod 65536, ~390 KiB): one array read per entry, no hashing.
const OFFSET_SLOTS = 1 << 16;
const NO_BUCKET = -0x80000000;
const offsetBucket = new Int32Array(OFFSET_SLOTS).fill(NO_BUCKET);
const offsetMin = new Int16Array(OFFSET_SLOTS);
function offsetOfBucket(bucket: number): number {
  return -new Date(bucket * 900_000).getTimezoneOffset() || 0;
}
export function utcOffsetAt(sec: number): number {
  const bucket = Math.floor(sec / 900);
  // Outside int32 (a time past the year 63,000 or so): not cached.
  if (!(bucket > NO_BUCKET && bucket <= 0x7fffffff)) return offsetOfBucket(bucket);
  const slot = bucket & (OFFSET_SLOTS - 1);
  if (offsetBucket[slot] === bucket) return offsetMin[slot];
  const off = offsetOfBucket(bucket);
  offsetBucket[slot] = bucket;
  offsetMin[slot] = off;
  return off;
}

/**
 * A directory whose own st_size is at most this is read in one call (every name at once);
 * a larger one, or one whose size is unknown, is streamed through opendir. ext4 gives 4 KiB
 * per block (64 KiB: ~1,500-3,000 names), tmpfs 20 bytes per entry, btrfs twice the names' bytes.
 */
export const WHOLE_READ_MAX_DIR_BYTES = 64 * 1024;
/** Directories whose size says "read whole" that are not listed yet; forgotten past this many. */
const SMALL_DIRS_MAX = 4096;

/**
 * opendir with names as latin1 strings (one char per byte, so raw bytes survive unchanged, and
 * far cheaper to make than a Buffer each), read 128 entries per native call.
 */
function openDir(p: Buffer): fs.Dir {
  return fs.opendirSync(p, { encoding: 'latin1', bufferSize: 128 });
}

/** Every entry of a directory with a type, names as latin1 strings of their bytes. */
function readWhole(p: Buffer): fs.Dirent[] {
  return fs.readdirSync(p, { withFileTypes: true, encoding: 'latin1' });
}

/**
 * Node types an entry whose kernel type is unknown (FUSE: sshfs, rclone, s3fs; XFS without
 * ftype; some NFS) by lstat of the path joined with its name, and that join throws
 * ERR_INVALID_ARG_TYPE when the path is a Buffer and names are strings. Such a directory is
 * read again with Buffer names, which Node can join.
 */
function needsBufferNames(err: unknown): boolean {
  return errnoOf(err) === 'ERR_INVALID_ARG_TYPE';
}

/** Every entry of a directory with a type, names as Buffers (the unknown-type fallback). */
function readWholeBytes(p: Buffer): fs.Dirent[] {
  return fs.readdirSync(p, { withFileTypes: true, encoding: 'buffer' }) as unknown as fs.Dirent[];
}

/** opendir with raw-byte names, 1024 entries per system call by default (`duApparent`). */
function openDirBytes(p: Buffer, bufferSize = 1024): fs.Dir {
  // @types/node types `encoding` as a BufferEncoding only; 'buffer' is supported at runtime.
  return fs.opendirSync(p, { encoding: 'buffer', bufferSize } as unknown as fs.OpenDirOptions);
}

/** Is `path` equal to `root` or below it (both absolute, normalised)? */
function inside(root: string, path: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

/** `fn()` bracketed by the probe, when there is one. */
function watched<T>(probe: CallProbe | undefined, p: Buffer, fn: () => T, follows = false): T {
  if (probe === undefined) return fn();
  probe.enter(p, follows);
  try {
    return fn();
  } finally {
    probe.leave();
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

const NS_PER_SEC = 1_000_000_000n;

function rawFromStats(name: Buffer, st: fs.BigIntStats): RawEntry {
  const mode = Number(st.mode);
  const ns = st.mtimeNs;
  // Both truncate toward zero: a time before 1970 has a negative second and nanosecond.
  const mtimeSec = Number(ns / NS_PER_SEC);
  return {
    name,
    type: typeFromMode(mode),
    size: Number(st.size),
    mtimeSec,
    mtimeNsec: Number(ns % NS_PER_SEC),
    utcOffsetMin: utcOffsetAt(mtimeSec),
    mode,
    uid: Number(st.uid),
    gid: Number(st.gid),
    inode: Number(st.ino),
    nlink: Number(st.nlink),
    dev: Number(st.dev),
  };
}

/** Directory sizes a walk keeps from one pass for its later questions (duApparent's memo). */
const DIR_SIZES_KEPT = 65_536;

type DirentKind = Pick<
  fs.Dirent,
  'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'
>;

function direntType(d: DirentKind): EntryType {
  if (d.isFile()) return 'file';
  if (d.isDirectory()) return 'dir';
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isFIFO()) return 'fifo';
  if (d.isSocket()) return 'socket';
  if (d.isCharacterDevice()) return 'char';
  if (d.isBlockDevice()) return 'block';
  return 'unknown';
}

export function createFsSource(path: string, opts: FsSourceOptions): TreeSource {
  const rootStr = nodePath.resolve(path);
  const rootBuf = Buffer.from(rootStr);
  /** What a child's path starts with before its "/": the root, or nothing when the root is "/". */
  const base = rootStr === '/' ? Buffer.alloc(0) : rootBuf;
  const follow = opts.followSymlinks;
  // Compared byte-exactly: both sides as latin1 strings of their bytes.
  const roots = opts.allowedRoots.map((r) => Buffer.from(nodePath.resolve(r)).toString('latin1'));
  const hardLinks = new Set<number>();
  const sizes: DirSizeMemo = { sizes: new Map(), max: DIR_SIZES_KEPT };
  const isCancelled = opts.isCancelled ?? (() => false);
  const onEntry = opts.onEntry;
  const probe = opts.probe;
  const skip = opts.skip ?? [];
  const pseudo = pseudoMountsBelow(opts.mounts ?? readMounts(), rootBuf.toString('latin1'));

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
  /** Relative paths (latin1) of directories small enough to read whole, not listed yet. */
  const smallDirs = new Set<string>();

  // Full paths are built in one reused buffer: "<root>/<rel>/" once per directory, then each
  // name copied after it, instead of a new Buffer per entry. Every use is synchronous.
  let scratch = Buffer.allocUnsafe(4096);
  let prefixOf: Buffer | undefined;
  let prefixLen = 0;
  /** views[n] = scratch.subarray(0, n), made once per length. */
  let views: Buffer[] = [];

  function ensure(n: number): void {
    if (n <= scratch.length) return;
    const grown = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
    scratch.copy(grown, 0, 0, prefixLen);
    scratch = grown;
    views = [];
  }

  /** Writes "<root>/<rel>/" (or "<root>/" for the root) into the scratch buffer. */
  function setPrefix(rel: Buffer): void {
    if (rel === prefixOf) return;
    ensure(base.length + rel.length + 2);
    let n = base.copy(scratch, 0);
    scratch[n++] = SLASH_BYTE;
    if (rel.length > 0) {
      n += rel.copy(scratch, n);
      scratch[n++] = SLASH_BYTE;
    }
    prefixOf = rel;
    prefixLen = n;
  }

  /** The full path of `name` in directory `rel`, as a view of the scratch buffer. */
  function childPath(rel: Buffer, name: Buffer): Buffer {
    setPrefix(rel);
    ensure(prefixLen + name.length);
    name.copy(scratch, prefixLen);
    const n = prefixLen + name.length;
    let view = views[n];
    if (view === undefined) {
      view = scratch.subarray(0, n);
      views[n] = view;
    }
    return view;
  }

  function full(rel: Buffer): Buffer {
    return rel.length === 0 ? rootBuf : Buffer.concat([base, SLASH, rel]);
  }

  function readLink(p: Buffer): Buffer | undefined {
    try {
      return watched(probe, p, () => fs.readlinkSync(p, { encoding: 'buffer' }));
    } catch {
      return undefined;
    }
  }

  /** Remembers a directory that `list` may read in one call (bounded: past the limit, it streams). */
  function noteSize(rel: Buffer, name: Buffer | undefined, raw: RawEntry): void {
    if (raw.type !== 'dir' || raw.error || raw.size <= 0 || raw.size > WHOLE_READ_MAX_DIR_BYTES) return;
    if (smallDirs.size >= SMALL_DIRS_MAX) smallDirs.clear();
    const relStr = rel.toString('latin1');
    smallDirs.add(
      name === undefined
        ? relStr
        : relStr.length === 0
          ? name.toString('latin1')
          : `${relStr}/${name.toString('latin1')}`,
    );
  }

  /** One entry: lstat, and when following symlinks, stat of the target inside the allowed roots. */
  function entryAt(name: Buffer, p: Buffer, hint: EntryType): RawEntry {
    const hung = skippedAt(p);
    if (hung !== undefined)
      return errorRawEntry(name, hint === 'unknown' ? 'dir' : hint, { code: 'TIMEOUT', detail: hung });
    let st: fs.BigIntStats;
    try {
      st = watched(probe, p, () => fs.lstatSync(p, { bigint: true }));
    } catch (err) {
      return errorRawEntry(name, hint, entryErrorFromErrno(errnoOf(err)));
    }
    if (!st.isSymbolicLink()) return rawFromStats(name, st);
    const linkTarget = readLink(p);
    if (!follow) {
      const raw = rawFromStats(name, st);
      if (linkTarget) raw.linkTarget = linkTarget;
      return raw;
    }
    // Following: the target must resolve inside the allowed roots.
    let real: string;
    try {
      real = watched(probe, p, () => fs.realpathSync(p, { encoding: 'buffer' }), true).toString('latin1');
    } catch (err) {
      const raw = rawFromStats(name, st);
      if (linkTarget) raw.linkTarget = linkTarget;
      raw.error = entryErrorFromErrno(
        errnoOf(err),
        errnoOf(err) === 'ENOENT' ? 'symlink target does not exist' : undefined,
      );
      return raw;
    }
    if (!roots.some((r) => inside(r, real))) {
      const raw = rawFromStats(name, st);
      if (linkTarget) raw.linkTarget = linkTarget;
      raw.error = { code: 'DENIED', detail: 'symlink target outside allowed roots' };
      return raw;
    }
    let target: fs.BigIntStats;
    try {
      target = watched(probe, p, () => fs.statSync(p, { bigint: true }), true);
    } catch (err) {
      const raw = rawFromStats(name, st);
      if (linkTarget) raw.linkTarget = linkTarget;
      raw.error = entryErrorFromErrno(errnoOf(err));
      return raw;
    }
    const raw = rawFromStats(name, target);
    if (linkTarget) raw.linkTarget = linkTarget;
    return raw;
  }

  /** The RawEntry of one directory entry: lazy when the read gave its type, lstat'ed now when not. */
  function fromDirent(rel: Buffer, d: fs.Dirent): RawEntry {
    const name = typeof d.name === 'string' ? Buffer.from(d.name, 'latin1') : (d.name as unknown as Buffer);
    const type = direntType(d);
    // The directory read gives the type; lstat waits until the engine keeps the entry.
    if (type !== 'unknown') return lazyRawEntry(name, type);
    const raw = entryAt(name, childPath(rel, name), type);
    noteSize(rel, name, raw);
    return raw;
  }

  function* whole(rel: Buffer, dirents: fs.Dirent[]): Generator<RawEntry, void, void> {
    for (let i = 0; i < dirents.length; i++) {
      if (isCancelled()) throw new WalkCancelled('walk cancelled');
      onEntry?.();
      yield fromDirent(rel, dirents[i]);
    }
  }

  function* stream(rel: Buffer, p: Buffer, opened: fs.Dir): Generator<RawEntry, void, void> {
    let dir = opened;
    let bufferNames = false;
    /** Entries yielded so far; a directory read again with Buffer names skips as many (readdir order is stable). */
    let yielded = 0;
    let skip = 0;
    try {
      for (;;) {
        if (isCancelled()) throw new WalkCancelled('walk cancelled');
        let d: fs.Dirent | null;
        try {
          const reading = dir;
          d = watched(probe, p, () => reading.readSync());
        } catch (err) {
          if (bufferNames || !needsBufferNames(err)) throw err;
          const failed = dir;
          watched(probe, p, () => failed.closeSync());
          dir = watched(probe, p, () => openDirBytes(p, 128));
          bufferNames = true;
          skip = yielded;
          continue;
        }
        if (d === null) return;
        if (skip > 0) {
          skip--;
          continue;
        }
        yielded++;
        onEntry?.();
        yield fromDirent(rel, d);
      }
    } finally {
      try {
        const open = dir;
        watched(probe, p, () => open.closeSync());
      } catch {
        // already closed
      }
    }
  }

  return {
    root(): RawEntry {
      const raw = entryAt(Buffer.from(nodePath.basename(rootStr)), rootBuf, 'dir');
      noteSize(Buffer.alloc(0), undefined, raw);
      return raw;
    },

    fill(rel: Buffer, raw: RawEntry): RawEntry {
      const filled = entryAt(raw.name, childPath(rel, raw.name), raw.type);
      if (filled.type === 'dir') noteSize(rel, raw.name, filled);
      return filled;
    },

    list(rel: Buffer): Iterable<RawEntry> | { error: EntryError } {
      const p = full(rel);
      const hung = skippedAt(p);
      if (hung !== undefined) return { error: { code: 'TIMEOUT', detail: hung } };
      const pruned = prunedAt(p);
      if (pruned) return { error: pruned };
      try {
        if (smallDirs.size > 0 && smallDirs.delete(rel.toString('latin1'))) {
          let dirents: fs.Dirent[];
          try {
            dirents = watched(probe, p, () => readWhole(p));
          } catch (err) {
            if (!needsBufferNames(err)) throw err;
            dirents = watched(probe, p, () => readWholeBytes(p));
          }
          return whole(rel, dirents);
        }
        return stream(
          rel,
          p,
          watched(probe, p, () => openDir(p)),
        );
      } catch (err) {
        return { error: entryErrorFromErrno(errnoOf(err)) };
      }
    },

    dirSize(rel: Buffer, deadlineAt: number, levels = 0): { size: number; partial: boolean } {
      const relStr = rel.toString('latin1');
      const known = sizes.sizes.get(relStr);
      if (known !== undefined) {
        sizes.sizes.delete(relStr);
        return known;
      }
      const p = full(rel);
      if (skippedAt(p) !== undefined || prunedAt(p)) return { size: 0, partial: true };
      const keep = levels > 0 ? { rel: relStr, levels, memo: sizes } : undefined;
      return duApparent(p, deadlineAt, isCancelled, hardLinks, probe, skippedAt, keep);
    },
  };
}

/**
 * Sizes of directories below one that was sized, kept for the walk's later questions: one
 * pass over a subtree answers for every level of it, as du's one pass does, instead of each
 * level reading its subtree again. Bounded: past `max` entries nothing more is kept.
 */
export interface DirSizeMemo {
  /** Relative path (latin1) → size. */
  sizes: Map<string, { size: number; partial: boolean }>;
  max: number;
}

/** Where a subtree is sized from, for `memo`: its relative path and how many levels below it the walk asks about. */
export interface DirSizeKeep {
  rel: string;
  levels: number;
  memo: DirSizeMemo;
}

/** A directory waiting to be read by duApparent; `whole`: small enough to read in one call. */
interface DuDir {
  path: Buffer;
  into: number;
  level: number;
  whole: boolean;
}

function isSmallDir(size: number): boolean {
  return size > 0 && size <= WHOLE_READ_MAX_DIR_BYTES;
}

/** The names of an opened directory, streamed (a large one is never held whole); closed when done or dropped. */
function* dirNames(p: Buffer, dir: fs.Dir, probe: CallProbe | undefined): Generator<Buffer, void, void> {
  try {
    for (;;) {
      const d = watched(probe, p, () => dir.readSync()) as fs.Dirent<Buffer> | null;
      if (d === null) return;
      yield d.name as unknown as Buffer;
    }
  } finally {
    try {
      watched(probe, p, () => dir.closeSync());
    } catch {
      // already closed
    }
  }
}

/** A directory sized on its own (it is within `keep.levels`), or the nearest such ancestor's. */
interface SizedDir {
  size: number;
  partial: boolean;
  /** Index of the parent's SizedDir (-1 for the top). */
  up: number;
  rel: string;
}

/**
 * Recursive apparent size, as `du -b --one-file-system`: the directory's own size, every
 * entry's lstat size, hard links counted once, never crossing into another device. With
 * `keep`, the sizes of the directories down to `keep.levels` below are kept in its memo.
 */
export function duApparent(
  top: Buffer,
  deadlineAt: number,
  isCancelled: () => boolean = () => false,
  seenInodes: Set<number> = new Set(),
  probe?: CallProbe,
  skippedAt: (p: Buffer) => string | undefined = () => undefined,
  keep?: DirSizeKeep,
): { size: number; partial: boolean } {
  let st: fs.Stats;
  try {
    st = watched(probe, top, () => fs.lstatSync(top));
  } catch {
    return { size: 0, partial: true };
  }
  const dev = st.dev;
  const levels = keep === undefined ? 0 : keep.levels;
  // sized[0] is the top; a directory deeper than `levels` adds to its nearest sized ancestor.
  const sized: SizedDir[] = [{ size: st.size, partial: false, up: -1, rel: keep?.rel ?? '' }];
  const stack: DuDir[] = [{ path: top, into: 0, level: 0, whole: isSmallDir(st.size) }];
  let n = 0;
  while (stack.length > 0) {
    const { path: dirPath, into, level, whole } = stack.pop() as DuDir;
    const at = sized[into];
    let names: Iterator<Buffer>;
    try {
      names = whole
        ? (watched(probe, dirPath, () => fs.readdirSync(dirPath, { encoding: 'buffer' })) as Buffer[]).values()
        : dirNames(
            dirPath,
            watched(probe, dirPath, () => openDirBytes(dirPath)),
            probe,
          );
    } catch {
      at.partial = true;
      continue;
    }
    try {
      for (;;) {
        if ((++n & 255) === 0) {
          if (isCancelled()) throw new WalkCancelled('walk cancelled');
          if (Date.now() > deadlineAt) return { size: sized.reduce((sum, x) => sum + x.size, 0), partial: true };
        }
        const next = names.next();
        if (next.done) break;
        const name = next.value;
        const p = Buffer.concat([dirPath, SLASH, name]);
        // A mount below is another device (never counted), so only a hung one's point is checked.
        if (skippedAt(p) !== undefined) {
          at.partial = true;
          continue;
        }
        let est: fs.Stats;
        try {
          est = watched(probe, p, () => fs.lstatSync(p));
        } catch {
          at.partial = true;
          continue;
        }
        if (est.dev !== dev) continue;
        if (!est.isDirectory()) {
          if (est.nlink > 1) {
            if (seenInodes.has(est.ino)) continue;
            seenInodes.add(est.ino);
          }
          at.size += est.size;
          continue;
        }
        const small = isSmallDir(est.size);
        if (level + 1 > levels) {
          at.size += est.size;
          stack.push({ path: p, into, level: level + 1, whole: small });
        } else {
          sized.push({ size: est.size, partial: false, up: into, rel: `${at.rel}/${name.toString('latin1')}` });
          stack.push({ path: p, into: sized.length - 1, level: level + 1, whole: small });
        }
      }
    } finally {
      names.return?.();
    }
  }
  // Children were pushed after their parents: adding each to its parent from the end sums subtrees.
  for (let i = sized.length - 1; i > 0; i--) {
    const up = sized[sized[i].up];
    up.size += sized[i].size;
    if (sized[i].partial) up.partial = true;
  }
  if (keep !== undefined) {
    const { sizes, max } = keep.memo;
    for (let i = 1; i < sized.length && sizes.size < max; i++) {
      const rel = keep.rel === '' ? sized[i].rel.slice(1) : sized[i].rel;
      sizes.set(rel, { size: sized[i].size, partial: sized[i].partial });
    }
  }
  return { size: sized[0].size, partial: sized[0].partial };
}
