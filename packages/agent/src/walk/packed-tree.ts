// The tree walk over packed records: no JavaScript object per entry. A directory is read
// whole by the native module into an arena (getdents64 and statx: fsat.c readArena), sorted
// there in the walk's name order and cut to what the walk keeps (sortArena: core order.ts's
// compareNames, in C), and its rows are encoded from the records straight into the batch's
// WalkResponse bytes (encodeRows: fast-encoder.ts's encoding of the Entry core would make).
// Only a record the module cannot describe alone becomes objects (a symlink, whose target is
// read; a failed or unstat'ed entry), through the source as the engine would make it, and so
// do the rows that are one per directory (an unlistable directory's error, a cap's
// truncation). The loop is core's tree loop (walk/tree.ts) for the requests it serves
// (packedTreeServes): the same rows, counts, caps, stops and truncations; the parity tests
// compare the two (packed-tree.test.ts).
import type { Entry, EntryError, RawEntry, Row, WalkRequest, WalkSummary } from '@fleetls/core';
import {
  joinPath,
  type SplitFrame,
  type SplitPiece,
  type Splitter,
  splitStep,
  toEntry,
  WalkState,
} from '@fleetls/core';
import { ENTRY_TYPE } from '@fleetls/proto/enums';
import { ENTRY, ROW, WALK_RESPONSE, type WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import { packedCalls } from '../fs/fsat.js';
import { D_TYPES, RECORD, STATED } from '../fs/packed-dir.js';
import type { FsSource } from '../fs/source.js';
import { utcOffsetAt, utcOffsetCache } from '../fs/utc-offset.js';
import { WalkCancelled } from './cancelled.js';
import type { LastRow } from './transit.js';

/** The wire numbers fsat.c encodeRows writes (its W_* order). */
const WIRE = Int32Array.from([
  WALK_RESPONSE.rows,
  ROW.entry,
  ENTRY.path,
  ENTRY.type,
  ENTRY.size,
  ENTRY.mtimeSec,
  ENTRY.mtimeNsec,
  ENTRY.utcOffsetMin,
  ENTRY.mode,
  ENTRY.uid,
  ENTRY.gid,
  ENTRY.inode,
  ENTRY.nlink,
  ENTRY.depth,
  ...(['unknown', 'file', 'dir', 'symlink', 'fifo', 'socket', 'char', 'block'] as const).map((t) =>
    ENTRY_TYPE.number(t),
  ),
]);

// fsat.c's arena and frame: a 16-byte header (records, name bytes, entries read, records ever
// appended), then 72-byte records (packed-dir.ts's layout), in int32 and float64 slots.
const HEADER_I32 = 4;
const HEADER_F64 = 2;
const COUNT = 0;
const READ = 2;
const ADDED = 3;
const { I32_PER_REC, F64_PER_REC, MTIME_SEC, INO, DEV, SIZE, MTIME_NSEC, MODE, UID, GID, NLINK, NAME_OFF } = RECORD;
const { REC, DENTS, MAX_RECORDS, NAME_LEN_TYPE_STATE: NAME_WORD } = RECORD;
/** R_ERRNO: statx's errno when FAILED; for a stat'ed record, its UTC offset written here for encodeRows. */
const ERRNO_OR_OFFSET = RECORD.ERRNO;

/** fsat.c fillOffsets: a stat'ed record whose offset the cache did not hold. */
const OFFSET_UNKNOWN = 0x7fffffff;

/** Entries stat'ed as read before only directories and unknown types are (fs/source.ts's EAGER_STATS_MIN). */
const EAGER_STATS_MIN = 4096;

/** Does the packed tree walk serve this request? Else core's engine walks it. */
export function packedTreeServes(req: WalkRequest): boolean {
  return (
    req.shape === 'tree' &&
    req.order === 'name' &&
    req.after === undefined &&
    !req.followSymlinks &&
    !req.dirSizes &&
    req.types.length === 0 &&
    req.include.length === 0 &&
    req.exclude.length === 0 &&
    req.filter === undefined
  );
}

/** One directory whose kept children are being walked: sortArena's frame. */
export interface PackedFrame extends SplitFrame {
  dir: Buffer;
  depth: number;
  buf: Buffer;
  i32: Int32Array;
  f64: Float64Array;
  total: number;
  cap: number;
}

/** A frame as it crosses between threads: its path as latin1, its records as they are. */
export interface PlainPackedFrame {
  dir: string;
  depth: number;
  /** sortArena's frame: its header holds the record count. */
  buf: Uint8Array;
  next: number;
  total: number;
  cap: number;
  end?: number;
}

export function frameToPlain(frame: PackedFrame, next: number, end?: number): PlainPackedFrame {
  const plain: PlainPackedFrame = {
    dir: frame.dir.toString('latin1'),
    depth: frame.depth,
    buf: frame.buf,
    next,
    total: frame.total,
    cap: frame.cap,
  };
  if (end !== undefined) plain.end = end;
  return plain;
}

export function frameFromPlain(plain: PlainPackedFrame): PackedFrame {
  const buf = Buffer.from(plain.buf.buffer, plain.buf.byteOffset, plain.buf.byteLength);
  const frame = packedFrame(Buffer.from(plain.dir, 'latin1'), plain.depth, buf, plain.next, plain.total, plain.cap);
  if (plain.end !== undefined) frame.end = plain.end;
  return frame;
}

/**
 * A frame over sortArena's `buf` (its header says how many records it holds). Every frame is
 * made here, a walk's own and a helper's alike: one object shape for the loop.
 */
function packedFrame(dir: Buffer, depth: number, buf: Buffer, next: number, total: number, cap: number): PackedFrame {
  const i32 = new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2);
  const f64 = new Float64Array(buf.buffer, buf.byteOffset, buf.length >> 3);
  return { dir, depth, buf, i32, f64, len: i32[COUNT], next, total, cap };
}

