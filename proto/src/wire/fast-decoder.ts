// Direct protobuf decoding of WalkResponse into core's rows, the gateway's hot path and the
// mirror of wire/fast-encoder.ts: protobufjs' decode + toObject + codec.rowFromWire built three
// objects per entry and copied every path byte by byte (bench/README.md, "Fan-out"). Same
// answers as that route for every message (fast-decoder.test.ts): unknown fields skipped,
// unknown enum numbers read as the codec reads them, 64-bit integers as protobufjs'
// `longs: Number` makes them.
import type { Entry, Row, Truncation, WalkSummary } from '@fleetls/core';
import { emptySummary } from '@fleetls/core';
import { ENTRY_TYPE, ERROR_CODE, TRUNCATION_REASON } from '../enums.js';
import * as wire from '../gen/wire-numbers.js';

const TWO_32 = 4294967296;

// Fields are matched by their tags (generated from the .proto): the number and the wire type its
// type is written with in one comparison; a known number with another wire type is skipped as
// unknown fields are. Bound here, not imported by name: V8 reads an imported binding through its
// module cell at each use, and the row decoded cost 6 % more that way (structure.why.md).
const { ENTRY_ERROR_TAG, ENTRY_TAG, ROW_TAG, SUMMARY_TAG, TRUNCATION_TAG, WALK_RESPONSE_TAG } = wire;

/** A reader over one message's bytes; every read is checked against the end of the (sub)message being read. */
class Reader {
  pos = 0;
  end: number;

  constructor(readonly buf: Buffer) {
    this.end = buf.length;
  }

  /** Reads a length-delimited submessage with `fn`, bounded by its own length. */
  sub<T>(fn: (r: Reader) => T): T {
    const end = this.delimited();
    const outer = this.end;
    this.end = end;
    const v = fn(this);
    this.end = outer;
    return v;
  }

  private fail(): never {
    throw new Error(`WalkResponse: truncated or malformed at byte ${this.pos}`);
  }

  /** A varint up to 32 bits (the low 32 of a longer one), unsigned. */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= this.end) this.fail();
      const b = buf[pos++];
      v |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    // Bits past 32: skipped, as protobufjs' uint32 does.
    for (let i = 0; i < 5; i++) {
      if (pos >= this.end) this.fail();
      if (buf[pos++] < 0x80) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    return this.fail();
  }

  /** A 64-bit varint as Number, signed or not, exactly as protobufjs' LongBits.toNumber. */
  long(unsigned: boolean): number {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let i = 0;
    let b: number;
    for (; i < 4; i++) {
      if (pos >= this.end) this.fail();
      b = buf[pos++];
      lo = (lo | ((b & 0x7f) << (i * 7))) >>> 0;
      if (b < 0x80) {
        this.pos = pos;
        return lo;
      }
    }
    if (pos >= this.end) this.fail();
    b = buf[pos++];
    lo = (lo | ((b & 0x7f) << 28)) >>> 0;
    hi = (hi | ((b & 0x7f) >> 4)) >>> 0;
    if (b >= 0x80) {
      for (i = 0; i < 5; i++) {
        if (pos >= this.end) this.fail();
        b = buf[pos++];
        hi = (hi | ((b & 0x7f) << (i * 7 + 3))) >>> 0;
        if (b < 0x80) break;
      }
      if (b >= 0x80) this.fail();
    }
    this.pos = pos;
    if (!unsigned && hi >>> 31) {
      let nlo = (~lo + 1) >>> 0;
      let nhi = ~hi >>> 0;
      if (!nlo) nhi = (nhi + 1) >>> 0;
      nlo = nlo >>> 0;
      return -(nlo + nhi * TWO_32);
    }
    return lo + hi * TWO_32;
  }

  /** The end of a length-delimited field that starts here. */
  delimited(): number {
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.end) this.fail();
    return end;
  }

  /** A length-delimited field's bytes (a view of the buffer, not a copy). */
  bytes(): Buffer {
    const end = this.delimited();
    const out = this.buf.subarray(this.pos, end);
    this.pos = end;
    return out;
  }

  /** A length-delimited field as UTF-8 text. */
  string(): string {
    const end = this.delimited();
    const out = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return out;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.long(true);
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.delimited();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        this.fail();
    }
    if (this.pos > this.end) this.fail();
  }
}

// An entry's error is rare (one per unreadable directory), so its own function and record cost the hot path nothing.
function decodeEntryError(r: Reader): { code: number; detail: string } {
  let code = 0;
  let detail = '';
  r.sub(() => {
    while (r.pos < r.end) {
      const t = r.uint32();
      if (t === ENTRY_ERROR_TAG.code) code = r.uint32() | 0;
      else if (t === ENTRY_ERROR_TAG.detail) detail = r.string();
      else r.skip(t & 7);
    }
  });
  return { code, detail };
}

