// The walk and restat commands' output (find/command.ts), parsed: a streaming parser that
// turns find's NUL-separated -printf records back into core's records, byte for byte, and
// the listing they make. The stat command's output is find/stat.ts's, du's du/find-dir-sizes.ts's.

import type { EntryError, EntryType, WalkRequest, WalkSummary } from '../domain/types.js';
import { entryErrorFromErrno } from '../errors/errno.js';
import { prunedError } from '../policy/pseudo-fs.js';
import type { SourceRecord } from '../walk/memory-source.js';
import { FIELDS } from './command.js';
import { addDropped, type RankDropped } from './rank.js';

const TYPE_BITS: Record<string, [EntryType, number]> = {
  f: ['file', 0o100000],
  d: ['dir', 0o040000],
  l: ['symlink', 0o120000],
  p: ['fifo', 0o010000],
  s: ['socket', 0o140000],
  c: ['char', 0o020000],
  b: ['block', 0o060000],
};

/** find's `%T@` (`sec.fraction`, possibly negative) → [sec, nsec] as lstat gives them. */
export function parseTimestamp(text: string): [number, number] {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return [0, 0];
  const whole = Number(m[2]);
  const nsec = Number((m[3] ?? '').slice(0, 9).padEnd(9, '0'));
  if (m[1] === '-') return nsec === 0 ? [-whole, 0] : [-whole - 1, 1_000_000_000 - nsec];
  return [whole, nsec];
}

/** find's `%Tz` (`+hhmm`) → minutes east of UTC. */
export function parseUtcOffset(text: string): number {
  const m = /^([+-])(\d\d)(\d\d)$/.exec(text);
  if (!m) return 0;
  const min = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -min : min;
}

export interface FindItem {
  /** Path relative to the listed path ('' for the path itself). */
  record: SourceRecord;
  depth: number;
  /** A kept candidate of a pre-ranked walk with stubs: only its path and type are known. */
  stub?: boolean;
  /** A directory that can be read but not searched (not entered: an X record). */
  unsearchable?: boolean;
  /** A directory find could not read. */
  denied: boolean;
  /** The type of the pseudo file system whose mount point this is (not entered). */
  pseudo?: string;
}

/** Fields of one R/D record (after the kind) → a record with the agent's RawEntry values. */
export function toRecord(fields: Buffer[], follow: boolean): SourceRecord {
  const a = (i: number) => fields[i].toString('latin1');
  const [type, bits] = TYPE_BITS[a(0)] ?? ['unknown', 0];
  const [mtimeSec, mtimeNsec] = parseTimestamp(a(3));
  const rec: SourceRecord = {
    path: Buffer.from(fields[13]),
    type,
    size: Number(a(2)),
    mtimeSec,
    mtimeNsec,
    utcOffsetMin: parseUtcOffset(a(4)),
    mode: bits | Number.parseInt(a(5), 8),
    uid: Number(a(6)),
    gid: Number(a(7)),
    inode: Number(a(8)),
    nlink: Number(a(9)),
    dev: Number(a(10)),
  };
  if (fields[12].length > 0) rec.linkTarget = Buffer.from(fields[12]);
  // Following symlinks, find falls back to lstat for a link it cannot follow (%Y says why).
  if (follow && type === 'symlink') {
    const why = a(1);
    rec.error =
      why === 'N'
        ? entryErrorFromErrno('ENOENT', 'symlink target does not exist')
        : why === 'L'
          ? entryErrorFromErrno('ELOOP')
          : entryErrorFromErrno('EACCES');
  }
  return rec;
}

/** A K record (type, path) as an item whose other fields are zero, to be completed. */
function stubItem(f: Buffer[]): FindItem {
  const path = Buffer.from(f[13]);
  // The path itself (a file) has an empty path.
  const depth = depthOf(path);
  const [type, bits] = TYPE_BITS[f[0].toString('latin1')] ?? ['unknown', 0];
  const record: SourceRecord = {
    path,
    type,
    size: 0,
    mtimeSec: 0,
    mtimeNsec: 0,
    utcOffsetMin: 0,
    mode: bits,
    uid: 0,
    gid: 0,
    inode: 0,
    nlink: 0,
    dev: 0,
  };
  return { record, depth, denied: false, stub: true };
}

