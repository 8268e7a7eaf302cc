// An lstat result as the walk engine's RawEntry, from node:fs's stats or fstatat's fields.
import type * as fs from 'node:fs';
import { type RawEntry, typeFromMode } from '@fleetls/core';
import { FIELDS } from './fsat.js';
import type { PackedDir } from './packed-dir.js';
import { utcOffsetAt } from './utc-offset.js';

const NS_PER_SEC = 1_000_000_000n;

/**
 * Nanoseconds since the epoch as the kernel keeps a time (and the wire's uint32 nanosecond
 * field needs it): the second floored, the nanosecond in [0, 1e9), so 0.25 s before 1970
 * is second -1 and nanosecond 750000000, as find's %T@ is read (core find/records.ts).
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

/** An lstat by the native module (fsat.ts's fields) is of a symlink. */
export function fieldsAreLink(fields: Float64Array): boolean {
  return typeFromMode(fields[FIELDS.mode]) === 'symlink';
}

/** rawFromStats of an lstat by the native module: the same entry. */
export function rawFromFields(name: Buffer, fields: Float64Array): RawEntry {
  const mode = small(fields[FIELDS.mode]);
  // The kernel's own split (secAndNsec's): the second floored, the nanosecond never negative.
  const mtimeSec = small(fields[FIELDS.mtimeSec]);
  return {
    name,
    type: typeFromMode(mode),
    size: small(fields[FIELDS.size]),
    mtimeSec,
    mtimeNsec: small(fields[FIELDS.mtimeNsec]),
    utcOffsetMin: utcOffsetAt(mtimeSec),
    mode,
    uid: small(fields[FIELDS.uid]),
    gid: small(fields[FIELDS.gid]),
    inode: small(fields[FIELDS.ino]),
    nlink: small(fields[FIELDS.nlink]),
    dev: small(fields[FIELDS.dev]),
  };
}

/** rawFromStats of record `at` of a packed directory read (fsat.c readPacked), stat'ed. */
export function rawFromRecord(name: Buffer, dir: PackedDir, at: number): RawEntry {
  const mode = dir.mode(at);
  const mtimeSec = dir.mtimeSec(at);
  return {
    name,
    type: typeFromMode(mode),
    size: dir.size(at),
    mtimeSec,
    mtimeNsec: dir.mtimeNsec(at),
    utcOffsetMin: utcOffsetAt(mtimeSec),
    mode,
    uid: dir.uid(at),
    gid: dir.gid(at),
    inode: dir.ino(at),
    nlink: dir.nlink(at),
    dev: dir.dev(at),
  };
}

/**
 * A Float64Array element as V8's small integer where it is one. Read as a double, every
 * field of every entry was a heap number of its own (node:fs's Number(bigint) gives small
 * integers): ~50 MiB more peak RSS on a 300k tree walk.
 */
function small(v: number): number {
  return v === (v | 0) ? v | 0 : v;
}