/** Is record `index` of a frame a directory (stat'ed so)? */
export function isDirRecord(frame: PackedFrame, index: number): boolean {
  const at = HEADER_I32 + index * I32_PER_REC;
  return frame.i32[at + NAME_WORD] >>> 24 === STATED && (frame.i32[at + MODE] & 0o170000) === 0o040000;
}

/** Where the walk's rows go: the worker's batches (RowBatches), or a helper's (packed-split.ts). */
export interface PackedOut {
  readonly encoder: WalkResponseEncoder | undefined;
  readonly bytesLimit: number;
  rowsLeft(): number;
  addEncoded(rows: number, last: () => LastRow): void;
  add(row: Row): void;
  flush(): void;
  onEntries(n: number): void;
  readonly cancelled: () => boolean;
}

/** A tree walk's helper thread, as the walk's loop sees it (packed-split.ts). */
export type PackedSplit = Splitter<PackedFrame, SplitPiece<PackedFrame>>;

/**
 * The arena the thread's last walk or piece used (a helper walks dozens of pieces a walk):
 * kept up to this size, so a worker that read a directory of a million names once does not
 * hold its arena idle.
 */
const ARENA_KEPT_BYTES = 1024 * 1024;
let spareArena: Arena | undefined;

/** A growable arena for one directory's read (two Buffers: records, names) and getdents64's chunk. */
class Arena {
  recs = Buffer.allocUnsafeSlow(16 + (MAX_RECORDS + 64) * REC);
  names = Buffer.allocUnsafeSlow(2 * DENTS);
  readonly dents = Buffer.allocUnsafeSlow(DENTS);
  hdr = new Int32Array(this.recs.buffer, this.recs.byteOffset, HEADER_I32);

  reset(): void {
    this.hdr.fill(0);
  }

  /** readArena had no room: the short one doubled, what it holds kept. */
  grow(): void {
    const used = 16 + this.hdr[COUNT] * REC;
    if (this.recs.length - used < MAX_RECORDS * REC) {
      const next = Buffer.allocUnsafeSlow(this.recs.length * 2);
      this.recs.copy(next, 0, 0, used);
      this.recs = next;
      this.hdr = new Int32Array(next.buffer, next.byteOffset, HEADER_I32);
    }
    if (this.names.length - this.hdr[1] < DENTS) {
      const next = Buffer.allocUnsafeSlow(this.names.length * 2);
      this.names.copy(next, 0, 0, this.hdr[1]);
      this.names = next;
    }
  }
}

