// The dir-size command's output (find/command.ts's buildDirSizeCommand): du's sizes of
// every directory, apparent and allocated, marked partial above what du could not read.
import type { DirSize } from '../domain/types.js';

/**
 * The dir-size command's output → sizes keyed like MemorySource (latin1 relative path,
 * '' = the path), with du -B1's allocated bytes after the `A` record. A size is partial when
 * an unreadable directory lies at or below it, and counts them.
 */
export function parseDirSizes(out: Buffer): Map<string, DirSize> {
  const denied: Buffer[] = [];
  const sizes = new Map<string, DirSize>();
  let allocated = false;
  let start = 0;
  for (;;) {
    const nul = out.indexOf(0, start);
    if (nul < 0) break;
    const item = out.subarray(start, nul);
    start = nul + 1;
    if (item[0] === 0x45 /* E */) {
      denied.push(item.subarray(1));
      continue;
    }
    if (item.length === 1 && item[0] === 0x41 /* A */) {
      allocated = true;
      continue;
    }
    const tab = item.indexOf(0x09);
    if (tab < 0) continue;
    const size = Number(item.subarray(0, tab).toString('latin1'));
    let p = item.subarray(tab + 1);
    if (p.length === 1 && p[0] === 0x2e) p = Buffer.alloc(0);
    else if (p[0] === 0x2e && p[1] === 0x2f) p = p.subarray(2);
    if (!Number.isFinite(size)) continue;
    const key = p.toString('latin1');
    if (!allocated) sizes.set(key, { size, partial: false });
    else {
      const s = sizes.get(key);
      if (s) s.allocated = size;
    }
  }
  for (const d of denied) {
    // The unreadable directory and each of its ancestors.
    let key = d.toString('latin1');
    for (;;) {
      const s = sizes.get(key);
      if (s) {
        s.partial = true;
        s.unreadableDirs = (s.unreadableDirs ?? 0) + 1;
      }
      if (key === '') break;
      const slash = key.lastIndexOf('/');
      key = slash < 0 ? '' : key.slice(0, slash);
    }
  }
  return sizes;
}
