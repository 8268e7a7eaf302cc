// The one conversion between the domain (@fleetls/core) and the wire (@fleetls/proto),
// both directions: the agent's service uses one half, the gateway's agent client the other.
import type {
  Entry,
  EntryError,
  EntryErrorCode,
  EntryType,
  OrderBy,
  ResumeRow,
  Row,
  Shape,
  SortDirection,
  StatInfo,
  Truncation,
  TruncationReason,
  WalkRequest,
  WalkRequestInput,
  WalkSummary,
} from '@fleetls/core';
import type {
  WireEntry,
  WireEntryOut,
  WireEntryType,
  WireErrorCode,
  WireResumeRow,
  WireRow,
  WireRowOut,
  WireStatResponse,
  WireStatResponseOut,
  WireSummary,
  WireSummaryOut,
  WireTruncation,
  WireTruncationOut,
  WireTruncationReason,
  WireWalkRequest,
  WireWalkRequestOut,
} from '@fleetls/proto';

type WireEnum<T> = Extract<T, string>;

function invert<K extends string, V extends string>(m: Record<K, V>): Record<V, K> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k])) as Record<V, K>;
}

const TYPE_TO_WIRE: Record<EntryType, WireEnum<WireEntryType>> = {
  file: 'ENTRY_TYPE_FILE',
  dir: 'ENTRY_TYPE_DIR',
  symlink: 'ENTRY_TYPE_SYMLINK',
  fifo: 'ENTRY_TYPE_FIFO',
  socket: 'ENTRY_TYPE_SOCKET',
  char: 'ENTRY_TYPE_CHAR',
  block: 'ENTRY_TYPE_BLOCK',
  unknown: 'ENTRY_TYPE_UNKNOWN',
};
const TYPE_FROM_WIRE = invert(TYPE_TO_WIRE);

const ERROR_TO_WIRE: Record<EntryErrorCode, WireEnum<WireErrorCode>> = {
  NOT_FOUND: 'ERROR_CODE_NOT_FOUND',
  DENIED: 'ERROR_CODE_DENIED',
  ERROR: 'ERROR_CODE_ERROR',
};
const ERROR_FROM_WIRE = invert(ERROR_TO_WIRE);

const RESUME_ROW_TO_WIRE: Record<ResumeRow, WireEnum<WireResumeRow>> = {
  entry: 'RESUME_ROW_ENTRY',
  error: 'RESUME_ROW_ERROR',
  warning: 'RESUME_ROW_WARNING',
};
const RESUME_ROW_FROM_WIRE = invert(RESUME_ROW_TO_WIRE);

// 'bytes' is the gateway's own cut (an answer's byte budget); the agent never sends it.
// It maps to UNSPECIFIED so that the mapping stays total in both directions.
const REASON_TO_WIRE: Record<TruncationReason, WireEnum<WireTruncationReason>> = {
  depth: 'TRUNCATION_REASON_DEPTH',
  items_per_dir: 'TRUNCATION_REASON_ITEMS_PER_DIR',
  max_entries: 'TRUNCATION_REASON_MAX_ENTRIES',
  deadline: 'TRUNCATION_REASON_DEADLINE',
  top_n: 'TRUNCATION_REASON_TOP_N',
  bytes: 'TRUNCATION_REASON_UNSPECIFIED',
};
const REASON_FROM_WIRE = invert(REASON_TO_WIRE);

const ORDER_TO_WIRE: Record<OrderBy, 'ORDER_NAME' | 'ORDER_SIZE' | 'ORDER_MODIFIED'> = {
  name: 'ORDER_NAME',
  size: 'ORDER_SIZE',
  modified: 'ORDER_MODIFIED',
};
const ORDER_FROM_WIRE = invert(ORDER_TO_WIRE);

const DIRECTION_TO_WIRE: Record<SortDirection, 'DIRECTION_ASCENDING' | 'DIRECTION_DESCENDING'> = {
  ascending: 'DIRECTION_ASCENDING',
  descending: 'DIRECTION_DESCENDING',
};
const DIRECTION_FROM_WIRE = invert(DIRECTION_TO_WIRE);

