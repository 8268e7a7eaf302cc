import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatInfo } from '@fleetls/core';
import { rowToWire, statToWire, summaryToWire } from '../codec.js';
import { loadContract } from '../index.js';
import { EDGE_ROWS, EDGE_SUMMARIES } from '../testing/walk-rows.js';
import { encodeStatResponse, encodeWalkResponse } from './fast-encoder.js';

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

  it('encodes StatResponse directly as protobufjs encodes statToWire', () => {
    const stat = loadContract().proto.fleetls.v1.Agent.service.Stat;
    for (const row of EDGE_ROWS) {
      if (row.kind !== 'entry') continue;
      for (const times of [
        { atimeSec: 1_700_000_000, atimeNsec: 999_999_999, ctimeSec: 2 ** 40, ctimeNsec: 1 },
        { atimeSec: -86_400, atimeNsec: 0, ctimeSec: -1, ctimeNsec: 0 },
        { atimeSec: 0, atimeNsec: 0, ctimeSec: 0, ctimeNsec: 0 },
      ]) {
        for (const [owner, group, version] of [
          ['root', 'wheel', '1.2.3'],
          ['', '', ''],
          ['ünïcode', '1000', '0.1.0-dev+abc'],
        ]) {
          const info: StatInfo = { entry: row.entry, owner, group, ...times };
          const reference = stat.responseSerialize(statToWire(info, version));
          assert.deepEqual(
            stat.responseDeserialize(encodeStatResponse(info, version)),
            stat.responseDeserialize(reference),
          );
        }
      }
    }
  });
});