function decodeEntry(r: Reader): Entry {
  const buf = r.buf;
  let path: Buffer | undefined;
  let type = 0;
  let size = 0;
  let mtimeSec = 0;
  let mtimeNsec = 0;
  let utcOffsetMin = 0;
  let mode = 0;
  let uid = 0;
  let gid = 0;
  let inode = 0;
  let nlink = 0;
  let depth = 0;
  let linkTarget: Buffer | undefined;
  let errorCode = 0;
  let errorDetail = '';
  let sizePartial = false;
  let allocated = 0;
  let unreadableDirs = 0;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === ENTRY_TAG.path) path = r.bytes();
    else if (tag === ENTRY_TAG.type) type = r.uint32() | 0;
    else if (tag === ENTRY_TAG.size) size = r.long(true);
    else if (tag === ENTRY_TAG.mtimeSec) mtimeSec = r.long(false);
    else if (tag === ENTRY_TAG.mtimeNsec) mtimeNsec = r.uint32();
    else if (tag === ENTRY_TAG.utcOffsetMin) {
      const z = r.uint32();
      utcOffsetMin = (z >>> 1) ^ -(z & 1);
    } else if (tag === ENTRY_TAG.mode) mode = r.uint32();
    else if (tag === ENTRY_TAG.uid) uid = r.uint32();
    else if (tag === ENTRY_TAG.gid) gid = r.uint32();
    else if (tag === ENTRY_TAG.inode) inode = r.long(true);
    else if (tag === ENTRY_TAG.nlink) nlink = r.long(true);
    else if (tag === ENTRY_TAG.depth) depth = r.uint32();
    else if (tag === ENTRY_TAG.linkTarget) linkTarget = r.bytes();
    else if (tag === ENTRY_TAG.error) {
      const error = decodeEntryError(r);
      errorCode = error.code;
      errorDetail = error.detail;
    } else if (tag === ENTRY_TAG.sizePartial) sizePartial = r.long(true) !== 0;
    else if (tag === ENTRY_TAG.allocated) allocated = r.long(true);
    else if (tag === ENTRY_TAG.unreadableDirs) unreadableDirs = r.long(true);
    else r.skip(tag & 7);
  }
  const entry: Entry = {
    path: path ?? buf.subarray(0, 0),
    type: ENTRY_TYPE.fromWire(type) ?? 'unknown',
    size,
    mtimeSec,
    mtimeNsec,
    utcOffsetMin,
    mode,
    uid,
    gid,
    inode,
    nlink,
    depth,
  };
  if (linkTarget && linkTarget.length > 0) entry.linkTarget = linkTarget;
  if (errorCode !== 0) entry.error = { code: ERROR_CODE.fromWire(errorCode) ?? 'ERROR', detail: errorDetail };
  if (sizePartial) entry.sizePartial = true;
  if (allocated > 0) entry.allocated = allocated;
  if (unreadableDirs > 0) entry.unreadableDirs = unreadableDirs;
  return entry;
}

function decodeTruncation(r: Reader): Truncation {
  let dir: Buffer | undefined;
  let shown = 0;
  let total = 0;
  let reason = 0;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === TRUNCATION_TAG.dir) dir = r.bytes();
    else if (tag === TRUNCATION_TAG.shown) shown = r.long(true);
    else if (tag === TRUNCATION_TAG.total) total = r.long(true);
    else if (tag === TRUNCATION_TAG.reason) reason = r.uint32() | 0;
    else r.skip(tag & 7);
  }
  return { dir: dir ?? r.buf.subarray(0, 0), shown, total, reason: TRUNCATION_REASON.fromWire(reason) ?? 'bytes' };
}

function decodeRow(r: Reader): Row {
  let row: Row | undefined;
  let truncation: Truncation | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === ROW_TAG.entry) row = { kind: 'entry', entry: r.sub(decodeEntry) };
    else if (tag === ROW_TAG.truncation) truncation = r.sub(decodeTruncation);
    else r.skip(tag & 7);
  }
  if (row) return row;
  if (truncation) return { kind: 'truncation', truncation };
  throw new Error('wire row carries neither an entry nor a truncation');
}

function decodeSummary(r: Reader): WalkSummary {
  const s: WalkSummary = emptySummary();
  const applied: string[] = [];
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === SUMMARY_TAG.entriesSent) s.entriesSent = r.long(true);
    else if (tag === SUMMARY_TAG.entriesSeen) s.entriesSeen = r.long(true);
    else if (tag === SUMMARY_TAG.entriesMatched) s.entriesMatched = r.long(true);
    else if (tag === SUMMARY_TAG.truncations) s.truncations.push(r.sub(decodeTruncation));
    else if (tag === SUMMARY_TAG.elapsedMs) s.elapsedMs = r.long(true);
    else if (tag === SUMMARY_TAG.depthLimitedDirs) s.depthLimitedDirs = r.long(true);
    else if (tag === SUMMARY_TAG.applied) applied.push(r.string());
    else r.skip(tag & 7);
  }
  if (applied.length > 0) s.applied = applied as WalkSummary['applied'];
  return s;
}

/**
 * One WalkResponse message → its rows and summary. Paths and link targets are views of one
 * copy of the message (not of the caller's buffer, which may be a larger network chunk).
 */
export function decodeWalkResponse(bytes: Uint8Array): { rows: Row[]; summary?: WalkSummary; entriesSeen?: number } {
  const r = new Reader(Buffer.from(bytes));
  const rows: Row[] = [];
  let summary: WalkSummary | undefined;
  let entriesSeen = 0;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === WALK_RESPONSE_TAG.rows) rows.push(r.sub(decodeRow));
    else if (tag === WALK_RESPONSE_TAG.summary) summary = r.sub(decodeSummary);
    else if (tag === WALK_RESPONSE_TAG.entriesSeen) entriesSeen = r.long(true);
    else r.skip(tag & 7);
  }
  // A progress message (entries read so far) carries its count; others leave it out.
  return { rows, ...(summary ? { summary } : {}), ...(entriesSeen > 0 ? { entriesSeen } : {}) };
}
