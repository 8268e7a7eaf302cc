// The agent's one native module (native/fsat.c) as the walk calls it: lstat and open
// (O_PATH) of a name in an open directory, by statx(2) and openat(2) on its descriptor, and
// the directory's own read, by openat(N, ".") and getdents64(2); and, for a request's path,
// its directories opened one in the other in one task on libuv's pool (openDirsAsync).
// Where the module is absent the walk goes through the directory descriptor's magic link
// /proc/self/fd/N/<name> (beneath.ts). Both are confined to the directory; the module's is
// one lookup where the magic link costs the kernel two (walk.why.md). The module is found
// beside this file (a build, an npm install), or, in the self-contained executable, in
// /usr/lib/<executable's name>/ as the packages install it, or beside the executable; failing
// those, the executable carries it as an asset, so a copied executable alone still walks natively.
// FLEETLS_NATIVE=0 turns it off (the A/B bench, the fallback's tests). Loaded once per
// thread: a process fact, like the find probe.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getSystemErrorName } from 'node:util';

/** What native/fsat.c exports. */
interface Fsat {
  /** statx(dirFd, name, AT_SYMLINK_NOFOLLOW) into `out` (FIELDS' order): 0, or the errno. */
  lstatAt(dirFd: number, name: Buffer, out: Float64Array): number;
  /** openat(dirFd, name, O_PATH|O_NOFOLLOW|O_CLOEXEC[|O_DIRECTORY]): the descriptor, or -errno. */
  openAt(dirFd: number, name: Buffer, dir: boolean): number;
  /** openat(dirFd, ".", O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC): the descriptor, or -errno. */
  openDirRead(dirFd: number): number;
  /**
   * One getdents64 chunk of directory `fd` (from openDirRead) with each entry whose d_type's
   * bit is in statMask statx'ed on `fd`, as packed records in `buf` (packed-dir.ts): their
   * count, 0 at the end, or -errno. `probe`: the walk's probe bytes, its path the directory's
   * (`dirLen` bytes), or null.
   */
  readPacked(fd: number, buf: Buffer, statMask: number, probe: Uint8Array | null, dirLen: number): number;
  /**
   * getdents64 chunks of directory `fd` appended to an arena (packed-tree.ts): 1 at the end, 0
   * when `recs` or `names` must grow first, or -errno.
   */
  readArena(
    fd: number,
    recs: Buffer,
    names: Buffer,
    dents: Buffer,
    eagerUpTo: number,
    skipHidden: boolean,
    probe: Uint8Array | null,
    dirLen: number,
  ): number;
  /** The arena's records in name order, the first `limit` kept: a new frame Buffer (`whole`), or in place. */
  sortArena(recs: Buffer, names: Buffer, limit: number, descending: boolean, whole: boolean): Buffer | undefined;
  /** Each stat'ed record's UTC offset from utc-offset.ts's cache (OFFSET_UNKNOWN where it has none): how many it had none for. */
  fillOffsets(frame: Buffer, buckets: Int32Array, minutes: Int16Array): number;
  /** Records from..to-1 of a frame encoded as WalkResponse rows into `out` (io: [pos, byteLimit, maxRows, rows, afterDir]): the next record. */
  encodeRows(
    frame: Buffer,
    from: number,
    to: number,
    dir: Buffer,
    depth: number,
    out: Uint8Array,
    io: Int32Array,
    wire: Int32Array,
  ): number;
  /** poll(2) of a /proc/self/mountinfo descriptor for POLLPRI: 1 changed since its last poll, 0 not, or -errno. */
  mountsChanged(fd: number): number;
  /**
   * openAt(…, true) of each name in the directory the previous one opened, on libuv's pool in
   * one task, until one is not a directory: the descriptors opened (none when `last` and all
   * were: it closed them), then what the next name is (undefined: none left; its target: a
   * symlink; 0: anything else; -errno: its `syscall` failed).
   */
  openDirs(
    dirFd: number,
    names: Buffer[],
    last: boolean,
  ): Promise<[fds: number[], next: Buffer | number | undefined, syscall?: string]>;
}

/** The order fsat.c writes an lstat into its Float64Array. */
export const FIELDS = {
  mode: 0,
  size: 1,
  mtimeSec: 2,
  mtimeNsec: 3,
  uid: 4,
  gid: 5,
  ino: 6,
  nlink: 7,
  dev: 8,
  blocks: 9,
} as const;

const MODULE_FILE = 'fsat.node';

/** Where the module may be, in order: the executable's places, else beside this file. */
function candidates(): string[] {
  if (isSea()) {
    const exe = process.execPath;
    return [
      path.join(path.dirname(exe), '..', 'lib', path.basename(exe), MODULE_FILE),
      path.join(path.dirname(exe), MODULE_FILE),
    ];
  }
  try {
    const here = new URL(MODULE_FILE, import.meta.url);
    return here.protocol === 'file:' ? [fileURLToPath(here)] : [];
  } catch {
    return []; // no file URL to be beside
  }
}

