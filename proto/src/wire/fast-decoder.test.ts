import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row, WalkSummary } from '@fleetls/core';
import { rowFromWire, rowToWire, summaryFromWire, summaryToWire } from '../codec.js';
import { loadContract } from '../index.js';
import { EDGE_ROWS, EDGE_SUMMARIES, EDGE_SUMMARY } from '../testing/walk-rows.js';
import { decodeWalkResponse } from './fast-decoder.js';
import { encodeWalkProgress, encodeWalkResponse, ProtoWriter } from './fast-encoder.js';

const walk = loadContract().proto.fleetls.v1.Agent.service.Walk;

/** What the gateway made of a message before: protobufjs' decode and toObject, then the codec. */
function reference(bytes: Buffer): { rows: Row[]; summary?: WalkSummary } {
  const w = walk.responseDeserialize(bytes);
  const rows = w.rows.map(rowFromWire);
  return w.summary ? { rows, summary: summaryFromWire(w.summary) } : { rows };
}

describe('fast-decoder', () => {
  it('decodes WalkResponse into the rows and summary protobufjs and the codec made', () => {
    for (const s of EDGE_SUMMARIES) {
      for (const bytes of [
        encodeWalkResponse(EDGE_ROWS, s),
        walk.responseSerialize({ rows: EDGE_ROWS.map(rowToWire), summary: s ? summaryToWire(s) : null }),
      ]) {
        assert.deepEqual(decodeWalkResponse(bytes), reference(bytes));
      }
    }
    assert.deepEqual(decodeWalkResponse(Buffer.alloc(0)), { rows: [] });
  });

  it('decodes a progress message: no rows, the entries read so far, as protobufjs reads it', () => {
    const bytes = encodeWalkProgress(5_000_000_123);
    assert.deepEqual(decodeWalkResponse(bytes), { rows: [], entriesSeen: 5_000_000_123 });
    const w = walk.responseDeserialize(bytes);
    assert.equal(Number(w.entriesSeen), 5_000_000_123);
    assert.deepEqual(w.rows, []);
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
    const bytes = encodeWalkResponse(EDGE_ROWS, EDGE_SUMMARY);
    for (const cut of [1, 7, bytes.length - 1]) {
      assert.throws(() => decodeWalkResponse(bytes.subarray(0, cut)), /WalkResponse: truncated or malformed/);
    }
    const got = decodeWalkResponse(bytes);
    bytes.fill(0);
    assert.deepEqual(got.rows[0], EDGE_ROWS[0]);
  });
});