const SHAPE_TO_WIRE: Record<Shape, 'SHAPE_TREE' | 'SHAPE_RANKED'> = { tree: 'SHAPE_TREE', ranked: 'SHAPE_RANKED' };
const SHAPE_FROM_WIRE = invert(SHAPE_TO_WIRE);

/** Wire enums may arrive as names (enums: String) or, from a permissive writer, as numbers. */
const ENTRY_TYPE_NUMBERS: WireEnum<WireEntryType>[] = [
  'ENTRY_TYPE_UNKNOWN',
  'ENTRY_TYPE_FILE',
  'ENTRY_TYPE_DIR',
  'ENTRY_TYPE_SYMLINK',
  'ENTRY_TYPE_FIFO',
  'ENTRY_TYPE_SOCKET',
  'ENTRY_TYPE_CHAR',
  'ENTRY_TYPE_BLOCK',
];

export function entryTypeToWire(t: EntryType): WireEnum<WireEntryType> {
  return TYPE_TO_WIRE[t];
}

export function entryTypeFromWire(t: WireEntryType | string | number): EntryType {
  const name = typeof t === 'number' ? ENTRY_TYPE_NUMBERS[t] : t;
  return TYPE_FROM_WIRE[name as WireEnum<WireEntryType>] ?? 'unknown';
}

