// A directory's entries as fs-source hands them to the walk's engine where the native module
// is not loaded (fs/packed-dir.ts reads them where it is): an iterable of RawEntry that stops
// when the walk is cancelled and counts each entry it reads, read by node:fs through the
// directory descriptor's magic link (fs/dir-read.ts). Each read is watched by the
// call probe and its descriptor closed however the iteration ends.
import type * as fs from 'node:fs';
import type { EntryType, RawEntry } from '@fleetls/core';
import { type CallProbe, watched } from '../walk/call-probe.js';
import { WalkCancelled } from '../walk/cancelled.js';
import { fdPath } from './beneath.js';
import { direntType, needsBufferNames, openDirBytes } from './dir-read.js';

/** What a directory's read needs of its source. */
export interface EntrySink {
  probe: CallProbe | undefined;
  isCancelled(): boolean;
  /** Called once per entry read (the worker's "entries seen"). */
  onEntry: (() => void) | undefined;
  /** The RawEntry of a name and the type its directory read gave. */
  fromName(rel: Buffer, name: Buffer, type: EntryType): RawEntry;
  /** The descriptor of directory `rel` (a node:fs read that must start again asks for it). */
  dirFd(rel: Buffer, p: Buffer): number;
}

// The sink's members are read into locals once per directory: the loops below run per entry.

function fromDirent(sink: EntrySink, rel: Buffer, d: fs.Dirent): RawEntry {
  const name = typeof d.name === 'string' ? Buffer.from(d.name, 'latin1') : (d.name as unknown as Buffer);
  return sink.fromName(rel, name, direntType(d));
}

/** A small directory node:fs read whole. */
export function* wholeEntries(sink: EntrySink, rel: Buffer, dirents: fs.Dirent[]): Generator<RawEntry, void, void> {
  const { isCancelled, onEntry } = sink;
  for (let i = 0; i < dirents.length; i++) {
    if (isCancelled()) throw new WalkCancelled('walk cancelled');
    onEntry?.();
    yield fromDirent(sink, rel, dirents[i]);
  }
}

/**
 * A directory node:fs streams through opendir. An entry of unknown type makes Node throw on
 * its latin1 name (fs/dir-read.ts needsBufferNames): the directory is opened again with Buffer
 * names and the entries already yielded are skipped (readdir order is stable).
 */
export function* streamedEntries(
  sink: EntrySink,
  rel: Buffer,
  path: Buffer,
  opened: fs.Dir,
): Generator<RawEntry, void, void> {
  const { probe, isCancelled, onEntry } = sink;
  let dir = opened;
  let bufferNames = false;
  let yielded = 0;
  let skip = 0;
  try {
    for (;;) {
      if (isCancelled()) throw new WalkCancelled('walk cancelled');
      let d: fs.Dirent | null;
      try {
        const reading = dir;
        d = watched(probe, path, () => reading.readSync());
      } catch (err) {
        if (bufferNames || !needsBufferNames(err)) throw err;
        const failed = dir;
        watched(probe, path, () => failed.closeSync());
        // The descriptor asked for again: the one the read began with may have been closed since.
        const link = Buffer.from(fdPath(sink.dirFd(rel, path)));
        dir = watched(probe, path, () => openDirBytes(link, 128));
        bufferNames = true;
        skip = yielded;
        continue;
      }
      if (d === null) return;
      if (skip > 0) {
        skip--;
        continue;
      }
      yielded++;
      onEntry?.();
      yield fromDirent(sink, rel, d);
    }
  } finally {
    try {
      const open = dir;
      watched(probe, path, () => open.closeSync());
    } catch {
      // already closed
    }
  }
}
