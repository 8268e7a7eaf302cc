// An lstat result as the walk engine's RawEntry, from node:fs's stats or fstatat's fields.
import type * as fs from 'node:fs';
import { type RawEntry, typeFromMode } from '@fleetls/core';
import { FIELDS } from './fsat.js';
import { utcOffsetAt } from './utc-offset.js';

const NS_PER_SEC = 1_000_000_000n;

/**
 * Nanoseconds since the epoch as the kernel keeps a time (and the wire's uint32 nanosecond
 * field needs it): the second floored, the nanosecond in [0, 1e9), so 0.25 s before 1970
 * is second -1 and nanosecond 750000000, as find's %T@ is read (core find-records.ts).
 */
export function secAndNsec(ns: bigint): [number, number] {
  let sec = ns / NS_PER_SEC;
  let nsec = ns % NS_PER_SEC;
  if (nsec < 0n) {
    sec -= 1n;
    nsec += NS_PER_SEC;
  }
  return [Number(sec), Number(nsec)];
}

export function rawFromStats(name: Buffer, st: fs.BigIntStats): RawEntry {
  const mode = Number(st.mode);
  const [mtimeSec, mtimeNsec] = secAndNsec(st.mtimeNs);
  return {
    name,
    type: typeFromMode(mode),
    size: Number(st.size),
    mtimeSec,
    mtimeNsec,
    utcOffsetMin: utcOffsetAt(mtimeSec),
    mode,
    uid: Number(st.uid),
    gid: Number(st.gid),
    inode: Number(st.ino),
    nlink: Number(st.nlink),
    dev: Number(st.dev),
  };
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** An lstat by fstatat (fsat.ts's fields) is of a symlink. */
export function fieldsAreLink(f: Float64Array): boolean {
  return (f[FIELDS.mode] & S_IFMT) === S_IFLNK;
}

/** rawFromStats of an lstat by the native module: the same entry. */
export function rawFromFields(name: Buffer, f: Float64Array): RawEntry {
  const mode = f[FIELDS.mode];
  // The kernel's own split (secAndNsec's): the second floored, the nanosecond never negative.
  const mtimeSec = f[FIELDS.mtimeSec];
  const mtimeNsec = f[FIELDS.mtimeNsec];
  return {
    name,
    type: typeFromMode(mode),
    size: f[FIELDS.size],
    mtimeSec,
    mtimeNsec,
    utcOffsetMin: utcOffsetAt(mtimeSec),
    mode,
    uid: f[FIELDS.uid],
    gid: f[FIELDS.gid],
    inode: f[FIELDS.ino],
    nlink: f[FIELDS.nlink],
    dev: f[FIELDS.dev],
  };
}