function toBuffer(b: Buffer | Uint8Array | string | undefined | null): Buffer {
  if (b === undefined || b === null) return Buffer.alloc(0);
  if (Buffer.isBuffer(b)) return b;
  if (typeof b === 'string') return Buffer.from(b, 'base64');
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

// ---- request ----

export function requestToWire(req: WalkRequest): WireWalkRequest {
  return {
    path: req.path,
    maxDepth: req.maxDepth,
    maxItemsPerDir: req.maxItemsPerDir,
    capRoot: req.capRoot,
    maxEntries: req.maxEntries,
    order: ORDER_TO_WIRE[req.order],
    direction: DIRECTION_TO_WIRE[req.direction],
    shape: SHAPE_TO_WIRE[req.shape],
    topN: req.topN,
    offset: req.offset,
    include: req.include,
    exclude: req.exclude,
    types: req.types.map((t) => TYPE_TO_WIRE[t]),
    excludeHidden: req.excludeHidden,
    followSymlinks: req.followSymlinks,
    oneFileSystem: req.oneFileSystem,
    dirSizes: req.dirSizes,
    deadlineMs: req.deadlineMs,
    ...(req.after !== undefined ? { after: req.after, afterRow: RESUME_ROW_TO_WIRE[req.afterRow ?? 'entry'] } : {}),
  };
}

/** A decoded wire request → the input of core's `resolveWalkRequest` (0 = the default). */
export function wireToRequestInput(w: WireWalkRequestOut): WalkRequestInput {
  return {
    path: w.path,
    maxDepth: w.maxDepth,
    maxItemsPerDir: w.maxItemsPerDir,
    capRoot: w.capRoot,
    maxEntries: w.maxEntries,
    order: ORDER_FROM_WIRE[w.order as keyof typeof ORDER_FROM_WIRE] ?? 'name',
    direction: DIRECTION_FROM_WIRE[w.direction as keyof typeof DIRECTION_FROM_WIRE] ?? 'ascending',
    shape: SHAPE_FROM_WIRE[w.shape as keyof typeof SHAPE_FROM_WIRE] ?? 'tree',
    topN: w.topN,
    offset: w.offset,
    include: w.include,
    exclude: w.exclude,
    types: w.types.map((t) => entryTypeFromWire(t)),
    excludeHidden: w.excludeHidden,
    followSymlinks: w.followSymlinks,
    oneFileSystem: w.oneFileSystem,
    dirSizes: w.dirSizes,
    deadlineMs: w.deadlineMs,
    // Empty `after` with RESUME_ROW_ENTRY (the defaults) is no resume point; core reads it so.
    after: toBuffer(w.after),
    afterRow:
      typeof w.afterRow === 'number'
        ? ((['entry', 'error', 'warning'] as const)[w.afterRow] ?? (String(w.afterRow) as ResumeRow))
        : (RESUME_ROW_FROM_WIRE[w.afterRow as WireEnum<WireResumeRow>] ?? (w.afterRow as ResumeRow)),
  };
}

// ---- rows ----

function errorToWire(e: EntryError): { code: WireEnum<WireErrorCode>; detail: string } {
  return { code: ERROR_TO_WIRE[e.code], detail: e.detail };
}

export function entryToWire(e: Entry): WireEntry {
  const w: WireEntry = {
    path: e.path,
    type: TYPE_TO_WIRE[e.type],
    size: e.size,
    mtimeSec: e.mtimeSec,
    mtimeNsec: e.mtimeNsec,
    utcOffsetMin: e.utcOffsetMin,
    mode: e.mode,
    uid: e.uid,
    gid: e.gid,
    inode: e.inode,
    nlink: e.nlink,
    depth: e.depth,
  };
  if (e.linkTarget) w.linkTarget = e.linkTarget;
  if (e.error) w.error = errorToWire(e.error);
  if (e.sizePartial) w.sizePartial = true;
  return w;
}

export function entryFromWire(w: WireEntryOut): Entry {
  const e: Entry = {
    path: toBuffer(w.path),
    type: entryTypeFromWire(w.type),
    size: Number(w.size),
    mtimeSec: Number(w.mtimeSec),
    mtimeNsec: w.mtimeNsec,
    utcOffsetMin: w.utcOffsetMin,
    mode: w.mode,
    uid: w.uid,
    gid: w.gid,
    inode: Number(w.inode),
    nlink: Number(w.nlink),
    depth: w.depth,
  };
  const lt = toBuffer(w.linkTarget);
  if (lt.length > 0) e.linkTarget = lt;
  if (w.error && w.error.code !== 'ERROR_CODE_NONE') {
    e.error = {
      code: ERROR_FROM_WIRE[w.error.code as keyof typeof ERROR_FROM_WIRE] ?? 'ERROR',
      detail: w.error.detail,
    };
  }
  if (w.sizePartial) e.sizePartial = true;
  return e;
}

export function truncationToWire(t: Truncation): WireTruncation {
  return { dir: t.dir, shown: t.shown, total: t.total, reason: REASON_TO_WIRE[t.reason] };
}

export function truncationFromWire(w: WireTruncationOut): Truncation {
  return {
    dir: toBuffer(w.dir),
    shown: Number(w.shown),
    total: Number(w.total),
    reason: REASON_FROM_WIRE[w.reason as keyof typeof REASON_FROM_WIRE] ?? 'bytes',
  };
}

export function rowToWire(r: Row): WireRow {
  return r.kind === 'entry' ? { entry: entryToWire(r.entry) } : { truncation: truncationToWire(r.truncation) };
}

export function rowFromWire(w: WireRowOut): Row {
  if (w.entry) return { kind: 'entry', entry: entryFromWire(w.entry) };
  if (w.truncation) return { kind: 'truncation', truncation: truncationFromWire(w.truncation) };
  throw new Error('wire row carries neither an entry nor a truncation');
}

export function summaryToWire(s: WalkSummary): WireSummary {
  return {
    entriesSent: s.entriesSent,
    entriesSeen: s.entriesSeen,
    entriesMatched: s.entriesMatched,
    truncations: s.truncations.map(truncationToWire),
    elapsedMs: s.elapsedMs,
    depthLimitedDirs: s.depthLimitedDirs,
  };
}

export function summaryFromWire(w: WireSummaryOut): WalkSummary {
  return {
    entriesSent: Number(w.entriesSent),
    entriesSeen: Number(w.entriesSeen),
    entriesMatched: Number(w.entriesMatched),
    truncations: w.truncations.map(truncationFromWire),
    elapsedMs: Number(w.elapsedMs),
    depthLimitedDirs: Number(w.depthLimitedDirs),
  };
}

// ---- stat ----

export function statToWire(info: StatInfo, version: string): WireStatResponse {
  return {
    entry: entryToWire(info.entry),
    owner: info.owner,
    group: info.group,
    atimeSec: info.atimeSec,
    atimeNsec: info.atimeNsec,
    ctimeSec: info.ctimeSec,
    ctimeNsec: info.ctimeNsec,
    agentVersion: version,
  };
}

export function statFromWire(w: WireStatResponseOut): StatInfo & { agentVersion: string } {
  if (!w.entry) throw new Error('stat response carries no entry');
  return {
    entry: entryFromWire(w.entry),
    owner: w.owner,
    group: w.group,
    atimeSec: Number(w.atimeSec),
    atimeNsec: w.atimeNsec,
    ctimeSec: Number(w.ctimeSec),
    ctimeNsec: w.ctimeNsec,
    agentVersion: w.agentVersion,
  };
}

// ---- direct protobuf encoding of WalkResponse batches ----
// The agent's hot path: the walk worker encodes rows straight to protobuf bytes, which the
// service writes through an identity serializer. protobufjs' fromObject+encode costs tens
// of microseconds per entry (a Long per 64-bit field); this writer costs about one.
// wire.test.ts checks it against the protobufjs encoding of rowToWire, field for field.

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
}

