// A directory read and stat'ed by the native module in one call per chunk (fsat.c
// readPacked): getdents64 on a descriptor opened from the directory's own, then statx of each
// entry on that descriptor, the results written as fixed-size records into one reused Buffer
// with the names left where getdents64 put them. Reading a record makes no object: its fields
// are read where they lie (size(), mtimeSec(), ...), and a name is copied out only for an
// entry that is kept. Where the module is not loaded, directories are read through node:fs
// (fs/dir-read.ts).
import * as fs from 'node:fs';
import { type EntryType, typeFromMode } from '@fleetls/core';
import type { CallProbe } from '../walk/call-probe.js';
import { openDirRead, readPacked, readsDents } from './fsat.js';

/**
 * d_type → entry type; DT_UNKNOWN (0), DT_WHT (14) and anything else: unknown (the caller
 * lstat's it). The packed tree walk (walk/packed-tree.ts) types a record whose statx failed by it.
 */
export const D_TYPES: EntryType[] = [];
for (let t = 0; t < 256; t++) D_TYPES.push('unknown');
D_TYPES[1] = 'fifo';
D_TYPES[2] = 'char';
D_TYPES[4] = 'dir';
D_TYPES[6] = 'block';
D_TYPES[8] = 'file';
D_TYPES[10] = 'symlink';
D_TYPES[12] = 'socket';

// fsat.c's record layout: REC bytes each, in the CPU's byte order (the typed arrays read it
// in the same); f64 slots (size, blocks, mtime second, inode, device), then int32 slots from
// byte 40 (mtime nanosecond, mode, uid, gid, nlink, name offset, name length | d_type << 16 |
// state << 24, errno).
// The walk's packed frames (walk/packed-tree.ts) hold the same records: it reads them by this.
export const RECORD = {
  REC: 72,
  F64_PER_REC: 72 / 8,
  I32_PER_REC: 72 / 4,
  /** getdents64's chunk, and the most records one can hold (a dirent64 is at least 24 bytes). */
  DENTS: 32 * 1024,
  MAX_RECORDS: Math.floor((32 * 1024) / 24) + 1,
  SIZE: 0,
  BLOCKS: 1,
  MTIME_SEC: 2,
  INO: 3,
  DEV: 4,
  MTIME_NSEC: 10,
  MODE: 11,
  UID: 12,
  GID: 13,
  NLINK: 14,
  NAME_OFF: 15,
  NAME_LEN_TYPE_STATE: 16,
  ERRNO: 17,
} as const;
const { REC, F64_PER_REC, I32_PER_REC, DENTS, MAX_RECORDS, SIZE, BLOCKS, MTIME_SEC, INO, DEV } = RECORD;
const { MTIME_NSEC, MODE, UID, GID, NLINK, NAME_OFF, NAME_LEN_TYPE_STATE, ERRNO } = RECORD;
/** The Buffer one directory read fills: the records, then getdents64's chunk. */
export const PACKED_BYTES = MAX_RECORDS * REC + DENTS;

/** A record's state: the name and d_type only (not stat'ed: its type's bit was not asked), stat'ed, or its statx failed. */
export const NAME_ONLY = 0;
export const STATED = 1;
export const FAILED = 2;

/** statMask bits: every d_type stat'ed. */
export const STAT_ALL = 0xffff_ffff;
/** statMask bits: only what a walk must stat whatever it keeps (directories to descend, DT_UNKNOWN to type). */
export const STAT_DIRS = (1 << 0) | (1 << 4);

/** Spare Buffers a thread keeps at most (a walk reads one directory while it sizes another). */
const SPARE_KEPT = 4;

/**
 * This thread's Buffers no directory is reading, for the next directory of any walk: a walker
 * thread runs one walk after another, and a Buffer made per walk (128 KiB of memory outside
 * V8's heap, malloc'd and freed each time) brought the thread's full collections sooner
 * (bench/results/structure.why.md). Taken with pop(), so no two reads ever share one.
 */
const threadSpare: Buffer[] = [];

/** One directory being read; each next() fills the records of the following chunk. */
export class PackedDir {
  /** Records of the last chunk. */
  count = 0;
  private readonly f64: Float64Array;
  private readonly i32: Int32Array;

