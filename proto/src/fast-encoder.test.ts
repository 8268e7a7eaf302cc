import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry, Row, WalkSummary } from '@fleetls/core';
import { rowToWire, summaryToWire } from './codec.js';
import { encodeWalkResponse } from './fast-encoder.js';
import { loadContract } from './index.js';

const entry: Entry = {
  path: Buffer.from([0x61, 0x2f, 0xff, 0xfe, 0x0a, 0x09]),
  type: 'symlink',
  size: 2 ** 40 + 3,
  mtimeSec: 1_700_000_000,
  mtimeNsec: 123_456_789,
  utcOffsetMin: -330,
  mode: 0o120777,
  uid: 1000,
  gid: 65534,
  inode: 2 ** 35,
  nlink: 3,
  depth: 2,
  linkTarget: Buffer.from('../t\u00e9'),
};

describe('fast-encoder', () => {
  it('encodes WalkResponse directly exactly as protobufjs does', () => {
    const { packageDefinition } = loadContract();
    const walkDef = (
      packageDefinition['fleetls.v1.Agent'] as unknown as Record<
        string,
        {
          responseSerialize: (v: unknown) => Buffer;
          responseDeserialize: (b: Buffer) => { rows: never[]; summary: never };
        }
      >
    ).Walk;
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
      {
        kind: 'entry',
        entry: { ...entry, type: 'dir', error: { code: 'ERROR', detail: 'symlink loop — é' }, sizePartial: true },
      },
      { kind: 'entry', entry: { ...entry, type: 'unknown', uid: 0, gid: 0, size: Number.MAX_SAFE_INTEGER } },
      { kind: 'truncation', truncation: { dir: Buffer.from('a/b'), shown: 0, total: 2 ** 33, reason: 'deadline' } },
    ];
    const summary: WalkSummary = {
      entriesSent: 4,
      entriesSeen: 300_000,
      entriesMatched: 0,
      truncations: [{ dir: Buffer.alloc(0), shown: 4, total: 9, reason: 'top_n' }],
      elapsedMs: 1,
      depthLimitedDirs: 0,
    };
    for (const s of [undefined, summary, { ...summary, applied: ['min_size' as const, 'name' as const] }]) {
      const direct = encodeWalkResponse(rows, s);
      const reference = walkDef.responseSerialize({ rows: rows.map(rowToWire), summary: s ? summaryToWire(s) : null });
      assert.deepEqual(walkDef.responseDeserialize(direct), walkDef.responseDeserialize(reference));
    }
  });
});