const ENTRY_TYPE_NUMBER: Record<EntryType, number> = {
  unknown: 0,
  file: 1,
  dir: 2,
  symlink: 3,
  fifo: 4,
  socket: 5,
  char: 6,
  block: 7,
};
const ERROR_CODE_NUMBER: Record<EntryErrorCode, number> = { NOT_FOUND: 1, DENIED: 2, ERROR: 3 };
const REASON_NUMBER: Record<TruncationReason, number> = {
  bytes: 0,
  depth: 1,
  items_per_dir: 2,
  max_entries: 3,
  deadline: 4,
  top_n: 5,
};

function encodeEntry(w: ProtoWriter, e: Entry, scratch: ProtoWriter): void {
  w.bytes(1, e.path);
  w.uint(2, ENTRY_TYPE_NUMBER[e.type]);
  w.uint(3, e.size);
  w.int(4, e.mtimeSec);
  w.uint(5, e.mtimeNsec);
  w.sint(6, e.utcOffsetMin);
  w.uint(7, e.mode);
  w.uint(8, e.uid);
  w.uint(9, e.gid);
  w.uint(10, e.inode);
  w.uint(11, e.nlink);
  w.uint(12, e.depth);
  w.bytes(13, e.linkTarget);
  if (e.error) {
    scratch.reset();
    scratch.uint(1, ERROR_CODE_NUMBER[e.error.code]);
    scratch.string(2, e.error.detail);
    w.message(14, scratch);
  }
  w.bool(15, e.sizePartial);
}

function encodeTruncation(w: ProtoWriter, t: Truncation): void {
  w.bytes(1, t.dir);
  w.uint(2, t.shown);
  w.uint(3, t.total);
  w.uint(4, REASON_NUMBER[t.reason]);
}

/** Encodes rows (and the summary, on the last message) as one WalkResponse. */
export class WalkResponseEncoder {
  readonly out: ProtoWriter;
  private readonly row = new ProtoWriter(4096);
  private readonly inner = new ProtoWriter(4096);
  private readonly scratch = new ProtoWriter(256);

  constructor(capacity = 64 * 1024) {
    this.out = new ProtoWriter(capacity);
  }

  /** Appends one `rows` element. */
  addRow(r: Row): void {
    this.inner.reset();
    this.row.reset();
    if (r.kind === 'entry') {
      encodeEntry(this.inner, r.entry, this.scratch);
      this.row.message(1, this.inner);
    } else {
      encodeTruncation(this.inner, r.truncation);
      this.row.message(2, this.inner);
    }
    this.out.message(1, this.row);
  }

  setSummary(s: WalkSummary): void {
    this.inner.reset();
    this.inner.uint(1, s.entriesSent);
    this.inner.uint(2, s.entriesSeen);
    this.inner.uint(3, s.entriesMatched);
    for (const t of s.truncations) {
      this.row.reset();
      encodeTruncation(this.row, t);
      this.inner.message(4, this.row);
    }
    this.inner.uint(5, s.elapsedMs);
    this.inner.uint(6, s.depthLimitedDirs);
    this.out.message(2, this.inner);
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
