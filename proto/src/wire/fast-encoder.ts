// Direct protobuf encoding of WalkResponse batches, the agent's hot path: the walk worker
// encodes rows straight to bytes, which the service writes through an identity serializer.
// protobufjs' fromObject+encode costs tens of microseconds per entry (a Long per 64-bit
// field); this writer costs about one. Field numbers are generated from the .proto
// (gen/wire-numbers.ts); fast-encoder.test.ts checks the bytes against protobufjs'
// encoding of rowToWire.
import type { Entry, Row, StatInfo, Truncation, WalkSummary } from '@fleetls/core';
import { ENTRY_TYPE, ERROR_CODE, TRUNCATION_REASON } from '../enums.js';
import { ENTRY, ENTRY_ERROR, ROW, STAT_RESPONSE, SUMMARY, TRUNCATION, WALK_RESPONSE } from '../gen/wire-numbers.js';

// The field numbers, for the native module's encoder of tree rows (agent walk/packed-tree.ts).
export { ENTRY, ROW, WALK_RESPONSE } from '../gen/wire-numbers.js';

const TWO_64 = 2n ** 64n;

/** A growable protobuf writer. */
export class ProtoWriter {
  buf: Uint8Array;
  pos = 0;

  constructor(capacity = 64 * 1024) {
    this.buf = new Uint8Array(capacity);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  reset(): void {
    this.pos = 0;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A non-negative integer up to 2^53. */
  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (v >= 0x80) {
      buf[pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** int64/int32 varint: negatives as 64-bit two's complement (10 bytes). */
  signedVarint(v: number): void {
    if (v >= 0) {
      this.varint(v);
      return;
    }
    let b = TWO_64 + BigInt(Math.trunc(v));
    this.ensure(10);
    while (b >= 0x80n) {
      this.buf[this.pos++] = Number(b & 0x7fn) | 0x80;
      b >>= 7n;
    }
    this.buf[this.pos++] = Number(b);
  }

  /** Field with a varint value; proto3 omits zero. */
  uint(field: number, v: number): void {
    if (v === 0) return;
    this.varint(field << 3);
    this.varint(v);
  }

  int(field: number, v: number): void {
    if (v === 0) return;
    this.varint(field << 3);
    this.signedVarint(v);
  }

  sint(field: number, v: number): void {
    if (v === 0) return;
    this.varint(field << 3);
    this.varint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  /** A time as the contract writes it: whole seconds (int64, before 1970 negative) and the nanoseconds. */
  time(secField: number, nsecField: number, sec: number, nsec: number): void {
    this.int(secField, sec);
    this.uint(nsecField, nsec);
  }

  bool(field: number, v: boolean | undefined): void {
    if (!v) return;
    this.varint(field << 3);
    this.byte(1);
  }

  bytes(field: number, b: Uint8Array | undefined): void {
    if (!b || b.length === 0) return;
    this.varint((field << 3) | 2);
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  string(field: number, s: string): void {
    if (s === '') return;
    this.bytes(field, Buffer.from(s, 'utf8'));
  }

  /** A nested message already encoded in `sub` (whole contents). */
  message(field: number, sub: ProtoWriter): void {
    this.varint((field << 3) | 2);
    this.varint(sub.pos);
    this.ensure(sub.pos);
    this.buf.set(sub.buf.subarray(0, sub.pos), this.pos);
    this.pos += sub.pos;
  }

  /**
   * A nested message whose one field, `inner`, is the message already encoded in `sub`: the
   * same bytes as encoding `sub` into a message and that into this one, with `sub` copied once.
   */
  messageOf(field: number, inner: number, sub: ProtoWriter): void {
    this.varint((field << 3) | 2);
    this.varint(varintLength((inner << 3) | 2) + varintLength(sub.pos) + sub.pos);
    this.message(inner, sub);
  }
}

/** How many bytes ProtoWriter.varint writes for `v`. */
function varintLength(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

function encodeEntry(w: ProtoWriter, e: Entry, scratch: ProtoWriter): void {
  w.bytes(ENTRY.path, e.path);
  w.uint(ENTRY.type, ENTRY_TYPE.number(e.type));
  w.uint(ENTRY.size, e.size);
  w.time(ENTRY.mtimeSec, ENTRY.mtimeNsec, e.mtimeSec, e.mtimeNsec);
  w.sint(ENTRY.utcOffsetMin, e.utcOffsetMin);
  w.uint(ENTRY.mode, e.mode);
  w.uint(ENTRY.uid, e.uid);
  w.uint(ENTRY.gid, e.gid);
  w.uint(ENTRY.inode, e.inode);
  w.uint(ENTRY.nlink, e.nlink);
  w.uint(ENTRY.depth, e.depth);
  w.bytes(ENTRY.linkTarget, e.linkTarget);
  if (e.error) {
    scratch.reset();
    scratch.uint(ENTRY_ERROR.code, ERROR_CODE.number(e.error.code));
    scratch.string(ENTRY_ERROR.detail, e.error.detail);
    w.message(ENTRY.error, scratch);
  }
  w.bool(ENTRY.sizePartial, e.sizePartial);
  w.uint(ENTRY.allocated, e.allocated ?? 0);
  w.uint(ENTRY.unreadableDirs, e.unreadableDirs ?? 0);
}

function encodeTruncation(w: ProtoWriter, t: Truncation): void {
  w.bytes(TRUNCATION.dir, t.dir);
  w.uint(TRUNCATION.shown, t.shown);
  w.uint(TRUNCATION.total, t.total);
  w.uint(TRUNCATION.reason, TRUNCATION_REASON.number(t.reason));
}

/** Encodes rows (and the summary, on the last message) as one WalkResponse. */
export class WalkResponseEncoder {
  readonly out: ProtoWriter;
  private readonly part = new ProtoWriter(4096);
  private readonly inner = new ProtoWriter(4096);
  private readonly scratch = new ProtoWriter(256);

  constructor(capacity = 64 * 1024) {
    this.out = new ProtoWriter(capacity);
  }

  /** Appends one `rows` element: its entry or truncation written once, then copied once into place. */
  addRow(r: Row): void {
    this.inner.reset();
    if (r.kind === 'entry') {
      encodeEntry(this.inner, r.entry, this.scratch);
      this.out.messageOf(WALK_RESPONSE.rows, ROW.entry, this.inner);
    } else {
      encodeTruncation(this.inner, r.truncation);
      this.out.messageOf(WALK_RESPONSE.rows, ROW.truncation, this.inner);
    }
  }

  setSummary(s: WalkSummary): void {
    this.inner.reset();
    this.inner.uint(SUMMARY.entriesSent, s.entriesSent);
    this.inner.uint(SUMMARY.entriesSeen, s.entriesSeen);
    this.inner.uint(SUMMARY.entriesMatched, s.entriesMatched);
    for (const t of s.truncations) {
      this.part.reset();
      encodeTruncation(this.part, t);
      this.inner.message(SUMMARY.truncations, this.part);
    }
    this.inner.uint(SUMMARY.elapsedMs, s.elapsedMs);
    this.inner.uint(SUMMARY.depthLimitedDirs, s.depthLimitedDirs);
    for (const a of s.applied ?? []) this.inner.string(SUMMARY.applied, a);
    this.out.message(WALK_RESPONSE.summary, this.inner);
  }

  /** A progress message's count: directory entries the walk has read so far. */
  setEntriesSeen(n: number): void {
    this.out.uint(WALK_RESPONSE.entriesSeen, n);
  }

  get length(): number {
    return this.out.pos;
  }

  /** The bytes so far in a fresh, exactly sized ArrayBuffer (transferable), and a fresh start. */
  takeArrayBuffer(): ArrayBuffer {
    const ab = this.out.buf.slice(0, this.out.pos).buffer;
    this.out.reset();
    return ab;
  }

  /** The bytes so far (a copy), and a fresh start. */
  take(): Buffer {
    const b = Buffer.from(this.out.buf.subarray(0, this.out.pos));
    this.out.reset();
    return b;
  }
}

/** One WalkResponse, encoded directly (the agent's fast path; see WalkResponseEncoder). */
export function encodeWalkResponse(rows: Row[], summary?: WalkSummary): Buffer {
  const enc = new WalkResponseEncoder();
  for (const r of rows) enc.addRow(r);
  if (summary) enc.setSummary(summary);
  return enc.take();
}

/** A progress message: no rows, no summary, the entries the walk has read so far. */
export function encodeWalkProgress(entriesSeen: number): Buffer {
  const enc = new WalkResponseEncoder(64);
  enc.setEntriesSeen(entriesSeen);
  return enc.take();
}

/** A StatResponse, encoded directly: the agent's Stat answer, with no protobufjs loaded. */
export function encodeStatResponse(info: StatInfo, version: string): Buffer {
  const entry = new ProtoWriter(256);
  encodeEntry(entry, info.entry, new ProtoWriter(256));
  const w = new ProtoWriter(entry.pos + 128);
  w.message(STAT_RESPONSE.entry, entry);
  w.string(STAT_RESPONSE.owner, info.owner);
  w.string(STAT_RESPONSE.group, info.group);
  w.time(STAT_RESPONSE.atimeSec, STAT_RESPONSE.atimeNsec, info.atimeSec, info.atimeNsec);
  w.time(STAT_RESPONSE.ctimeSec, STAT_RESPONSE.ctimeNsec, info.ctimeSec, info.ctimeNsec);
  w.string(STAT_RESPONSE.agentVersion, version);
  return Buffer.from(w.buf.subarray(0, w.pos));
}