/** Slashes in a relative path, plus one: its depth below the listed path ('' is 0). */
function depthOf(path: Buffer): number {
  let depth = path.length === 0 ? 0 : 1;
  for (let i = path.indexOf(0x2f); i >= 0; i = path.indexOf(0x2f, i + 1)) depth++;
  return depth;
}

/**
 * Streaming parser for the walk command's output. Push chunks as they arrive (a record
 * may be split anywhere); records come out complete. Names are raw bytes: non-UTF-8,
 * newlines, tabs and quotes pass through unchanged.
 */
export class FindRecordParser {
  private rest: Buffer = Buffer.alloc(0);
  private fields: Buffer[] = [];
  /** Records seen whose kind field was none of R, D, P, X, K, C, A (a cut or garbled stream). */
  garbled = 0;
  /** The remote ranking's trailer (C record): what it dropped. */
  dropped?: RankDropped;
  private readonly prefix: Buffer | undefined;

  /**
   * `root`: the listed path, for a listing whose kept candidates were stat'ed again in the
   * same exec (A records, absolute paths: made relative to it; one outside it is garbled).
   */
  constructor(
    private readonly follow: boolean,
    root?: string,
  ) {
    if (root !== undefined) this.prefix = Buffer.from(root === '/' ? '/' : `${root}/`);
  }

  push(chunk: Buffer): FindItem[] {
    const out: FindItem[] = [];
    const buf = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (;;) {
      const nul = buf.indexOf(0, start);
      if (nul < 0) break;
      this.fields.push(buf.subarray(start, nul));
      start = nul + 1;
      if (this.fields.length === FIELDS) {
        const [kind, ...f] = this.fields;
        this.fields = [];
        const k = kind.toString('latin1');
        if (k === 'C') {
          const n = (i: number) => Number(f[i].toString('latin1')) || 0;
          this.dropped = { seen: n(0), matched: n(1), depthLimited: n(2) };
          continue;
        }
        if (k === 'K') {
          out.push(stubItem(f));
          continue;
        }
        if (k === 'A') {
          const item = this.restated(f);
          if (item) out.push(item);
          else this.garbled++;
          continue;
        }
        if (k !== 'R' && k !== 'D' && k !== 'P' && k !== 'X') {
          this.garbled++;
          continue;
        }
        const item: FindItem = {
          record: toRecord(f, this.follow),
          depth: Number(f[11].toString('latin1')),
          denied: k === 'D',
        };
        if (k === 'X') item.unsearchable = true;
        if (k === 'P') {
          item.pseudo = f[12].toString('latin1');
          delete item.record.linkTarget;
        }
        out.push(item);
      }
    }
    // Copy the tail so the chunk it came from can be released.
    this.rest = Buffer.from(buf.subarray(start));
    return out;
  }

  /** A restat's record of a kept candidate below the listed path, relative to it. */
  private restated(f: Buffer[]): FindItem | undefined {
    const p = f[13];
    const prefix = this.prefix;
    if (!prefix || p.length <= prefix.length || !p.subarray(0, prefix.length).equals(prefix)) return undefined;
    const record = toRecord(f, false);
    record.path = Buffer.from(p.subarray(prefix.length));
    return { record, depth: depthOf(record.path), denied: false };
  }

  /** True when the stream stopped mid-record (e.g. killed at the deadline). */
  incomplete(): boolean {
    return this.rest.length > 0 || this.fields.length > 0;
  }
}

/** All records of a stream of chunks. */
export async function* parseFindRecords(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  follow = false,
): AsyncGenerator<FindItem, void, void> {
  const p = new FindRecordParser(follow);
  for await (const c of chunks) yield* p.push(c);
}

