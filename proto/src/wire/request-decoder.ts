// The agent's two requests decoded by hand, into exactly the objects proto-loader made of them
// (protobufjs 7.6's decode, then toObject with contract.ts's LOADER_OPTIONS: defaults, enum
// names with unknown numbers kept as numbers, 64-bit integers as Numbers, bytes as Buffer views,
// IdMatch's oneof named in `by`). An agent then serves its contract without loading protobufjs:
// decoding the contract's descriptors at start was most of its idle heap above the runtime's
// (bench/results/footprint.why.md). The reader repeats protobufjs' own, quirks included (a
// string longer than what is left is cut at the end, a wire type that does not match the field
// is read as the field's type, unknown fields skipped, groups skipped to a depth of 100), so that
// any bytes give what they gave before or fail where they failed; request-decoder.test.ts checks
// both against protobufjs over random messages and random bytes.
import type { Filter__Output as WireFilterOut } from '../gen/fleetls/v1/Filter.js';
import type { IdMatch__Output as WireIdMatchOut } from '../gen/fleetls/v1/IdMatch.js';
import type { StatRequest__Output as WireStatRequestOut } from '../gen/fleetls/v1/StatRequest.js';
import type { WalkRequest__Output as WireWalkRequestOut } from '../gen/fleetls/v1/WalkRequest.js';
import { FILTER, ID_MATCH, INSTANT, PERM_MATCH, SIZE_BOUND, STAT_REQUEST, WALK_REQUEST } from '../gen/wire-numbers.js';
import { ENUM_VALUES } from './enum-values.js';

const TWO_32 = 4294967296;
/** protobufjs' util.recursionLimit (protoc's default). */
const RECURSION_LIMIT = 100;

function outOfRange(r: Reader, length?: number): RangeError {
  return new RangeError(`index out of range: ${r.pos} + ${length || 1} > ${r.len}`);
}

/** protobufjs' BufferReader: the same reads, bounds and errors. */
export class Reader {
  pos = 0;
  len: number;

  constructor(readonly buf: Buffer) {
    this.len = buf.length;
  }

  uint32(): number {
    const buf = this.buf;
    if (this.len - this.pos < 5) {
      if (this.pos >= this.len) throw outOfRange(this);
      if (buf[this.pos] >= 128) return this.uint32NearEnd();
    }
    // At least 5 bytes left: read unchecked; a 6th to 10th byte is skipped, not read.
    let value = (buf[this.pos] & 127) >>> 0;
    if (buf[this.pos++] < 128) return value;
    value = (value | ((buf[this.pos] & 127) << 7)) >>> 0;
    if (buf[this.pos++] < 128) return value;
    value = (value | ((buf[this.pos] & 127) << 14)) >>> 0;
    if (buf[this.pos++] < 128) return value;
    value = (value | ((buf[this.pos] & 127) << 21)) >>> 0;
    if (buf[this.pos++] < 128) return value;
    value = (value | ((buf[this.pos] & 15) << 28)) >>> 0;
    if (buf[this.pos++] < 128) return value;
    this.pos += 5;
    if (this.pos > this.len) {
      this.pos = this.len;
      throw outOfRange(this, 10);
    }
    return value;
  }

