// The descriptors of the directories one walk reads, by path relative to the walk's root:
// each is opened from its parent's descriptor without following a symlink (beneath.ts), so
// a name swapped for a symlink while the walk runs cannot lead it out of its root. The
// engine goes depth first and comes back to the directories on its way down (to complete
// their kept children), so those stay open: at most MAX_OPEN_DIRS, the least recently used
// closed first; one closed is opened again from its nearest open ancestor.
// A descriptor's number is used only right after fdOf() returns it: once closed, the
// number may be another thread's.
import * as fs from 'node:fs';
import { errnoOf } from '@fleetls/core';
import { openAt } from './beneath.js';

export const MAX_OPEN_DIRS = 64;

/** Opens the directory a symlink `name` in `parentFd` points to (follow_symlinks), or throws. */
export type FollowLink = (parentFd: number, name: Buffer) => number;

export class DirHandles {
  private readonly open = new Map<string, number>();
  /**
   * The last directory asked for and its descriptor: the entries of one directory ask for it
   * in a row with the same Buffer, so they skip the key's string and the Map's reordering.
   * Forgotten whenever a descriptor is closed, so a cached number is always still open.
   */
  private lastRel: Buffer | undefined;
  private lastFd = -1;

  /** `rootFd` is owned from now on (closed by close()). */
  constructor(
    private readonly rootFd: number,
    private readonly followLink?: FollowLink,
  ) {}

  /** The descriptor of `rel` when fdOf() would return it without a system call (the root, or the last asked for). */
  held(rel: Buffer): number | undefined {
    if (rel.length === 0) return this.rootFd;
    if (rel === this.lastRel) return this.lastFd;
    return undefined;
  }

  /** The descriptor of directory `rel` (empty: the root); throws the errno error when it cannot be opened. */
  fdOf(rel: Buffer): number {
    if (rel.length === 0) return this.rootFd;
    if (rel === this.lastRel) return this.lastFd;
    const fd = this.lookup(rel);
    this.lastRel = rel;
    this.lastFd = fd;
    return fd;
  }

  private lookup(rel: Buffer): number {
    const key = rel.toString('latin1');
    const held = this.open.get(key);
    if (held !== undefined) {
      // Most recently used last: the Map's order is the eviction order.
      this.open.delete(key);
      this.open.set(key, held);
      return held;
    }
    const slash = rel.lastIndexOf(0x2f);
    const parent = slash < 0 ? this.rootFd : this.lookup(rel.subarray(0, slash));
    const name = slash < 0 ? rel : rel.subarray(slash + 1);
    let fd: number;
    try {
      fd = openAt(parent, name, true);
    } catch (err) {
      const code = errnoOf(err);
      if (this.followLink === undefined || (code !== 'ENOTDIR' && code !== 'ELOOP')) throw err;
      fd = this.followLink(parent, name);
    }
    if (this.open.size >= MAX_OPEN_DIRS) {
      // The oldest is never `parent`: it was used just now.
      const [oldKey, oldFd] = this.open.entries().next().value as [string, number];
      this.open.delete(oldKey);
      this.lastRel = undefined;
      close(oldFd);
    }
    this.open.set(key, fd);
    return fd;
  }

  close(): void {
    this.lastRel = undefined;
    for (const fd of this.open.values()) close(fd);
    this.open.clear();
    close(this.rootFd);
  }
}

function close(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}
