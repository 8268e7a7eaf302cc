// Directories whose lstat size says they can be read in one call (fs/dir-read.ts), remembered
// from the entry's lstat until the walk lists them. Bounded: past the limit it forgets, and
// such a directory is streamed, as an unknown one is.
import type { RawEntry } from '@fleetls/core';
import { isSmallDir } from './dir-read.js';

/** Directories whose size says "read whole" that are not listed yet; forgotten past this many. */
const SMALL_DIRS_MAX = 4096;

export class SmallDirs {
  /** Relative paths (latin1). */
  private readonly dirs = new Set<string>();

  /** Remembers `name` in `rel` (or `rel` itself) when it is a directory small enough to read whole. */
  note(rel: Buffer, name: Buffer | undefined, raw: RawEntry): void {
    if (raw.type !== 'dir' || raw.error || !isSmallDir(raw.size)) return;
    if (this.dirs.size >= SMALL_DIRS_MAX) this.dirs.clear();
    const relStr = rel.toString('latin1');
    this.dirs.add(
      name === undefined
        ? relStr
        : relStr.length === 0
          ? name.toString('latin1')
          : `${relStr}/${name.toString('latin1')}`,
    );
  }

  /** Was `rel` noted (and not listed since)? Forgets it. */
  take(rel: Buffer): boolean {
    return this.dirs.size > 0 && this.dirs.delete(rel.toString('latin1'));
  }
}
