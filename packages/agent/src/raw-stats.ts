// An lstat result as the walk engine's RawEntry, from node:fs's stats or fstatat's fields.
import type * as fs from 'node:fs';
import { type RawEntry, typeFromMode } from '@fleetls/core';
import { FIELDS } from './fsat.js';
import { utcOffsetAt } from './utc-offset.js';

const NS_PER_SEC = 1_000_000_000n;

export function rawFromStats(name: Buffer, st: fs.BigIntStats): RawEntry {
  const mode = Number(st.mode);
  const ns = st.mtimeNs;
  // Both truncate toward zero: a time before 1970 has a negative second and nanosecond.
  const mtimeSec = Number(ns / NS_PER_SEC);
  return {
    name,
    type: typeFromMode(mode),
    size: Number(st.size),
    mtimeSec,
    mtimeNsec: Number(ns % NS_PER_SEC),
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

/** rawFromStats of an lstat by fstatat: the same entry, its time split the same way. */
export function rawFromFields(name: Buffer, f: Float64Array): RawEntry {
  const mode = f[FIELDS.mode];
  let mtimeSec = f[FIELDS.mtimeSec];
  let mtimeNsec = f[FIELDS.mtimeNsec];
  // The kernel floors seconds (nanoseconds are never negative); rawFromStats truncates toward
  // zero, so a time before 1970 carries a negative nanosecond there: the same here.
  if (mtimeSec < 0 && mtimeNsec > 0) {
    mtimeSec += 1;
    mtimeNsec -= 1_000_000_000;
  }
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
