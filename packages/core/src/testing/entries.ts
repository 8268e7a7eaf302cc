// Entries, source records and roots for tests, each a plain object with every stat given, so a
// test names only the fields it is about. Pure: nothing here reads a file system.

import type { Entry, RawEntry, Row, StatFields } from '../domain/types.js';
import type { SourceRecord } from '../walk/memory-source.js';

/**
 * A file's stats, every number 0 but a link count of 1 and the given inode. Spelled out rather
 * than built with walk-raw-entry's constructors: an expectation must not come from the code under test.
 */
function stats(inode: number): StatFields {
  return {
    type: 'file',
    size: 0,
    mtimeSec: 0,
    mtimeNsec: 0,
    utcOffsetMin: 0,
    mode: 0,
    uid: 0,
    gid: 0,
    inode,
    nlink: 1,
  };
}

const bytes = (path: string | Buffer): Buffer => (typeof path === 'string' ? Buffer.from(path) : path);

/** An Entry as a walk yields it: a file at depth 1, stats 0 but inode 1 and nlink 1, then `over`. */
export function entryAt(path: string | Buffer, over: Partial<Entry> = {}): Entry {
  return { path: bytes(path), ...stats(1), depth: 1, ...over };
}

/** `entryAt` as a walk's row. */
export function entryRow(path: string | Buffer, over: Partial<Entry> = {}): Row {
  return { kind: 'entry', entry: entryAt(path, over) };
}

// A fresh inode per record, as a real tree has: the walk tells a symlink loop by its inode.
let nextInode = 100;

/** A MemorySource record: a file on device 1, stats 0 but a fresh inode and nlink 1, then `over`. */
export function recordAt(path: string | Buffer, over: Partial<SourceRecord> = {}): SourceRecord {
  return { path: bytes(path), ...stats(nextInode++), dev: 1, ...over };
}

/** The requested path itself as a source gives it: a directory with an empty name, then `over`. */
export function rootAt(over: Partial<RawEntry> = {}): RawEntry {
  return { name: Buffer.alloc(0), ...stats(nextInode++), type: 'dir', dev: 1, ...over };
}
