// The agent's TreeSource: the local file system, read with synchronous calls (the walk
// runs in a worker thread). Names are raw bytes from end to end: every path here is a
// Buffer, so a name that is not valid UTF-8 is listed and stat'ed unchanged.
// Directories are read lazily in chunks, never loaded whole; files are never opened.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { EntryError, EntryType, RawEntry, TreeSource } from '@fleetls/core';
import { entryErrorFromErrno, errorRawEntry, lazyRawEntry, typeFromMode } from '@fleetls/core';

export interface FsSourceOptions {
  followSymlinks: boolean;
  /** Real paths (already resolved) the walk may reach; a followed symlink leaving them is refused. */
  allowedRoots: string[];
  /** Polled while reading; when it returns true, listing throws WalkCancelled. */
  isCancelled?: () => boolean;
  /** Called once per directory entry read (for the worker's "entries seen" count). */
  onEntry?: () => void;
}

/** Thrown from inside a listing when the walk was cancelled. */
export class WalkCancelled extends Error {
  override name = 'WalkCancelled';
}

const SLASH = Buffer.from('/');

// The UTC offset changes at most a few times a year, on quarter-hour boundaries at worst:
// cache it per 15-minute bucket (bounded) instead of asking the time zone database per entry.
const offsetCache = new Map<number, number>();
export function utcOffsetAt(sec: number): number {
  const bucket = Math.floor(sec / 900);
  let off = offsetCache.get(bucket);
  if (off === undefined) {
    off = -new Date(bucket * 900_000).getTimezoneOffset() || 0;
    if (offsetCache.size > 50_000) offsetCache.clear();
    offsetCache.set(bucket, off);
  }
  return off;
}

/** opendir with raw-byte names, read 1024 entries per system call. */
function openDir(p: Buffer): fs.Dir {
  // @types/node types `encoding` as a BufferEncoding only; 'buffer' is supported at runtime.
  return fs.opendirSync(p, { encoding: 'buffer', bufferSize: 1024 } as unknown as fs.OpenDirOptions);
}

/** Is `path` equal to `root` or below it (both absolute, normalised)? */
function inside(root: string, path: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

function rawFromStats(name: Buffer, st: fs.BigIntStats): RawEntry {
  const mode = Number(st.mode);
  const sec = st.mtimeNs / 1_000_000_000n;
  const mtimeSec = Number(sec);
  return {
    name,
    type: typeFromMode(mode),
    size: Number(st.size),
    mtimeSec,
    mtimeNsec: Number(st.mtimeNs - sec * 1_000_000_000n),
    utcOffsetMin: utcOffsetAt(mtimeSec),
    mode,
    uid: Number(st.uid),
    gid: Number(st.gid),
    inode: Number(st.ino),
    nlink: Number(st.nlink),
    dev: Number(st.dev),
  };
}

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
  const follow = opts.followSymlinks;
  // Compared byte-exactly: both sides as latin1 strings of their bytes.
  const roots = opts.allowedRoots.map((r) => Buffer.from(nodePath.resolve(r)).toString('latin1'));
  const hardLinks = new Set<number>();
  const isCancelled = opts.isCancelled ?? (() => false);
  const onEntry = opts.onEntry;

  function full(rel: Buffer): Buffer {
    return rel.length === 0 ? rootBuf : Buffer.concat([rootBuf, SLASH, rel]);
  }

  function readLink(p: Buffer): Buffer | undefined {
    try {
      return fs.readlinkSync(p, { encoding: 'buffer' });
    } catch {
      return undefined;
    }
  }

  /** One entry: lstat, and when following symlinks, stat of the target inside the allowed roots. */
  function entryAt(name: Buffer, p: Buffer, hint: EntryType): RawEntry {
    let st: fs.BigIntStats;
    try {
      st = fs.lstatSync(p, { bigint: true });
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
      real = fs.realpathSync(p, { encoding: 'buffer' }).toString('latin1');
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
      target = fs.statSync(p, { bigint: true });
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

  function* iterate(dir: fs.Dir, base: Buffer): Generator<RawEntry, void, void> {
    try {
      for (;;) {
        if (isCancelled()) throw new WalkCancelled('walk cancelled');
        const d = dir.readSync() as fs.Dirent<Buffer> | null;
        if (d === null) return;
        onEntry?.();
        const name = d.name as unknown as Buffer;
        const type = direntType(d);
        // The directory read gives the type; lstat waits until the engine keeps the entry.
        yield type === 'unknown' ? entryAt(name, Buffer.concat([base, SLASH, name]), type) : lazyRawEntry(name, type);
      }
    } finally {
      try {
        dir.closeSync();
      } catch {
        // already closed
      }
    }
  }

  return {
    root(): RawEntry {
      return entryAt(Buffer.from(nodePath.basename(rootStr)), rootBuf, 'dir');
    },

    fill(rel: Buffer, raw: RawEntry): RawEntry {
      return entryAt(raw.name, Buffer.concat([full(rel), SLASH, raw.name]), raw.type);
    },

    list(rel: Buffer): Iterable<RawEntry> | { error: EntryError } {
      const p = full(rel);
      let dir: fs.Dir;
      try {
        dir = openDir(p);
      } catch (err) {
        return { error: entryErrorFromErrno(errnoOf(err)) };
      }
      return iterate(dir, p);
    },

    dirSize(rel: Buffer, deadlineAt: number): { size: number; partial: boolean } {
      return duApparent(full(rel), deadlineAt, isCancelled, hardLinks);
    },
  };
}

/**
 * Recursive apparent size, as `du -b --one-file-system`: the directory's own size, every
 * entry's lstat size, hard links counted once, never crossing into another device.
 */
export function duApparent(
  top: Buffer,
  deadlineAt: number,
  isCancelled: () => boolean = () => false,
  seenInodes: Set<number> = new Set(),
): { size: number; partial: boolean } {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(top);
  } catch {
    return { size: 0, partial: true };
  }
  const dev = st.dev;
  let size = st.size;
  let partial = false;
  const stack: Buffer[] = [top];
  let n = 0;
  while (stack.length > 0) {
    const dirPath = stack.pop() as Buffer;
    let dir: fs.Dir;
    try {
      dir = openDir(dirPath);
    } catch {
      partial = true;
      continue;
    }
    try {
      for (;;) {
        if ((++n & 255) === 0) {
          if (isCancelled()) throw new WalkCancelled('walk cancelled');
          if (Date.now() > deadlineAt) return { size, partial: true };
        }
        const d = dir.readSync() as fs.Dirent<Buffer> | null;
        if (d === null) break;
        const p = Buffer.concat([dirPath, SLASH, d.name as unknown as Buffer]);
        let est: fs.Stats;
        try {
          est = fs.lstatSync(p);
        } catch {
          partial = true;
          continue;
        }
        if (est.dev !== dev) continue;
        if (est.nlink > 1 && !est.isDirectory()) {
          if (seenInodes.has(est.ino)) continue;
          seenInodes.add(est.ino);
        }
        size += est.size;
        if (est.isDirectory()) stack.push(p);
      }
    } finally {
      try {
        dir.closeSync();
      } catch {
        // already closed
      }
    }
  }
  return { size, partial };
}