  private uint32NearEnd(): number {
    let value = 0;
    for (let i = 0; i < 4; ++i) {
      if (this.pos >= this.len) throw outOfRange(this);
      const b = this.buf[this.pos++];
      value = (value | ((b & 127) << (i * 7))) >>> 0;
      if (b < 128) return value;
    }
    throw outOfRange(this);
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** A 64-bit varint as Number: protobufjs' readLongVarint, then LongBits.toNumber. */
  long(unsigned: boolean): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let i = 0;
    const done = () => {
      if (!unsigned && hi >>> 31) {
        const nlo = (~lo + 1) >>> 0;
        let nhi = ~hi >>> 0;
        if (!nlo) nhi = (nhi + 1) >>> 0;
        return -(nlo + nhi * TWO_32);
      }
      return lo + hi * TWO_32;
    };
    if (this.len - this.pos > 4) {
      for (; i < 4; ++i) {
        lo = (lo | ((buf[this.pos] & 127) << (i * 7))) >>> 0;
        if (buf[this.pos++] < 128) return done();
      }
      lo = (lo | ((buf[this.pos] & 127) << 28)) >>> 0;
      hi = (hi | ((buf[this.pos] & 127) >> 4)) >>> 0;
      if (buf[this.pos++] < 128) return done();
      i = 0;
    } else {
      for (; i < 3; ++i) {
        if (this.pos >= this.len) throw outOfRange(this);
        lo = (lo | ((buf[this.pos] & 127) << (i * 7))) >>> 0;
        if (buf[this.pos++] < 128) return done();
      }
      // protobufjs takes a 4th byte as the last, whatever its high bit says.
      lo = (lo | ((buf[this.pos++] & 127) << (i * 7))) >>> 0;
      return done();
    }
    const checked = this.len - this.pos <= 4;
    for (; i < 5; ++i) {
      if (checked && this.pos >= this.len) throw outOfRange(this);
      hi = (hi | ((buf[this.pos] & 127) << (i * 7 + 3))) >>> 0;
      if (buf[this.pos++] < 128) return done();
    }
    throw new Error('invalid varint encoding');
  }

  /** A view of the bytes (Buffer.slice), or a fresh empty Buffer. */
  bytes(): Buffer {
    const length = this.uint32();
    const start = this.pos;
    const end = this.pos + length;
    if (end > this.len) throw outOfRange(this, length);
    this.pos += length;
    return start === end ? Buffer.alloc(0) : this.buf.subarray(start, end);
  }

  /** UTF-8 text; a length past the end is cut there, as BufferReader does. */
  string(): string {
    const len = this.uint32();
    const start = this.pos;
    this.pos = Math.min(this.pos + len, this.len);
    return this.buf.toString('utf8', start, this.pos);
  }

  skip(length?: number): void {
    if (length !== undefined) {
      if (this.pos + length > this.len) throw outOfRange(this, length);
      this.pos += length;
      return;
    }
    do {
      if (this.pos >= this.len) throw outOfRange(this);
    } while (this.buf[this.pos++] & 128);
  }

  skipType(wireType: number, depth: number): void {
    if (depth > RECURSION_LIMIT) throw new Error('maximum nesting depth exceeded');
    switch (wireType) {
      case 0:
        this.skip();
        break;
      case 1:
        this.skip(8);
        break;
      case 2:
        this.skip(this.uint32());
        break;
      case 3: {
        for (let inner = this.uint32() & 7; inner !== 4; inner = this.uint32() & 7) this.skipType(inner, depth + 1);
        break;
      }
      case 5:
        this.skip(4);
        break;
      default:
        throw new Error(`invalid wire type ${wireType} at offset ${this.pos}`);
    }
  }
}

/**
 * One message's fields, as protobufjs' generated decode walks them: `length` undefined for the
 * outermost message, else the reads are bounded by its end and must stop exactly there.
 * `field` reads one field after its tag, given the message's end; unknown ones it skips.
 */
export function readMessage(
  reader: Reader,
  length: number | undefined,
  depth: number,
  field: (tag: number, end: number) => void,
): void {
  if (depth > RECURSION_LIMIT) throw new Error('maximum nesting depth exceeded');
  let end: number;
  let outer = 0;
  if (length === undefined) end = reader.len;
  else {
    end = reader.pos + length;
    if (end > reader.len) throw new RangeError('index out of range');
    outer = reader.len;
    reader.len = end;
  }
  while (reader.pos < end) field(reader.uint32(), end);
  if (length !== undefined) {
    if (reader.pos !== end) throw new RangeError('index out of range');
    reader.len = outer;
  }
}