interface Sea {
  isSea(): boolean;
  getRawAsset(key: string): ArrayBuffer;
}

function sea(): Sea | undefined {
  try {
    const m = process.getBuiltinModule?.('node:sea') as Sea | undefined;
    return m?.isSea() ? m : undefined;
  } catch {
    return undefined;
  }
}

const isSea = (): boolean => sea() !== undefined;

/**
 * The executable's own copy of the module (its SEA asset, scripts/package/sea.mjs) written
 * into a fresh directory only this user can enter (mkdtemp: 0700) and handed to `use`; the
 * file is removed once loaded (a loaded object needs no path). Each thread loads its own.
 */
function withAsset<T>(use: (file: string) => T): T | undefined {
  let bytes: ArrayBuffer;
  try {
    bytes = (sea() as Sea).getRawAsset(MODULE_FILE);
  } catch {
    return undefined; // an executable built without it
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetls-fsat-'));
  try {
    const file = path.join(dir, MODULE_FILE);
    writeFileSync(file, new Uint8Array(bytes), { mode: 0o500, flag: 'wx' });
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CALLS: readonly (keyof Fsat)[] = [
  'lstatAt',
  'openAt',
  'openDirRead',
  'readPacked',
  'readArena',
  'sortArena',
  'fillOffsets',
  'encodeRows',
  'mountsChanged',
  'openDirs',
];

interface Loaded {
  fsat: Fsat | undefined;
  /** How entries are stat'ed, for the agent's start line. */
  route: string;
}

/** dlopen of `file`: the module, or why not (added to `tried`). */
function open(file: string, tried: string[]): Fsat | undefined {
  const m = { exports: {} as Partial<Fsat> };
  try {
    process.dlopen(m, file, osConstants.dlopen.RTLD_NOW);
  } catch (err) {
    tried.push(`${file}: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
  if (CALLS.every((c) => typeof m.exports[c] === 'function')) return m.exports as Fsat;
  tried.push(`${file}: not this agent's module (no ${CALLS.join(', ')})`);
  return undefined;
}

function load(): Loaded {
  if (process.env.FLEETLS_NATIVE === '0') return { fsat: undefined, route: 'proc-fd (FLEETLS_NATIVE=0)' };
  const tried: string[] = [];
  for (const file of candidates()) {
    const fsat = open(file, tried);
    if (fsat) return { fsat, route: `fstatat (${file})` };
  }
  if (isSea()) {
    try {
      const fsat = withAsset((file) => open(file, tried));
      if (fsat) return { fsat, route: `fstatat (the executable's own ${MODULE_FILE})` };
    } catch (err) {
      tried.push(`the executable's own ${MODULE_FILE}: ${(err as Error).message}`);
    }
  }
  return { fsat: undefined, route: `proc-fd (no native module: ${tried.join('; ') || 'none looked for'})` };
}

let loaded: Loaded | undefined;
const loadedOnce = (): Loaded => {
  loaded ??= load();
  return loaded;
};

/** How this process stats entries: "fstatat (<file>)" or "proc-fd (<why>)". */
export function statRoute(): string {
  return loadedOnce().route;
}

const out = new Float64Array(10);
const errors = new Map<number, string>();

/**
 * lstat of `name` in directory descriptor `dirFd` by fstatat: the fields (FIELDS), in one
 * array reused by the next call; undefined when the module is not loaded. Throws an Error
 * with the errno's `code`, as node:fs does.
 */
export function lstatAt(dirFd: number, name: Buffer): Float64Array | undefined {
  const fsat = (loaded ?? loadedOnce()).fsat;
  if (fsat === undefined) return undefined;
  const errno = fsat.lstatAt(dirFd, name, out);
  if (errno === 0) return out;
  throw errnoError(errno, 'lstat');
}

/**
 * An O_PATH descriptor of `name` in directory `dirFd`, not followed if it is a symlink
 * (`dir`: it must be a directory); undefined when the module is not loaded. Throws as lstatAt.
 */
export function openPathAt(dirFd: number, name: Buffer, dir: boolean): number | undefined {
  const fsat = (loaded ?? loadedOnce()).fsat;
  if (fsat === undefined) return undefined;
  const fd = fsat.openAt(dirFd, name, dir);
  if (fd >= 0) return fd;
  throw errnoError(-fd, 'open');
}

/** Whether the module is loaded: directories are then read by readPacked, not through node:fs. */
export function readsDents(): boolean {
  return (loaded ?? loadedOnce()).fsat !== undefined;
}

/**
 * A descriptor of directory `dirFd` open for reading (its "." opened: no other lookup);
 * undefined when the module is not loaded. Throws as lstatAt (EACCES: not listable).
 */
export function openDirRead(dirFd: number): number | undefined {
  const fsat = (loaded ?? loadedOnce()).fsat;
  if (fsat === undefined) return undefined;
  const fd = fsat.openDirRead(dirFd);
  if (fd >= 0) return fd;
  throw errnoError(-fd, 'opendir');
}

/**
 * The next chunk of directory `fd` (from openDirRead) read and stat'ed into `buf` as packed
 * records (packed-dir.ts): how many, 0 at the end. Only called where openDirRead gave a
 * descriptor. Throws as lstatAt.
 */
export function readPacked(
  fd: number,
  buf: Buffer,
  statMask: number,
  probe: Uint8Array | null,
  dirLen: number,
): number {
  const n = ((loaded ?? loadedOnce()).fsat as Fsat).readPacked(fd, buf, statMask, probe, dirLen);
  if (n >= 0) return n;
  throw errnoError(-n, 'getdents64');
}

/**
 * The module's calls for a tree walk over packed records (walk/packed-tree.ts); undefined when
 * it is not loaded. readArena's -errno is thrown as lstatAt throws.
 */
export function packedCalls(): Pick<Fsat, 'readArena' | 'sortArena' | 'fillOffsets' | 'encodeRows'> | undefined {
  const fsat = (loaded ?? loadedOnce()).fsat;
  if (fsat === undefined) return undefined;
  return {
    readArena(fd, recs, names, dents, eagerUpTo, skipHidden, probe, dirLen) {
      const r = fsat.readArena(fd, recs, names, dents, eagerUpTo, skipHidden, probe, dirLen);
      if (r >= 0) return r;
      throw errnoError(-r, 'getdents64');
    },
    sortArena: (recs, names, limit, descending, whole) => fsat.sortArena(recs, names, limit, descending, whole),
    fillOffsets: (frame, buckets, minutes) => fsat.fillOffsets(frame, buckets, minutes),
    encodeRows: (frame, from, to, dir, depth, out, io, wire) =>
      fsat.encodeRows(frame, from, to, dir, depth, out, io, wire),
  };
}

/** The name node:fs gives an errno (ENOENT, EACCES), as an Error's code. */
export function errnoCode(errno: number): string {
  let code = errors.get(errno);
  if (code === undefined) {
    code = getSystemErrorName(-errno);
    errors.set(errno, code);
  }
  return code;
}

/**
 * Whether the mount table changed since the last call with this /proc/self/mountinfo
 * descriptor (or since it was opened): the kernel says so by POLLPRI. Undefined when the
 * module is not loaded or the poll failed: then the caller cannot know, and reads the table.
 */
export function mountsChanged(mountinfoFd: number): boolean | undefined {
  const fsat = (loaded ?? loadedOnce()).fsat;
  if (fsat === undefined) return undefined;
  const r = fsat.mountsChanged(mountinfoFd);
  return r < 0 ? undefined : r === 1;
}

/** What openDirsAsync found: the directories opened, then what the name after them is. */
export interface OpenedDirs {
  /**
   * O_PATH descriptors of the names opened as directories, in order: the caller closes them.
   * Empty when `last` was asked and every name was a directory (the task closed them).
   */
  fds: number[];
  /**
   * The name after them: undefined when there was none, a symlink's target, 'other' for
   * anything else, or its lookup's error (as node:fs throws it).
   */
  next: Buffer | 'other' | Error | undefined;
}

/**
 * `names` opened one in the other from directory `dirFd`, as directories never through a
 * symlink, in one task on libuv's pool (node:fs makes one per call): until one is not a
 * directory, whose symlink target is then read in the same task. `last`: no descriptor is
 * wanted if every name is a directory (the task closes them: no close on the caller's thread).
 * Only called where readsDents() (the module is loaded). Throws a TypeError for a name that
 * is not one component, or for more than 2048 names; a lookup's failure is `next`.
 */
export function openDirsAsync(dirFd: number, names: Buffer[], last: boolean): Promise<OpenedDirs> {
  const fsat = (loaded ?? loadedOnce()).fsat as Fsat;
  return fsat.openDirs(dirFd, names, last).then(([fds, next, syscall]) => ({
    fds,
    next: typeof next !== 'number' ? next : next === 0 ? 'other' : errnoError(-next, syscall ?? 'open'),
  }));
}

/** An Error as node:fs throws it: its `code` the errno's name. */
function errnoError(errno: number, syscall: string): Error {
  const code = errnoCode(errno);
  return Object.assign(new Error(`${code}: ${syscall}`), { code, errno: -errno, syscall });
}