/** The loop and its steps over one WalkState: a whole walk, or a helper's piece of one. */
// Over 80 lines: core's tree loop (walk/tree.ts) over packed frames; its steps share the loop's locals as that loop's do.
function packedWalker(state: WalkState, source: FsSource, out: PackedOut) {
  const module = packedCalls();
  const sourceAccess = source.packedTree;
  const encoded = out.encoder?.out;
  if (module === undefined || sourceAccess === undefined || encoded === undefined) return undefined;
  const calls = module;
  const access = sourceAccess;
  const writer = encoded;
  const { req, summary } = state;
  const descending = req.direction === 'descending';
  const arena = spareArena ?? new Arena();
  spareArena = undefined;
  const io = new Int32Array(5);
  const offsets = utcOffsetCache();
  const stack: PackedFrame[] = [];

  /** Has max_entries been reached? Notes what a piece's rows needed (packed-split.ts). */
  function full(): boolean {
    state.needs(summary.entriesSent + 1);
    return summary.entriesSent >= req.maxEntries;
  }

  function entryRow(entry: Entry): void {
    summary.entriesSent++;
    out.add({ kind: 'entry', entry });
  }

  /** Reads directory `dir` whole into a frame of its best `limit` children; undefined when the walk stopped meanwhile. */
  function read(dir: Buffer, limit: number): { frame: Buffer; total: number } | { error: EntryError } | undefined {
    const opened = access.openRead(dir);
    if ('error' in opened) return opened;
    const { fd, p } = opened;
    const probe = access.probe;
    const eagerUpTo = Math.min(Math.max(limit, EAGER_STATS_MIN), 0xffff_ffff);
    arena.reset();
    let seen = 0;
    try {
      for (;;) {
        if (out.cancelled()) throw new WalkCancelled('walk cancelled');
        let r: number;
        if (probe !== undefined) {
          const held = probe.enter(p);
          try {
            r = calls.readArena(
              fd,
              arena.recs,
              arena.names,
              arena.dents,
              eagerUpTo,
              req.excludeHidden,
              probe.bytes,
              held,
            );
          } finally {
            probe.leave();
          }
        } else r = calls.readArena(fd, arena.recs, arena.names, arena.dents, eagerUpTo, req.excludeHidden, null, 0);
        const read = arena.hdr[READ];
        summary.entriesSeen += read - seen;
        out.onEntries(read - seen);
        seen = read;
        // A capped directory is held O(limit): cut back to its best once twice that many are read (core's keepBest).
        if (limit !== Number.POSITIVE_INFINITY && arena.hdr[COUNT] >= 2 * limit)
          calls.sortArena(arena.recs, arena.names, limit, descending, false);
        if (r === 1) break;
        if (state.outOfTime()) {
          state.stop('deadline', dir);
          return undefined;
        }
        if (r === 0) arena.grow();
      }
    } finally {
      access.closeRead(fd, p);
    }
    return {
      frame: calls.sortArena(arena.recs, arena.names, limit, descending, true) as Buffer,
      total: arena.hdr[ADDED],
    };
  }

  /** Opens a directory's frame; an unlistable one gets its error row (`dirEntry`: its own row's entry). */
  function open(dir: Buffer, depth: number, dirEntry: () => Entry): void {
    if (state.outOfTime()) {
      state.stop('deadline', dir);
      return;
    }
    const cap = depth === 1 && !req.capRoot ? Number.POSITIVE_INFINITY : req.maxItemsPerDir;
    const limit = Math.max(0, Math.min(cap, req.maxEntries - summary.entriesSent));
    const sentAtOpen = summary.entriesSent;
    const r = read(dir, limit);
    if (r === undefined) return;
    if ('error' in r) {
      if (full()) {
        state.stop('max_entries', dir);
        return;
      }
      entryRow({ ...dirEntry(), error: r.error });
      return;
    }
    const f = packedFrame(dir, depth, r.frame, 0, r.total, cap);
    const { buf, i32, f64, len } = f;
    // The UTC offset of each stat'ed record's mtime, for encodeRows (this process's time zone,
    // as rawFromStats): from the cache in C, asked of utcOffsetAt (which fills the cache) where
    // the cache has none.
    if (calls.fillOffsets(buf, offsets.buckets, offsets.minutes) > 0)
      for (let k = 0; k < len; k++) {
        const at = HEADER_I32 + k * I32_PER_REC;
        if (i32[at + ERRNO_OR_OFFSET] === OFFSET_UNKNOWN && i32[at + NAME_WORD] >>> 24 === STATED)
          i32[at + ERRNO_OR_OFFSET] = utcOffsetAt(f64[HEADER_F64 + k * F64_PER_REC + MTIME_SEC]);
      }
    state.needs(sentAtOpen + Math.min(cap, r.total));
    stack.push(f);
  }

  function nameOf(f: PackedFrame, k: number): Buffer {
    const at = HEADER_I32 + k * I32_PER_REC;
    const off = f.i32[at + NAME_OFF];
    return f.buf.subarray(off, off + (f.i32[at + NAME_WORD] & 0xffff));
  }

  /** The Entry core makes of stat'ed record `k` (a directory's own row, for its error row). */
  function entryOf(f: PackedFrame, k: number): Entry {
    const at = HEADER_I32 + k * I32_PER_REC;
    const d = HEADER_F64 + k * F64_PER_REC;
    const mode = f.i32[at + MODE] >>> 0;
    const raw: RawEntry = {
      name: Buffer.from(nameOf(f, k)),
      type: 'dir',
      size: small(f.f64[d + SIZE]),
      mtimeSec: small(f.f64[d + MTIME_SEC]),
      mtimeNsec: f.i32[at + MTIME_NSEC],
      utcOffsetMin: f.i32[at + ERRNO_OR_OFFSET],
      mode,
      uid: f.i32[at + UID] >>> 0,
      gid: f.i32[at + GID] >>> 0,
      inode: small(f.f64[d + INO]),
      nlink: f.i32[at + NLINK] >>> 0,
      dev: small(f.f64[d + DEV]),
    };
    return toEntry(raw, f.dir, f.depth);
  }

  /** Descends into a directory row of frame `f` (its depth and device allowing). */
  function descend(f: PackedFrame, dev: number, name: Buffer, dirEntry: () => Entry): void {
    if (f.depth >= req.maxDepth) {
      summary.depthLimitedDirs++;
      return;
    }
    if (req.oneFileSystem && dev !== state.rootDev) return;
    open(joinPath(f.dir, name), f.depth + 1, dirEntry);
  }

  function close(f: PackedFrame): void {
    if (f.len < Math.min(f.total, f.cap)) state.stop('max_entries', f.dir);
    else if (f.total > f.cap)
      out.add({
        kind: 'truncation',
        truncation: { dir: f.dir, shown: f.len, total: f.total, reason: 'items_per_dir' },
      });
  }

  /** A record encodeRows leaves to JavaScript: made into a RawEntry by the source, and its row. */
  function odd(f: PackedFrame, k: number): void {
    const at = HEADER_I32 + k * I32_PER_REC;
    const word = f.i32[at + NAME_WORD];
    const name = Buffer.from(nameOf(f, k));
    const raw = access.oddEntry(f.dir, name, word >>> 24, D_TYPES[(word >>> 16) & 0xff], f.i32[at + ERRNO_OR_OFFSET]);
    const entry = toEntry(raw, f.dir, f.depth);
    summary.entriesMatched++;
    entryRow(entry);
    if (entry.type === 'dir' && !entry.error) descend(f, raw.dev, name, () => entry);
  }

  /** Runs the stack down (a piece: until its range is done or `giveBack()`). */
  function loop(split: PackedSplit | undefined, giveBack?: () => boolean): void {
    for (;;) {
      if (state.stopped || stack.length === 0) return;
      if (giveBack?.()) return;
      if (split && splitStep(state, stack, split)) continue;
      const f = stack[stack.length - 1];
      const ownEnd = f.marks !== undefined ? f.marks[0].start : (f.end ?? f.len);
      if (f.next >= ownEnd) {
        // A piece's first frame is the directory of the walk that gave it: closed there.
        if (f.end !== undefined) return;
        stack.pop();
        close(f);
        continue;
      }
      if (full()) {
        state.stop('max_entries', f.dir);
        return;
      }
      const k = f.next;
      if (writer.pos >= out.bytesLimit || out.rowsLeft() <= 0) {
        out.flush();
        continue;
      }
      io[0] = writer.pos;
      io[1] = out.bytesLimit;
      io[2] = Math.min(out.rowsLeft(), req.maxEntries - summary.entriesSent);
      const next = calls.encodeRows(f.buf, k, ownEnd, f.dir, f.depth, writer.buf, io, WIRE);
      const rows = io[3];
      if (rows > 0) {
        writer.pos = io[0];
        f.next = next;
        summary.entriesSent += rows;
        summary.entriesMatched += rows;
        state.needs(summary.entriesSent);
        const last = next - 1;
        out.addEncoded(rows, () => ({ path: joinPath(f.dir, nameOf(f, last)).toString('latin1'), row: 'entry' }));
        if (io[4] === 1)
          descend(f, small(f.f64[HEADER_F64 + last * F64_PER_REC + DEV]), Buffer.from(nameOf(f, last)), () =>
            entryOf(f, last),
          );
        if (out.cancelled()) throw new WalkCancelled('walk cancelled');
        continue;
      }
      const word = f.i32[HEADER_I32 + k * I32_PER_REC + NAME_WORD];
      if (word >>> 24 === STATED && (f.i32[HEADER_I32 + k * I32_PER_REC + MODE] & 0o170000) !== 0o120000) {
        // A row encodeRows had no room for: the buffer grows (a batch is never left empty).
        growWriter(writer, writer.buf.length * 2);
        continue;
      }
      f.next++;
      odd(f, k);
      if (out.cancelled()) throw new WalkCancelled('walk cancelled');
    }
  }

  /** The walk is over: its arena goes to the thread's next walk or piece, unless a big directory grew it. */
  function release(): void {
    if (arena.recs.length + arena.names.length <= ARENA_KEPT_BYTES) spareArena = arena;
  }

  return { stack, open, loop, release };
}