/** An enum's number → its value's name, or the number itself when the .proto names none (toObject's enums: String). */
function enumNames(fullName: string): (n: number) => string {
  const values = ENUM_VALUES[fullName];
  if (!values) throw new Error(`request-decoder: the contract has no enum ${fullName}`);
  const names = new Map(Object.entries(values).map(([name, n]) => [n, name]));
  return (n) => names.get(n) ?? (n as unknown as string);
}

const ORDER = enumNames('fleetls.v1.Order');
const DIRECTION = enumNames('fleetls.v1.Direction');
const SHAPE = enumNames('fleetls.v1.Shape');
const ENTRY_TYPE = enumNames('fleetls.v1.EntryType');
const RESUME_ROW = enumNames('fleetls.v1.ResumeRow');
const PERM_KIND = enumNames('fleetls.v1.PermKind');

function readSizeBound(r: Reader, depth: number): { bytes: number } {
  const out = { bytes: 0 };
  readMessage(r, r.uint32(), depth, (tag) => {
    if (tag >>> 3 === SIZE_BOUND.bytes) out.bytes = r.long(true);
    else r.skipType(tag & 7, depth);
  });
  return out;
}

function readInstant(r: Reader, depth: number): { sec: number; nsec: number } {
  const out = { sec: 0, nsec: 0 };
  readMessage(r, r.uint32(), depth, (tag) => {
    const field = tag >>> 3;
    if (field === INSTANT.sec) out.sec = r.long(false);
    else if (field === INSTANT.nsec) out.nsec = r.uint32();
    else r.skipType(tag & 7, depth);
  });
  return out;
}

function readIdMatch(r: Reader, depth: number): WireIdMatchOut {
  let id: number | undefined;
  let name: string | undefined;
  readMessage(r, r.uint32(), depth, (tag) => {
    const field = tag >>> 3;
    if (field === ID_MATCH.id) id = r.uint32();
    else if (field === ID_MATCH.name) name = r.string();
    else r.skipType(tag & 7, depth);
  });
  // toObject visits the fields in declaration order: with both on the wire, `by` names the later.
  const out: WireIdMatchOut = {};
  if (id !== undefined) Object.assign(out, { id, by: 'id' });
  if (name !== undefined) Object.assign(out, { name, by: 'name' });
  return out;
}

function readPermMatch(r: Reader, depth: number): { kind: string; mode: number } {
  const out = { kind: PERM_KIND(0), mode: 0 };
  readMessage(r, r.uint32(), depth, (tag) => {
    const field = tag >>> 3;
    if (field === PERM_MATCH.kind) out.kind = PERM_KIND(r.int32());
    else if (field === PERM_MATCH.mode) out.mode = r.uint32();
    else r.skipType(tag & 7, depth);
  });
  return out;
}

function readFilter(r: Reader, depth: number): WireFilterOut {
  const out: WireFilterOut = {
    minSize: null,
    maxSize: null,
    modifiedAfter: null,
    modifiedBefore: null,
    owner: null,
    group: null,
    perm: null,
    name: '',
  };
  const inner = depth + 1;
  readMessage(r, r.uint32(), depth, (tag) => {
    const field = tag >>> 3;
    if (field === FILTER.minSize) out.minSize = readSizeBound(r, inner);
    else if (field === FILTER.maxSize) out.maxSize = readSizeBound(r, inner);
    else if (field === FILTER.modifiedAfter) out.modifiedAfter = readInstant(r, inner);
    else if (field === FILTER.modifiedBefore) out.modifiedBefore = readInstant(r, inner);
    else if (field === FILTER.owner) out.owner = readIdMatch(r, inner);
    else if (field === FILTER.group) out.group = readIdMatch(r, inner);
    else if (field === FILTER.perm) out.perm = readPermMatch(r, inner) as WireFilterOut['perm'];
    else if (field === FILTER.name) out.name = r.string();
    else r.skipType(tag & 7, depth);
  });
  return out;
}

/**
 * A repeated enum's values, packed or not whatever the .proto says (protobufjs reads both),
 * appended to `into`; `end` is the end of the message the field is in.
 */
