import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowToWire, summaryToWire } from '../codec.js';
import { loadContract } from '../index.js';
import { EDGE_ROWS, EDGE_SUMMARIES } from '../testing/walk-rows.js';
import { encodeWalkResponse } from './fast-encoder.js';

describe('fast-encoder', () => {
  it('encodes WalkResponse directly exactly as protobufjs does', () => {
    const walk = loadContract().proto.fleetls.v1.Agent.service.Walk;
    for (const s of EDGE_SUMMARIES) {
      const direct = encodeWalkResponse(EDGE_ROWS, s);
      const reference = walk.responseSerialize({
        rows: EDGE_ROWS.map(rowToWire),
        summary: s ? summaryToWire(s) : null,
      });
      assert.deepEqual(walk.responseDeserialize(direct), walk.responseDeserialize(reference));
    }
  });
});