  constructor(
    private fd: number,
    readonly buf: Buffer,
  ) {
    this.f64 = new Float64Array(buf.buffer, buf.byteOffset, buf.length >> 3);
    this.i32 = new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2);
  }

  /**
   * Reads and stats the next chunk (entries whose d_type's bit is in `statMask`); false at the
   * end. `probe` (entered on the directory's path, `dirLen` bytes of it) is told each entry.
   */
  next(statMask: number, probe: CallProbe | undefined, dirLen: number): boolean {
    this.count = readPacked(this.fd, this.buf, statMask, probe === undefined ? null : probe.bytes, dirLen);
    return this.count > 0;
  }

  state(i: number): number {
    return this.i32[i * I32_PER_REC + NAME_LEN_TYPE_STATE] >>> 24;
  }

  /** The type the directory read gave (d_type). */
  dtype(i: number): EntryType {
    return D_TYPES[(this.i32[i * I32_PER_REC + NAME_LEN_TYPE_STATE] >>> 16) & 0xff];
  }

  /** The type the stat gave (STATED only). */
  type(i: number): EntryType {
    return typeFromMode(this.mode(i));
  }

  /** statx's errno (FAILED only). */
  errno(i: number): number {
    return this.i32[i * I32_PER_REC + ERRNO];
  }

  size(i: number): number {
    return small(this.f64[i * F64_PER_REC + SIZE]);
  }

  blocks(i: number): number {
    return small(this.f64[i * F64_PER_REC + BLOCKS]);
  }

  mtimeSec(i: number): number {
    return small(this.f64[i * F64_PER_REC + MTIME_SEC]);
  }

  mtimeNsec(i: number): number {
    return this.i32[i * I32_PER_REC + MTIME_NSEC];
  }

  ino(i: number): number {
    return small(this.f64[i * F64_PER_REC + INO]);
  }

  dev(i: number): number {
    return small(this.f64[i * F64_PER_REC + DEV]);
  }

  mode(i: number): number {
    return this.i32[i * I32_PER_REC + MODE] >>> 0;
  }

  uid(i: number): number {
    return this.i32[i * I32_PER_REC + UID] >>> 0;
  }

  gid(i: number): number {
    return this.i32[i * I32_PER_REC + GID] >>> 0;
  }

  nlink(i: number): number {
    return this.i32[i * I32_PER_REC + NLINK] >>> 0;
  }

  /** The name's first byte (a hidden name's "."). */
  firstByte(i: number): number {
    return this.buf[this.i32[i * I32_PER_REC + NAME_OFF]];
  }

  /** The name, copied out of the chunk (which the next read overwrites). */
  name(i: number): Buffer {
    const off = this.i32[i * I32_PER_REC + NAME_OFF];
    const n = this.i32[i * I32_PER_REC + NAME_LEN_TYPE_STATE] & 0xffff;
    const name = Buffer.allocUnsafe(n);
    const buf = this.buf;
    for (let k = 0; k < n; k++) name[k] = buf[off + k];
    return name;
  }

  /** Closes the read descriptor and gives the Buffer back; again is a no-op. */
  close(): void {
    const fd = this.fd;
    if (fd < 0) return;
    this.fd = -1;
    if (threadSpare.length < SPARE_KEPT) threadSpare.push(this.buf);
    fs.closeSync(fd);
  }
}

/** Opens directories for packed reads, their Buffers reused across them and across this thread's walks. */
export class PackedReader {
  /** A reader where the native module is loaded; undefined where directories are read through node:fs. */
  static ifLoaded(): PackedReader | undefined {
    return readsDents() ? new PackedReader() : undefined;
  }

  private constructor() {}

  /** The directory open as O_PATH descriptor `dirFd`, opened for reading now (EACCES is thrown here). The caller closes it. */
  open(dirFd: number): PackedDir {
    // Only made where the module is loaded (ifLoaded): a descriptor, or it throws.
    const fd = openDirRead(dirFd) as number;
    // allocUnsafeSlow: a Buffer of its own memory, 8-byte aligned as the records' doubles need.
    return new PackedDir(fd, threadSpare.pop() ?? Buffer.allocUnsafeSlow(PACKED_BYTES));
  }
}

/** A double as V8's small integer where it is one (raw-stats.ts `small`: no heap number per field). */
function small(v: number): number {
  return v === (v | 0) ? v | 0 : v;
}