/** The walk command's output, split into the root, the records below it, and dir errors. */
export interface FindListing {
  root?: SourceRecord;
  rootDenied: boolean;
  /** The path itself is a stub (a file, with stubs): the caller completes it too. */
  rootStub: boolean;
  records: SourceRecord[];
  /** Kept candidates of a pre-ranked walk with stubs (path and type): the caller completes them. */
  stubs: SourceRecord[];
  /** Directories that can be read but not searched (latin1 relative paths): the caller lists them. */
  unsearchable: Set<string>;
  dirErrors: Map<string, EntryError>;
  /** More records existed than the cap allowed. */
  capped: boolean;
}

export function collectListing(items: Iterable<FindItem>, maxRecords: number): FindListing {
  const out: FindListing = {
    rootDenied: false,
    rootStub: false,
    records: [],
    stubs: [],
    unsearchable: new Set(),
    dirErrors: new Map(),
    capped: false,
  };
  for (const it of items) {
    if (it.depth === 0) {
      out.root = it.record;
      out.rootDenied = it.denied;
      out.rootStub = it.stub === true;
      if (it.denied) out.dirErrors.set('', entryErrorFromErrno('EACCES'));
      if (it.unsearchable) out.unsearchable.add('');
      continue;
    }
    if (out.records.length + out.stubs.length >= maxRecords) {
      out.capped = true;
      continue;
    }
    if (it.stub) {
      out.stubs.push(it.record);
      continue;
    }
    out.records.push(it.record);
    if (it.denied) out.dirErrors.set(it.record.path.toString('latin1'), entryErrorFromErrno('EACCES'));
    if (it.unsearchable) out.unsearchable.add(it.record.path.toString('latin1'));
    if (it.pseudo !== undefined) out.dirErrors.set(it.record.path.toString('latin1'), prunedError(it.pseudo));
  }
  return out;
}

/** Where a kept candidate's restat starts (buildRestatCommand's stdin): the listed path, then its relative path. */
export function restatPath(root: string, rel: Buffer): Buffer {
  if (rel.length === 0) return Buffer.from(root);
  return Buffer.concat([Buffer.from(root === '/' ? '/' : `${root}/`), rel]);
}

/**
 * buildRestatCommand's output → the records, keyed by the path relative to `root` as the
 * listing gives it ('' for the path itself). A record of another path is ignored.
 */
export function parseRestat(out: Buffer, root: string): Map<string, SourceRecord> {
  const top = Buffer.from(root);
  const prefix = Buffer.from(root === '/' ? '/' : `${root}/`);
  const got = new Map<string, SourceRecord>();
  for (const it of new FindRecordParser(false).push(out)) {
    const p = it.record.path;
    let rel: Buffer;
    if (p.equals(top)) rel = Buffer.alloc(0);
    else if (p.length > prefix.length && p.subarray(0, prefix.length).equals(prefix)) rel = p.subarray(prefix.length);
    else continue;
    got.set(rel.toString('latin1'), { ...it.record, path: Buffer.from(rel) });
  }
  return got;
}

/** How a find listing ended: what the pre-ranking dropped, and whether it was cut. */
export interface FindEnd {
  dropped?: RankDropped;
  /** More records existed than the cap allowed. */
  capped: boolean;
  /** find was stopped at the deadline, or its stream ended mid-record. */
  killed: boolean;
  /** Records loaded (the path itself not counted). */
  records: number;
}

/**
 * The summary of a walk over a find listing, made what a walk of the tree itself gives:
 * the pre-ranking's drops counted, and the listing's own cuts reported as truncations.
 */
export function finishFindSummary(summary: WalkSummary, req: WalkRequest, end: FindEnd): void {
  if (end.dropped) addDropped(summary, end.dropped, req);
  const has = (reason: string) => summary.truncations.some((t) => t.reason === reason);
  if (end.capped && !has('max_entries')) {
    summary.truncations.push({
      dir: Buffer.alloc(0),
      shown: summary.entriesSent,
      total: end.records + 1,
      reason: 'max_entries',
    });
  }
  if (end.killed && !has('deadline')) {
    summary.truncations.push({
      dir: Buffer.alloc(0),
      shown: summary.entriesSent,
      total: end.records,
      reason: 'deadline',
    });
  }
}
