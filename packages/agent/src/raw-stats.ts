// An lstat result as the walk engine's RawEntry.
import type * as fs from 'node:fs';
import { type RawEntry, typeFromMode } from '@fleetls/core';
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