function readEnums(r: Reader, tag: number, end: number, names: (n: number) => string, into: string[]): void {
  if ((tag & 7) !== 2) {
    into.push(names(r.int32()));
    return;
  }
  const packedEnd = r.uint32() + r.pos;
  if (packedEnd > r.len) throw new RangeError('index out of range');
  r.len = packedEnd;
  while (r.pos < packedEnd) into.push(names(r.int32()));
  if (r.pos !== packedEnd) throw new RangeError('index out of range');
  r.len = end;
}

/** A WalkRequest's bytes → the object proto-loader's deserializer made of them; throws where it threw. */
export function decodeWalkRequest(bytes: Buffer): WireWalkRequestOut {
  const r = new Reader(bytes);
  const out = {
    include: [] as string[],
    exclude: [] as string[],
    types: [] as string[],
    path: '',
    maxDepth: 0,
    maxItemsPerDir: 0,
    capRoot: false,
    maxEntries: 0,
    order: ORDER(0),
    direction: DIRECTION(0),
    shape: SHAPE(0),
    topN: 0,
    offset: 0,
    excludeHidden: false,
    followSymlinks: false,
    oneFileSystem: false,
    dirSizes: false,
    deadlineMs: 0,
    after: Buffer.alloc(0) as Buffer,
    afterRow: RESUME_ROW(0),
    filter: null as WireFilterOut | null,
  };
  readMessage(r, undefined, 0, (tag, end) => {
    const field = tag >>> 3;
    if (field === WALK_REQUEST.path) out.path = r.string();
    else if (field === WALK_REQUEST.maxDepth) out.maxDepth = r.uint32();
    else if (field === WALK_REQUEST.maxItemsPerDir) out.maxItemsPerDir = r.uint32();
    else if (field === WALK_REQUEST.capRoot) out.capRoot = r.bool();
    else if (field === WALK_REQUEST.maxEntries) out.maxEntries = r.uint32();
    else if (field === WALK_REQUEST.order) out.order = ORDER(r.int32());
    else if (field === WALK_REQUEST.direction) out.direction = DIRECTION(r.int32());
    else if (field === WALK_REQUEST.shape) out.shape = SHAPE(r.int32());
    else if (field === WALK_REQUEST.topN) out.topN = r.uint32();
    else if (field === WALK_REQUEST.offset) out.offset = r.uint32();
    else if (field === WALK_REQUEST.include) out.include.push(r.string());
    else if (field === WALK_REQUEST.exclude) out.exclude.push(r.string());
    else if (field === WALK_REQUEST.types) readEnums(r, tag, end, ENTRY_TYPE, out.types);
    else if (field === WALK_REQUEST.excludeHidden) out.excludeHidden = r.bool();
    else if (field === WALK_REQUEST.followSymlinks) out.followSymlinks = r.bool();
    else if (field === WALK_REQUEST.oneFileSystem) out.oneFileSystem = r.bool();
    else if (field === WALK_REQUEST.dirSizes) out.dirSizes = r.bool();
    else if (field === WALK_REQUEST.deadlineMs) out.deadlineMs = r.uint32();
    else if (field === WALK_REQUEST.after) out.after = r.bytes();
    else if (field === WALK_REQUEST.afterRow) out.afterRow = RESUME_ROW(r.int32());
    else if (field === WALK_REQUEST.filter) out.filter = readFilter(r, 1);
    else r.skipType(tag & 7, 0);
  });
  return out as WireWalkRequestOut;
}

/** A StatRequest's bytes → the object proto-loader's deserializer made of them; throws where it threw. */
export function decodeStatRequest(bytes: Buffer): WireStatRequestOut {
  const r = new Reader(bytes);
  const out: WireStatRequestOut = { path: '', followSymlinks: false };
  readMessage(r, undefined, 0, (tag) => {
    const field = tag >>> 3;
    if (field === STAT_REQUEST.path) out.path = r.string();
    else if (field === STAT_REQUEST.followSymlinks) out.followSymlinks = r.bool();
    else r.skipType(tag & 7, 0);
  });
  return out;
}
