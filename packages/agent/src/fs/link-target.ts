// A symlink followed (follow_symlinks) without leaving the allowed roots. Its target is
// read through its directory's descriptor and resolved by descriptor beneath the roots
// (confined-path.ts): a name outside them is refused before it is looked up, so a link to
// an outside path answers DENIED whether or not that path exists. The answer is then opened
// again from `/` one component at a time without following anything (beneath.ts), so what
// is stat'ed is what is at a path that was checked to be inside a root.
import * as fs from 'node:fs';
import { isBelow, OutsideRoots } from '@fleetls/core';
import { atFd, fdPath, openNoFollow } from './beneath.js';
import { resolveConfinedSync } from './confined-path.js';

const SLASH = Buffer.from('/');

/** The real path of what the link `name` in directory `dirFd` points to, checked inside `roots`. */
function targetInside(dirFd: number, name: Buffer, roots: readonly Buffer[]): Buffer {
  const target = fs.readlinkSync(atFd(dirFd, name), { encoding: 'buffer' });
  // A relative target starts at the link's directory: its real path, as the kernel keeps it for the descriptor.
  const from =
    target[0] === SLASH[0]
      ? target
      : Buffer.concat([fs.readlinkSync(fdPath(dirFd), { encoding: 'buffer' }), SLASH, target]);
  const real = resolveConfinedSync(from, roots, true);
  // A way down to a root (an ancestor of one) is not a place to read.
  if (!roots.some((r) => isBelow(r, real))) throw new OutsideRoots();
  return real;
}

/** Opens what the link `name` in `dirFd` points to (O_PATH; `dir`: a directory), inside the roots, by descriptor. */
export function openLinkTarget(dirFd: number, name: Buffer, roots: readonly Buffer[], dir: boolean): number {
  return openNoFollow(targetInside(dirFd, name, roots), dir);
}

/** stat of the link `name` in `dirFd`'s target, inside the roots, by descriptor. */
export function statLinkTarget(dirFd: number, name: Buffer, roots: readonly Buffer[]): fs.BigIntStats {
  const fd = openLinkTarget(dirFd, name, roots, false);
  try {
    return fs.fstatSync(fd, { bigint: true });
  } finally {
    fs.closeSync(fd);
  }
}
