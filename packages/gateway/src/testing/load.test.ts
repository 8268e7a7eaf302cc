import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WalkSummary } from '@fleetls/core';
import * as grpc from '@grpc/grpc-js';
import { checkRankedAnswer, silentLoss, type WalkOutcome } from './load.js';

const summary = (entriesSent: number, reasons: WalkSummary['truncations'][number]['reason'][] = []): WalkSummary => ({
  entriesSent,
  entriesSeen: entriesSent,
  entriesMatched: entriesSent,
  truncations: reasons.map((reason) => ({ dir: Buffer.alloc(0), shown: entriesSent, total: 0, reason })),
  elapsedMs: 1,
  depthLimitedDirs: 0,
});
const walk = (entries: number, s?: WalkSummary): WalkOutcome => ({
  entries,
  code: grpc.status.OK,
  ms: 1,
  ...(s ? { summary: s } : {}),
});

test('silentLoss: whole, or cut with the truncation that says why; anything else is named', () => {
  assert.equal(silentLoss(walk(315, summary(315)), 315), undefined);
  assert.equal(silentLoss(walk(295, summary(295, ['deadline'])), 315), undefined);
  assert.equal(silentLoss(walk(295, summary(295, ['max_entries'])), 315), undefined);
  assert.match(silentLoss(walk(295, summary(295)), 315) ?? '', /295 of 315 entries and no truncation says why/);
  assert.match(silentLoss(walk(295, summary(295, ['items_per_dir'])), 315) ?? '', /no truncation says why/);
  assert.match(silentLoss(walk(290, summary(295, ['deadline'])), 315) ?? '', /295 entries sent, 290 arrived/);
  assert.match(silentLoss(walk(315), 315) ?? '', /without a summary/);
});

test('checkRankedAnswer: counts the hosts, checks the merged top n', () => {
  const hosts = [
    { host: 'a', status: 'ok' },
    { host: 'b', status: 'error', message: 'agent x: too many concurrent walks (8)' },
    { host: 'c', status: 'ok' },
    { host: 'd', status: 'timeout', message: 'no answer within 20000 ms' },
  ];
  assert.deepEqual(
    checkRankedAnswer({ hosts, items: [{ size: 3 }, { size: 3 }, { size: 2 }] }, ['c', 'b', 'a', 'd'], 3, [1, 2, 3]),
    {
      ok: 2,
      refused: 1,
      timedOut: 1,
      partial: 0,
      pending: 0,
    },
  );
  // A scan page: a pending host is counted when the cursor to its rows is there, refused when not.
  const scanHosts = [
    { host: 'a', status: 'ok' },
    { host: 'b', status: 'pending' },
  ];
  assert.equal(
    checkRankedAnswer({ hosts: scanHosts, items: [{ size: 1 }], next_cursor: 'scan.x.1.0' }, ['a', 'b'], 1, [1])
      .pending,
    1,
  );
  assert.throws(
    () => checkRankedAnswer({ hosts: scanHosts, items: [{ size: 1 }] }, ['a', 'b'], 1, [1]),
    /host b: pending without a next_cursor/,
  );
  assert.throws(
    () => checkRankedAnswer({ hosts, items: [{ size: 3 }, { size: 2 }] }, ['a', 'b', 'c', 'd'], 2, [1, 2, 3]),
    /merged top n wrong/,
  );
  assert.throws(() => checkRankedAnswer({ hosts, items: [] }, ['a', 'b'], 2, [1]), /one status row per host/);
  assert.throws(
    () => checkRankedAnswer({ hosts: [{ host: 'a', status: 'unreachable' }], items: [] }, ['a'], 1, [1]),
    /host a: unreachable/,
  );
  // A timeout other than a deadline (a mount taken for hung) is not a load answer.
  assert.throws(
    () =>
      checkRankedAnswer(
        {
          hosts: [{ host: 'a', status: 'timeout', message: 'agent x: /d did not answer within 5000 ms; skipped' }],
          items: [],
        },
        ['a'],
        1,
        [1],
      ),
    /host a: timeout/,
  );
  // A host cut at its deadline after 2 rows: its two largest files are merged.
  assert.deepEqual(
    checkRankedAnswer(
      {
        hosts: [
          { host: 'a', status: 'ok' },
          {
            host: 'b',
            status: 'error',
            message: 'partial answer: the walk broke after 2 rows, then agent x: Deadline exceeded',
          },
        ],
        items: [{ size: 3 }, { size: 3 }, { size: 2 }, { size: 2 }, { size: 1 }],
      },
      ['a', 'b'],
      5,
      [1, 2, 3],
    ),
    { ok: 1, refused: 0, timedOut: 0, partial: 1, pending: 0 },
  );
});
