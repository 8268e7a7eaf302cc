// A TreeSource over a listing already in memory: what the SSH backend loads from one
// remote `find`, so the walk engine gives it the same answer it gives the agent.
import type { DirSize, EntryError, RawEntry, TreeSource } from '../domain/types.js';

/** One listed object: a RawEntry whose name is given as its path relative to the root. */
export type SourceRecord = Omit<RawEntry, 'name'> & { path: Buffer };

export interface MemorySourceExtras {
  /** Directories that could not be listed, keyed by relative path in latin1 ('' = root). */
  dirErrors?: Map<string, EntryError>;
  /** Recursive directory sizes (du -b --one-file-system), keyed the same way. */
  dirSizes?: Map<string, DirSize>;
}

/** Map key of a relative path: latin1 keeps every byte. */
export function pathKey(path: Buffer): string {
  return path.toString('latin1');
}

export class MemorySource implements TreeSource {
  private readonly children = new Map<string, RawEntry[]>();

  constructor(
    private readonly rootEntry: RawEntry,
    records: Iterable<SourceRecord>,
    private readonly extras: MemorySourceExtras = {},
  ) {
    for (const { path, ...fields } of records) {
      const slash = path.lastIndexOf(0x2f);
      const parent = slash < 0 ? '' : pathKey(path.subarray(0, slash));
      const name = slash < 0 ? path : path.subarray(slash + 1);
      let list = this.children.get(parent);
      if (!list) {
        list = [];
        this.children.set(parent, list);
      }
      list.push({ ...fields, name });
    }
  }

  root(): RawEntry {
    return this.rootEntry;
  }

  list(dir: Buffer): Iterable<RawEntry> | { error: EntryError } {
    const key = pathKey(dir);
    const error = this.extras.dirErrors?.get(key);
    if (error) return { error };
    return this.children.get(key) ?? [];
  }

  dirSize(dir: Buffer): DirSize {
    return this.extras.dirSizes?.get(pathKey(dir)) ?? { size: 0, partial: true };
  }
}
