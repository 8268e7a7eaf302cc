// A symlink followed (follow_symlinks) without leaving the allowed roots. The kernel's own
// resolution of the link (realpath of `/proc/self/fd/N/<name>`) is only a hint: it reads
// paths by string and may be raced. The answer is the hint opened again from `/` one
// component at a time without following anything (beneath.ts), so what is stat'ed is what
// is at a path that was checked to be inside a root, never a link swapped in meanwhile.
import * as fs from 'node:fs';
import { openNoFollow } from './beneath.js';
import { under } from './mounts.js';

/** Thrown when a link's target is outside every allowed root. */
export class OutsideRoots extends Error {
  override name = 'OutsideRoots';
  /** As errno EACCES: a directory listing that meets it shows a DENIED row. */
  readonly code = 'EACCES';
}

/** The real path (latin1) of what `at` (a `/proc/self/fd/N/<name>` path) resolves to, checked inside `roots`. */
function targetInside(at: Buffer, roots: readonly string[]): Buffer {
  const real = fs.realpathSync.native(at, { encoding: 'buffer' });
  const s = real.toString('latin1');
  if (!roots.some((r) => under(r, s))) throw new OutsideRoots('symlink target outside allowed roots');
  return real;
}

/** Opens what the link `at` points to (O_PATH; `dir`: a directory), inside the roots, by descriptor. */
export function openLinkTarget(at: Buffer, roots: readonly string[], dir: boolean): number {
  return openNoFollow(targetInside(at, roots), dir);
}

/** stat of the link `at`'s target, inside the roots, by descriptor. */
export function statLinkTarget(at: Buffer, roots: readonly string[]): fs.BigIntStats {
  const fd = openLinkTarget(at, roots, false);
  try {
    return fs.fstatSync(fd, { bigint: true });
  } finally {
    fs.closeSync(fd);
  }
}
