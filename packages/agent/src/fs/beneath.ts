// Confinement by descriptor. A path string is re-resolved by the kernel from `/` on every
// call, so a component swapped for a symlink after a check leads wherever the link points.
// Here every object is reached from a directory already open: by openat(N, name) through
// the agent's native module (fsat.ts), or, without it, by `/proc/self/fd/N/<name>` (the
// kernel jumps to descriptor N's directory and looks up `name` in it; only that magic link
// is followed). An absolute real path is opened one component at a time with O_NOFOLLOW,
// so what is reached is what is at that path now, never a symlink's target: a lexical check
// of that path (it is inside an allowed root) is then exact. Directories are held as O_PATH descriptors (no read permission needed, as a
// path lookup needs none); a directory is read from its descriptor's "." (openat(N, ".") and
// getdents64, fs/packed-dir.ts), or, without the module, by opening its magic link.
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { pathComponents as components } from '@fleetls/core';
import { openPathAt } from './fsat.js';

/** Linux O_PATH (asm-generic, x86-64, arm64); Node does not export it. */
export const O_PATH = 0o10000000;
const { O_DIRECTORY, O_NOFOLLOW } = fs.constants;
/** A directory, never through a symlink. */
export const DIR_FLAGS = O_PATH | O_DIRECTORY | O_NOFOLLOW;
/** Anything (a symlink itself, not its target), never through a symlink. */
export const ANY_FLAGS = O_PATH | O_NOFOLLOW;

const FD_DIR = '/proc/self/fd/';

/** The descriptor's own magic link: opening or reading it reaches the descriptor's object. */
export function fdPath(fd: number): string {
  return `${FD_DIR}${fd}`;
}

/** `name` looked up in directory descriptor `fd` (openat semantics). */
export function atFd(fd: number, name: Buffer): Buffer {
  const prefix = `${FD_DIR}${fd}/`;
  const out = Buffer.allocUnsafe(prefix.length + name.length);
  out.write(prefix, 0, 'latin1');
  name.copy(out, prefix.length);
  return out;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * Opens `name` below directory `dirFd` without following it; `dir`: it must be a directory
 * (a symlink fails with ENOTDIR or ELOOP).
 */
export function openAt(dirFd: number, name: Buffer, dir: boolean): number {
  // openat(2) itself where the native module is loaded (fsat.ts), else its magic link.
  return openPathAt(dirFd, name, dir) ?? fs.openSync(atFd(dirFd, name), dir ? DIR_FLAGS : ANY_FLAGS);
}

/**
 * Opens the absolute `path` from `/`, one component at a time, following no symlink (the
 * path must be real: a symlink anywhere in it fails with ENOTDIR or ELOOP). `dir`: the last
 * component must be a directory too.
 */
export function openNoFollow(path: Buffer, dir: boolean): number {
  const parts = components(path);
  let fd = fs.openSync('/', DIR_FLAGS);
  for (let i = 0; i < parts.length; i++) {
    try {
      const next = openAt(fd, parts[i], dir || i < parts.length - 1);
      closeQuietly(fd);
      fd = next;
    } catch (err) {
      closeQuietly(fd);
      throw err;
    }
  }
  return fd;
}

const openAsync = promisify(fs.open);
const closeAsync = promisify(fs.close);

/** A directory descriptor and a name in it: how Stat reaches its path. */
export interface ParentAndName {
  parentFd: number;
  /** Empty for `/` itself (then `parentFd` is `/`). */
  name: Buffer;
}

/** openNoFollow of `path`'s parent, off the main thread (libuv's pool), and the last name. */
export async function openParentAsync(path: Buffer): Promise<ParentAndName> {
  const parts = components(path);
  let fd = await openAsync('/', DIR_FLAGS);
  for (let i = 0; i < parts.length - 1; i++) {
    try {
      const next = await openAsync(atFd(fd, parts[i]), DIR_FLAGS);
      await closeAsync(fd).catch(() => {});
      fd = next;
    } catch (err) {
      await closeAsync(fd).catch(() => {});
      throw err;
    }
  }
  return { parentFd: fd, name: parts.length === 0 ? Buffer.alloc(0) : parts[parts.length - 1] };
}

export function closeFdAsync(fd: number): Promise<void> {
  return closeAsync(fd).catch(() => {});
}
