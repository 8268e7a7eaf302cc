// A directory read by the native module (fsat.ts): a descriptor for reading opened from its
// O_PATH descriptor (openat(N, "."): no path, no lookup beyond the directory itself), its
// records read a chunk at a time by getdents64 into a reused Buffer and parsed (dirent64.ts),
// so a directory of millions of entries is never held whole. Where the module is not loaded,
// directories are read through node:fs instead (fs/dir-read.ts).
import * as fs from 'node:fs';
import type { EntryType } from '@fleetls/core';
import { type CallProbe, watched } from '../walk/call-probe.js';
import { type Dirents, parseDirents64 } from './dirent64.js';
import { openDirRead, readDents, readsDents } from './fsat.js';

/** Bytes per getdents64 call: some 1,000 entries of short names. */
export const CHUNK_BYTES = 32 * 1024;

/** One directory being read: each next() fills `names` and `types` with the following chunk's entries. */
export class DirReading implements Dirents {
  names: Buffer[] = [];
  types: EntryType[] = [];

  constructor(
    private fd: number,
    private readonly chunk: Buffer,
    private readonly spare: Buffer[],
  ) {}

  /** Reads and parses the next chunk (it may hold no entry but "." and ".."); false at the end of the directory. */
  next(): boolean {
    const n = readDents(this.fd, this.chunk);
    if (n === 0) return false;
    parseDirents64(this.chunk, n, this);
    return true;
  }

  /** Closes the read descriptor and gives the chunk back; again is a no-op. */
  close(): void {
    const fd = this.fd;
    if (fd < 0) return;
    this.fd = -1;
    this.spare.push(this.chunk);
    fs.closeSync(fd);
  }
}

/** Closes `reading` under the probe; a close that fails (already closed) is not the read's error. */
export function closeReading(probe: CallProbe | undefined, path: Buffer, reading: DirReading): void {
  try {
    watched(probe, path, () => reading.close());
  } catch {
    // already closed
  }
}

/** Opens directories for reading, with chunk buffers reused across them (a walk reads one while it sizes another). */
export class DentsReader {
  private readonly spare: Buffer[] = [];

  /** A reader where the native module is loaded; undefined where directories are read through node:fs. */
  static ifLoaded(): DentsReader | undefined {
    return readsDents() ? new DentsReader() : undefined;
  }

  private constructor() {}

  /**
   * The directory open as O_PATH descriptor `dirFd`, opened for reading now (so EACCES is
   * thrown here, as the directory's error). The caller closes it, however the read ends.
   */
  open(dirFd: number): DirReading {
    // Only made where the module is loaded (ifLoaded): a descriptor, or it throws.
    const fd = openDirRead(dirFd) as number;
    return new DirReading(fd, this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES), this.spare);
  }
}
