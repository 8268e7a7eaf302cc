// What a source yields, and the Entry the walk makes of it. Sources build their rows with
// these constructors so that an object that could not be stat'd, or one read by name only,
// looks the same from every source.
import type { Entry, EntryError, EntryType, RawEntry } from '../domain/types.js';

const SLASH = Buffer.from('/');

/** Joins a relative directory path and a name. */
export function joinPath(dir: Buffer, name: Buffer): Buffer {
  return dir.length === 0 ? name : Buffer.concat([dir, SLASH, name]);
}

export function toEntry(raw: RawEntry, dir: Buffer, depth: number, path = joinPath(dir, raw.name)): Entry {
  const entry: Entry = {
    path,
    type: raw.type,
    size: raw.size,
    mtimeSec: raw.mtimeSec,
    mtimeNsec: raw.mtimeNsec,
    utcOffsetMin: raw.utcOffsetMin,
    mode: raw.mode,
    uid: raw.uid,
    gid: raw.gid,
    inode: raw.inode,
    nlink: raw.nlink,
    depth,
  };
  if (raw.linkTarget !== undefined) entry.linkTarget = raw.linkTarget;
  if (raw.error !== undefined) entry.error = raw.error;
  return entry;
}

/** What a source gives for an object it could not stat: its name, a type if known, the error, every number 0. */
function zeroRawEntry(name: Buffer, type: EntryType): RawEntry {
  return {
    name,
    type,
    size: 0,
    mtimeSec: 0,
    mtimeNsec: 0,
    utcOffsetMin: 0,
    mode: 0,
    uid: 0,
    gid: 0,
    inode: 0,
    nlink: 0,
    dev: 0,
  };
}

export function errorRawEntry(name: Buffer, type: EntryType, error: EntryError): RawEntry {
  return { ...zeroRawEntry(name, type), error };
}

/** A child known by name and type only, for the source's `fill` to complete if it is kept. */
export function lazyRawEntry(name: Buffer, type: EntryType): RawEntry {
  const raw = zeroRawEntry(name, type);
  raw.lazy = true;
  return raw;
}