/**
 * Walks `req` (packedTreeServes) over `source`, its rows written into `out`'s batches: the
 * summary, as core's walk() returns it. Undefined, with nothing sent, when the root is not a
 * directory that can be walked so (core's walk() answers that with its one row). `split`: a
 * helper thread walks pieces of it (packed-split.ts).
 */
export function walkPackedTree(
  req: WalkRequest,
  source: FsSource,
  out: PackedOut,
  now: () => number,
  split?: PackedSplit,
): WalkSummary | undefined {
  const root = source.root();
  if (root.error || root.type !== 'dir') return undefined;
  const state = new WalkState(req, source, now);
  state.rootDev = root.dev;
  const w = packedWalker(state, source, out);
  if (w === undefined) return undefined;
  const rootEntry = toEntry(root, Buffer.alloc(0), 0);
  rootEntry.path = Buffer.alloc(0);
  try {
    w.open(Buffer.alloc(0), 1, () => rootEntry);
    w.loop(split);
  } finally {
    w.release();
  }
  return state.finish();
}

/**
 * A helper's piece of a walk (packed-split.ts): `frame`'s range [next, end) with its
 * subtrees, rows into `out`, until done or `giveBack()` says so (at a row boundary). The
 * walk's counts of it, and where it stopped when given back.
 */
export function walkPackedPiece(
  state: WalkState,
  source: FsSource,
  out: PackedOut,
  frame: PackedFrame,
  giveBack: () => boolean,
): { next: number; frames: PackedFrame[] } | undefined {
  const w = packedWalker(state, source, out);
  if (w === undefined) throw new Error('packed walk without the native module');
  w.stack.push(frame);
  try {
    w.loop(undefined, giveBack);
  } finally {
    w.release();
  }
  if (w.stack.length === 0 || state.stopped) return undefined;
  const bottom = w.stack[0];
  if (bottom.next >= (bottom.end ?? bottom.len) && w.stack.length === 1) return undefined;
  return { next: bottom.next, frames: w.stack.slice(1) };
}

/** The encoder's writer with room for `cap` bytes, what it holds kept. */
function growWriter(writer: { buf: Uint8Array; pos: number }, cap: number): void {
  const next = new Uint8Array(cap);
  next.set(writer.buf.subarray(0, writer.pos));
  writer.buf = next;
}

/** A double as V8's small integer where it is one (raw-stats.ts `small`). */
function small(v: number): number {
  return v === (v | 0) ? v | 0 : v;
}
