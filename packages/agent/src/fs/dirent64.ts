// The records getdents64(2) writes (struct linux_dirent64), parsed: d_ino u64, d_off s64,
// d_reclen u16, d_type u8, then d_name NUL-terminated, the record padded to 8 bytes. Names
// are copied out as Buffers of their bytes (the walk's RawEntry names; a copy because the
// chunk is read over by the next call, and a byte loop because a latin1 string made first
// and turned into a Buffer cost ~5x as much per name); "." and ".." are skipped.
import { endianness } from 'node:os';
import type { EntryType } from '@fleetls/core';

const RECLEN = 16;
const TYPE = 18;
const NAME = 19;
const DOT = 0x2e;
/** The header and at least a NUL. */
const MIN_RECORD = NAME + 1;
/** The kernel writes records in the CPU's byte order. */
const LITTLE = endianness() === 'LE';

/** d_type → entry type; DT_UNKNOWN (0), DT_WHT (14) and anything else: unknown (the caller lstat's it). */
const TYPES: EntryType[] = [];
for (let t = 0; t < 256; t++) TYPES.push('unknown');
TYPES[1] = 'fifo';
TYPES[2] = 'char';
TYPES[4] = 'dir';
TYPES[6] = 'block';
TYPES[8] = 'file';
TYPES[10] = 'symlink';
TYPES[12] = 'socket';

/** The entry type of a d_type (unknown for DT_UNKNOWN and anything else). */
export function typeOfDtype(dtype: number): EntryType {
  return TYPES[dtype];
}

/** A chunk's entries: names[i] has types[i]; both emptied by each parse. */
export interface Dirents {
  names: Buffer[];
  types: EntryType[];
}

/** A record the kernel would not write (EIO: the walk lists it as that directory's error). */
function malformed(at: number, why: string): Error {
  return Object.assign(new Error(`malformed linux_dirent64 at byte ${at}: ${why}`), { code: 'EIO' });
}

/** Parses the first `length` bytes of `buf` into `out` (emptied first): every entry but "." and "..". */
export function parseDirents64(buf: Uint8Array, length: number, out: Dirents): void {
  const { names, types } = out;
  names.length = 0;
  types.length = 0;
  let at = 0;
  while (at < length) {
    if (length - at < MIN_RECORD) throw malformed(at, 'truncated header');
    const reclen = LITTLE
      ? buf[at + RECLEN] | (buf[at + RECLEN + 1] << 8)
      : (buf[at + RECLEN] << 8) | buf[at + RECLEN + 1];
    const end = at + reclen;
    if (reclen < MIN_RECORD || end > length) throw malformed(at, `record length ${reclen}`);
    const start = at + NAME;
    let stop = start;
    while (stop < end && buf[stop] !== 0) stop++;
    if (stop === end) throw malformed(at, 'name without its NUL');
    const n = stop - start;
    if (n === 0) throw malformed(at, 'empty name');
    if (!(buf[start] === DOT && (n === 1 || (n === 2 && buf[start + 1] === DOT)))) {
      const name = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) name[i] = buf[start + i];
      names.push(name);
      types.push(TYPES[buf[at + TYPE]]);
    }
    at = end;
  }
}
