import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry, Row, WalkSummary } from '@fleetls/core';
import { rowFromWire, rowToWire, summaryFromWire, summaryToWire } from './codec.js';
import { decodeWalkResponse } from './fast-decoder.js';
import { encodeWalkResponse, ProtoWriter } from './fast-encoder.js';
import type { WalkResponse__Output as WireWalkResponseOut } from './gen/fleetls/v1/WalkResponse.js';
import { loadContract } from './index.js';

type Codec = { responseSerialize: (v: unknown) => Buffer; responseDeserialize: (b: Buffer) => WireWalkResponseOut };
const walkDef = (loadContract().packageDefinition['fleetls.v1.Agent'] as unknown as Record<string, Codec>).Walk;

/** What the gateway made of a message before: protobufjs' decode and toObject, then the codec. */
function reference(bytes: Buffer): { rows: Row[]; summary?: WalkSummary } {
  const w = walkDef.responseDeserialize(bytes);
  const rows = w.rows.map(rowFromWire);
  return w.summary ? { rows, summary: summaryFromWire(w.summary) } : { rows };
}

const entry: Entry = {
  path: Buffer.from([0x61, 0x2f, 0xff, 0xfe, 0x0a, 0x09]),
  type: 'symlink',
  size: 2 ** 40 + 3,
  mtimeSec: 1_700_000_000,
  mtimeNsec: 123_456_789,
  utcOffsetMin: -330,
  mode: 0o120777,
  uid: 1000,
  gid: 4_294_967_294,
  inode: 2 ** 35,
  nlink: 3,
  depth: 2,
  linkTarget: Buffer.from('../t\u00e9'),
};

const rows: Row[] = [
  { kind: 'entry', entry },
  {
    kind: 'entry',
    entry: {
      ...entry,
      mtimeSec: -86_400 * 365,
      mtimeNsec: 5,
      utcOffsetMin: 60,
      size: 0,
      path: Buffer.alloc(0),
      linkTarget: undefined,
    },
  },
  { kind: 'entry', entry: { ...entry, mtimeSec: -1, utcOffsetMin: -1 } },
  {
    kind: 'entry',
    entry: { ...entry, type: 'dir', error: { code: 'TIMEOUT', detail: 'symlink loop — é' }, sizePartial: true },
  },
  {
    kind: 'entry',
    entry: { ...entry, type: 'unknown', uid: 0, gid: 0, size: Number.MAX_SAFE_INTEGER, inode: 2 ** 63 },
  },
  { kind: 'truncation', truncation: { dir: Buffer.from('a/b'), shown: 0, total: 2 ** 33, reason: 'deadline' } },
  { kind: 'truncation', truncation: { dir: Buffer.alloc(0), shown: 7, total: 9, reason: 'bytes' } },
];
const summary: WalkSummary = {
  entriesSent: 4,
  entriesSeen: 300_000,
  entriesMatched: 0,
  truncations: [
    { dir: Buffer.alloc(0), shown: 4, total: 9, reason: 'top_n' },
    { dir: Buffer.from('x'), shown: 1, total: 2, reason: 'depth' },
  ],
  elapsedMs: 1,
  depthLimitedDirs: 12,
};

describe('fast-decoder', () => {
  it('decodes WalkResponse into the rows and summary protobufjs and the codec made', () => {
    for (const s of [undefined, summary, { ...summary, applied: ['min_size' as const, 'name' as const] }]) {
      for (const bytes of [
        encodeWalkResponse(rows, s),
        walkDef.responseSerialize({ rows: rows.map(rowToWire), summary: s ? summaryToWire(s) : null }),
      ]) {
        assert.deepEqual(decodeWalkResponse(bytes), reference(bytes));
      }
    }
    assert.deepEqual(decodeWalkResponse(Buffer.alloc(0)), { rows: [] });
  });

  it('skips fields it does not know and reads unknown enum numbers as the codec does', () => {
    const inner = new ProtoWriter();
    inner.bytes(1, Buffer.from('p'));
    inner.uint(2, 99); // an entry type from a newer agent
    inner.uint(99, 12345); // unknown varint field
    inner.bytes(98, Buffer.from('unknown')); // unknown length-delimited field
    inner.varint((97 << 3) | 1); // unknown fixed64
    for (let i = 0; i < 8; i++) inner.byte(i);
    inner.varint((96 << 3) | 5); // unknown fixed32
    for (let i = 0; i < 4; i++) inner.byte(i);
    const err = new ProtoWriter();
    err.uint(1, 42); // an error code from a newer agent
    err.string(2, 'why');
    inner.message(14, err);
    const row = new ProtoWriter();
    row.message(1, inner);
    const trunc = new ProtoWriter();
    trunc.uint(4, 77); // an unknown truncation reason
    const row2 = new ProtoWriter();
    row2.message(2, trunc);
    const msg = new ProtoWriter();
    msg.message(1, row);
    msg.message(1, row2);
    msg.uint(50, 1); // unknown top-level field
    const bytes = Buffer.from(msg.buf.subarray(0, msg.pos));
    const got = decodeWalkResponse(bytes);
    assert.deepEqual(got, reference(bytes));
    assert.equal(got.rows[0].kind === 'entry' && got.rows[0].entry.type, 'unknown');
    assert.equal(got.rows[0].kind === 'entry' && got.rows[0].entry.error?.code, 'ERROR');
  });

  it('refuses a truncated message, and keeps no view of the caller’s buffer', () => {
    const bytes = encodeWalkResponse(rows, summary);
    for (const cut of [1, 7, bytes.length - 1]) {
      assert.throws(() => decodeWalkResponse(bytes.subarray(0, cut)), /WalkResponse: truncated or malformed/);
    }
    const got = decodeWalkResponse(bytes);
    bytes.fill(0);
    assert.deepEqual(got.rows[0], rows[0]);
  });
});
