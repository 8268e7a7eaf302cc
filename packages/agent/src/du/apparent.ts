// Recursive apparent size of a directory, as `du -b --one-file-system`, with its allocated
// size beside it (st_blocks × 512, as `du` without -b) and the directories it could not read,
// read by descriptor:
// each directory is opened from its parent's descriptor without following a symlink
// (beneath.ts), read from that descriptor and its entries lstat'ed through it, so a name
// swapped during the pass cannot make it count (or touch) anything outside the directory it
// started in. Where the native module is loaded a directory is read and stat'ed in one call
// per chunk (fs/packed-dir.ts) and summed from its records: no object per entry, a name
// copied only for a subdirectory to open. Else node:fs reads it through its magic link.
import * as fs from 'node:fs';
import type { DirSize } from '@fleetls/core';
import { fdPath, O_PATH, openAt, openNoFollow } from '../fs/beneath.js';
import { isSmallDir, openDirBytes } from '../fs/dir-read.js';
import { FAILED, type PackedDir, PackedReader, STAT_ALL, STATED } from '../fs/packed-dir.js';
import { type CallProbe, watched } from '../walk/call-probe.js';
import { WalkCancelled } from '../walk/cancelled.js';
import { type DuStat, duStat } from './entry-stat.js';
import { cutShort, type DirSizeKeep, dirSizeOf, keepSizes, rollUp, type SizedDir } from './sums.js';

const SLASH = Buffer.from('/');

/** An open directory of the pass, closed when it is read and none of its subdirectories waits to be opened from it. */
interface DirRef {
  fd: number;
  refs: number;
}

/** A directory waiting to be read: opened from `parent` by `name`; `whole`: small enough to read in one call. */
interface DuDir {
  /** Its path, for the hung-mount probe and skip list (never opened by it). */
  path: Buffer;
  parent: DirRef;
  name: Buffer;
  into: number;
  level: number;
  whole: boolean;
}

