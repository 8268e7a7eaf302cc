// The mount table, from /proc/self/mountinfo: where each file system is mounted and its
// type. A procfs read, answered by the kernel, never by the mounted file system, so it
// is safe while a mount hangs. Mount points are latin1 strings of their bytes, as the
// walker's paths are.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { PSEUDO_FS_TYPES } from '@fleetls/core';
import { mountsChanged } from './fsat.js';

const PSEUDO = new Set<string>(PSEUDO_FS_TYPES);

export interface Mount {
  /** Absolute, with mountinfo's octal escapes (\040 for a space...) decoded to bytes. */
  point: string;
  fsType: string;
}

/** Decodes mountinfo's `\ooo` escapes (space, tab, newline, backslash) in a latin1 string. */
function decodeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/**
 * Lines of mountinfo: `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER`.
 * Lines that do not have that shape are skipped.
 */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-', 6);
    if (f.length < 7 || dash < 0 || dash + 1 >= f.length) continue;
    mounts.push({ point: decodeOctal(f[4]), fsType: decodeOctal(f[dash + 1]) });
  }
  return mounts;
}

const MOUNTINFO = '/proc/self/mountinfo';

/**
 * The main thread's descriptor of the table, kept and read again from offset 0 each time
 * (procfs makes the text anew), into one buffer: no open, close or new Buffer per walk.
 * A worker reads the table whole: a descriptor kept per worker would outlive the worker.
 * The buffer is made at the first read, 64 KiB, not at load (an agent at rest holds none).
 */
const kept = { fd: -1, buf: Buffer.alloc(0) };

function tableBytes(): Buffer {
  if (!isMainThread) return fs.readFileSync(MOUNTINFO);
  if (kept.fd < 0) kept.fd = fs.openSync(MOUNTINFO, 'r');
  let n = 0;
  for (;;) {
    if (n === kept.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(64 * 1024, kept.buf.length * 2));
      kept.buf.copy(grown);
      kept.buf = grown;
    }
    const got = fs.readSync(kept.fd, kept.buf, n, kept.buf.length - n, n);
    if (got === 0) return kept.buf.subarray(0, n);
    n += got;
  }
}

/** The last table read and what it was parsed from: most walks find the table unchanged. */
let parsed: { bytes: Buffer; mounts: Mount[] } | undefined;

/**
 * The mount table now (a mount made a moment ago counts). In the main thread with the native
 * module, the kernel says by poll(2) on the kept descriptor whether a mount or unmount happened
 * since the last look, and the table is read only then: printing it costs the kernel
 * ~20-100 µs, per small walk the largest of the agent's per-walk costs
 * (bench/results/structure.why.md). Without the module it is read every time and parsed
 * only when its text changed. Callers do not change the array.
 */
export function readMounts(): readonly Mount[] {
  if (parsed !== undefined && isMainThread && mountsChanged(kept.fd) === false) return parsed.mounts;
  let bytes: Buffer;
  try {
    bytes = tableBytes();
  } catch {
    return [];
  }
  if (parsed === undefined || !parsed.bytes.equals(bytes)) {
    parsed = { bytes: Buffer.from(bytes), mounts: parseMountinfo(bytes.toString('latin1')) };
  }
  return parsed.mounts;
}

/** Is `path` equal to `point` or below it (both absolute, normalised, latin1)? */
export function under(point: string, path: string): boolean {
  if (point === '/') return path.startsWith('/');
  return path === point || (path.startsWith(point) && path.charCodeAt(point.length) === 0x2f);
}

/** The mount `path` is on: the one with the longest mount point above it (the last mounted wins a tie). */
export function mountOf(mounts: readonly Mount[], path: string): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) if (under(m.point, path) && (!best || m.point.length >= best.point.length)) best = m;
  return best;
}

/**
 * Mount points of pseudo file systems below `root` (latin1 → type), other than the one the
 * root is on: a walk lists them but does not enter them, unless asked for them by path.
 */
/** pseudoMountsBelow of a walk's root path as given (resolved; its bytes as the walker's latin1 keys). */
export function pseudoMountsUnder(mounts: readonly Mount[], root: string): Map<string, string> {
  return pseudoMountsBelow(mounts, Buffer.from(nodePath.resolve(root)).toString('latin1'));
}

export function pseudoMountsBelow(mounts: readonly Mount[], root: string): Map<string, string> {
  const own = mountOf(mounts, root)?.point;
  const below = new Map<string, string>();
  for (const m of mounts) {
    if (PSEUDO.has(m.fsType) && m.point !== own && m.point !== root && under(root, m.point))
      below.set(m.point, m.fsType);
  }
  return below;
}