export interface DuOptions {
  isCancelled?: () => boolean;
  /** Each entry read, as a walk's source counts them: a long sizing pass is seen to move. */
  onEntry?: () => void;
  /** Inodes with more than one link already counted (shared by one walk's passes). */
  seenInodes?: Set<number>;
  probe?: CallProbe;
  /** The TIMEOUT detail of a path on a hung mount; absent when no mount is skipped. */
  skippedAt?: (p: Buffer) => string | undefined;
  keep?: DirSizeKeep;
  /** The walk's packed reader (its Buffers reused); default: a new one where the native module is loaded. */
  packed?: PackedReader;
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

/** A directory that could not be opened or read at all. */
export const UNREADABLE_DIR: DirSize = Object.freeze({ size: 0, partial: true, allocated: 0, unreadableDirs: 1 });

/** duApparentAt of a real absolute path, opened from `/` without following a symlink. */
export function duApparent(top: Buffer, deadlineAt: number, opts: DuOptions = {}): DirSize {
  let fd: number;
  try {
    fd = watched(opts.probe, top, () => openNoFollow(top, true));
  } catch {
    return { ...UNREADABLE_DIR };
  }
  try {
    return duApparentAt(top, fd, deadlineAt, opts);
  } finally {
    fs.closeSync(fd);
  }
}

/** A directory waiting to be read: one to open from its parent, or the top, "opened" from itself. */
type Pending = DuDir | { path: Buffer; ref: DirRef; into: number; level: number; whole: boolean };

/** One pass's state: what it counts into, what waits to be read, the descriptors it holds. */
interface DuPass {
  readonly probe: CallProbe | undefined;
  readonly isCancelled: () => boolean;
  readonly onEntry: (() => void) | undefined;
  readonly seenInodes: Set<number>;
  /** Undefined when no mount is skipped: then no entry's path is made to look it up. */
  readonly skippedAt: ((p: Buffer) => string | undefined) | undefined;
  /** Undefined where the native module is not loaded: directories are read through node:fs. */
  readonly packed: PackedReader | undefined;
  readonly deadlineAt: number;
  /** The top's device: an entry on another is not counted. */
  readonly dev: number;
  /** How many levels below the top are sized on their own (keep.levels). */
  readonly levels: number;
  /** sized[0] is the top; a directory deeper than `levels` adds to its nearest sized ancestor. */
  readonly sized: SizedDir[];
  readonly stack: Pending[];
  /** Every descriptor the pass holds, closed when it ends however it ends. */
  readonly open: Set<DirRef>;
  /** Entries read so far: cancellation and the deadline are checked every 256. */
  n: number;
}

/**
 * Recursive apparent size of the directory open as `topFd` (its path `top`), as `du -b
 * --one-file-system`: the directory's own size, every entry's lstat size, hard links counted
 * once, never crossing into another device. With `keep`, the sizes of the directories down
 * to `keep.levels` below are kept in its memo. `topFd` stays the caller's.
 */
export function duApparentAt(top: Buffer, topFd: number, deadlineAt: number, opts: DuOptions = {}): DirSize {
  const { probe, keep } = opts;
  let own: number;
  try {
    // A descriptor of its own (the magic link is followed: it is the directory itself).
    own = watched(probe, top, () => fs.openSync(fdPath(topFd), O_PATH | fs.constants.O_DIRECTORY));
  } catch {
    return { ...UNREADABLE_DIR };
  }
  const topRef: DirRef = { fd: own, refs: 1 };
  const open = new Set<DirRef>([topRef]);
  try {
    let st: fs.Stats;
    try {
      st = watched(probe, top, () => fs.fstatSync(own));
    } catch {
      return { ...UNREADABLE_DIR };
    }
    const pass: DuPass = {
      probe,
      isCancelled: opts.isCancelled ?? (() => false),
      onEntry: opts.onEntry,
      seenInodes: opts.seenInodes ?? new Set<number>(),
      skippedAt: opts.skippedAt,
      packed: opts.packed ?? PackedReader.ifLoaded(),
      deadlineAt,
      dev: st.dev,
      levels: keep === undefined ? 0 : keep.levels,
      sized: [
        { size: st.size, allocated: st.blocks * 512, partial: false, unreadable: 0, up: -1, rel: keep?.rel ?? '' },
      ],
      // The top is "opened" from itself: its ref is taken over by the first pop.
      stack: [{ path: top, ref: topRef, into: 0, level: 0, whole: isSmallDir(st.size) }],
      open,
      n: 0,
    };
    while (pass.stack.length > 0) {
      const cut = readPending(pass, pass.stack.pop() as DuDir & { ref?: DirRef });
      if (cut !== undefined) return cut;
    }
    rollUp(pass.sized);
    if (keep !== undefined) keepSizes(keep, pass.sized);
    return dirSizeOf(pass.sized[0]);
  } finally {
    for (const ref of open) {
      try {
        fs.closeSync(ref.fd);
      } catch {
        // already closed
      }
    }
  }
}

function release(pass: DuPass, ref: DirRef): void {
  if (--ref.refs > 0) return;
  pass.open.delete(ref);
  fs.closeSync(ref.fd);
}

/**
 * A directory that could not be opened or listed, on any read route: its sum is partial and
 * counts one unreadable directory more; `ref`, when it was opened, is let go. Undefined, as
 * readPending returns for "no cut".
 */
function unreadable(at: SizedDir, pass?: DuPass, ref?: DirRef): undefined {
  at.partial = true;
  at.unreadable++;
  if (pass !== undefined && ref !== undefined) release(pass, ref);
  return undefined;
}

/** Opens and reads one waiting directory; past the deadline, the pass's partial sum (else undefined). */
function readPending(pass: DuPass, next: DuDir & { ref?: DirRef }): DirSize | undefined {
  const { probe } = pass;
  const { path: dirPath, whole } = next;
  const at = pass.sized[next.into];
  let ref: DirRef;
  if (next.ref !== undefined) ref = next.ref;
  else {
    let fd: number;
    try {
      fd = watched(probe, dirPath, () => openAt(next.parent.fd, next.name, true));
    } catch {
      return unreadable(at);
    } finally {
      release(pass, next.parent);
    }
    ref = { fd, refs: 1 };
    pass.open.add(ref);
  }
  const { packed } = pass;
  if (packed !== undefined) {
    let dir: PackedDir;
    try {
      dir = watched(probe, dirPath, () => packed.open(ref.fd));
    } catch {
      return unreadable(at, pass, ref);
    }
    try {
      return readPacked(pass, next, ref, dir);
    } catch (err) {
      if (err instanceof WalkCancelled) throw err;
      // The read failed midway (EIO): what it counted stands, the directory is partial.
      at.partial = true;
      return undefined;
    } finally {
      try {
        watched(probe, dirPath, () => dir.close());
      } catch {
        // already closed
      }
      release(pass, ref);
    }
  }
  let names: Iterator<Buffer>;
  try {
    const link = Buffer.from(fdPath(ref.fd));
    names = whole
      ? (watched(probe, dirPath, () => fs.readdirSync(link, { encoding: 'buffer' })) as Buffer[]).values()
      : dirNames(
          dirPath,
          watched(probe, dirPath, () => openDirBytes(link)),
          probe,
        );
  } catch {
    return unreadable(at, pass, ref);
  }
  try {
    for (;;) {
      if ((++pass.n & 255) === 0) {
        if (pass.isCancelled()) throw new WalkCancelled('walk cancelled');
        if (Date.now() > pass.deadlineAt) return cutShort(pass.sized);
      }
      const step = names.next();
      if (step.done) return undefined;
      pass.onEntry?.();
      countEntry(pass, next, ref, step.value);
    }
  } finally {
    names.return?.();
    release(pass, ref);
  }
}

/**
 * A directory read and stat'ed by the native module, summed from its records. Every entry is
 * stat'ed as it is read, unless a hung mount is skipped: then none is, and each goes through
 * countEntry, which checks its path first.
 */
function readPacked(pass: DuPass, next: Pending, ref: DirRef, dir: PackedDir): DirSize | undefined {
  const { probe, seenInodes, dev } = pass;
  const at = pass.sized[next.into];
  const mask = pass.skippedAt === undefined ? STAT_ALL : 0;
  for (;;) {
    let more: boolean;
    if (probe !== undefined) {
      const held = probe.enter(next.path);
      try {
        more = dir.next(mask, probe, held);
      } finally {
        probe.leave();
      }
    } else more = dir.next(mask, undefined, 0);
    if (!more) return undefined;
    if (pass.isCancelled()) throw new WalkCancelled('walk cancelled');
    if (Date.now() > pass.deadlineAt) return cutShort(pass.sized);
    const count = dir.count;
    for (let i = 0; i < count; i++) {
      pass.onEntry?.();
      const state = dir.state(i);
      if (state === FAILED) {
        at.partial = true;
        continue;
      }
      if (state !== STATED) {
        countEntry(pass, next, ref, dir.name(i));
        continue;
      }
      if (dir.dev(i) !== dev) continue;
      if (dir.type(i) === 'dir') {
        queueDir(pass, next, ref, dir.name(i), dir.size(i), dir.blocks(i));
        continue;
      }
      if (dir.nlink(i) > 1) {
        const ino = dir.ino(i);
        if (seenInodes.has(ino)) continue;
        seenInodes.add(ino);
      }
      at.size += dir.size(i);
      at.allocated += dir.blocks(i) * 512;
    }
  }
}

/** One entry of a directory being read (open as `ref`): its size counted, or a directory queued. */
function countEntry(pass: DuPass, dir: Pending, ref: DirRef, name: Buffer): void {
  const { into } = dir;
  const at = pass.sized[into];
  const p = Buffer.concat([dir.path, SLASH, name]);
  // A mount below is another device (never counted), so only a hung one's point is checked.
  if (pass.skippedAt?.(p) !== undefined) {
    at.partial = true;
    return;
  }
  let est: DuStat;
  try {
    est = watched(pass.probe, p, () => duStat(ref.fd, name));
  } catch {
    at.partial = true;
    return;
  }
  if (est.dev !== pass.dev) return;
  if (!est.dir) {
    if (est.nlink > 1) {
      if (pass.seenInodes.has(est.ino)) return;
      pass.seenInodes.add(est.ino);
    }
    at.size += est.size;
    at.allocated += est.blocks * 512;
    return;
  }
  queueDir(pass, dir, ref, name, est.size, est.blocks, p);
}

/** A subdirectory of a directory being read (open as `ref`): its own size counted, it queued to be read. */
function queueDir(
  pass: DuPass,
  dir: Pending,
  ref: DirRef,
  name: Buffer,
  size: number,
  blocks: number,
  p = Buffer.concat([dir.path, SLASH, name]),
): void {
  const { into, level } = dir;
  const at = pass.sized[into];
  const small = isSmallDir(size);
  ref.refs++;
  if (level + 1 > pass.levels) {
    at.size += size;
    at.allocated += blocks * 512;
    pass.stack.push({ path: p, parent: ref, name, into, level: level + 1, whole: small });
  } else {
    pass.sized.push({
      size,
      allocated: blocks * 512,
      partial: false,
      unreadable: 0,
      up: into,
      rel: `${at.rel}/${name.toString('latin1')}`,
    });
    pass.stack.push({ path: p, parent: ref, name, into: pass.sized.length - 1, level: level + 1, whole: small });
  }
}
