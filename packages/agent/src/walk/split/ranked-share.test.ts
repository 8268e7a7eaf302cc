// A ranked walk shared with a helper thread (ranked-share.ts) gives the rows and summary the
// walk gives on one thread (split: false), whichever of the two threads takes which
// directory: both orders and directions, an offset, a types filter, ties on size and mtime
// (the path decides them), hard links, a FIFO, a symlink and an unreadable directory. The
// tree has more directories than a walk reads before it hands the rest out, so some always are.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { type Row, resolveWalkRequest, type WalkRequestInput, type WalkSummary } from '@fleetls/core';
import { WalkPool } from '../pool.js';
import { startWalk, type WalkOutcome } from '../walker.js';

const pool = new WalkPool();
let root: string;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-share-')));
  // 1,200 directories: more than a walk reads before it hands the rest out (1024).
  for (let d = 0; d < 40; d++)
    for (let e = 0; e < 30; e++) {
      const dir = path.join(root, `d${d}`, `e${e}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let i = 0; i < 3; i++) {
        const f = path.join(dir, `f${i}`);
        fs.writeFileSync(f, 'x'.repeat((i * 7 + d + e) % 19));
        const t = 1_700_000_000 + (i % 4);
        fs.utimesSync(f, t, t);
      }
    }
  fs.linkSync(path.join(root, 'd0/e0/f2'), path.join(root, 'hard'));
  fs.symlinkSync('d0', path.join(root, 'link'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  fs.mkdirSync(path.join(root, 'd5', 'locked'));
  fs.chmodSync(path.join(root, 'd5', 'locked'), 0);
});

after(() => {
  fs.chmodSync(path.join(root, 'd5', 'locked'), 0o755);
  fs.rmSync(root, { recursive: true, force: true });
});

async function run(
  input: Omit<WalkRequestInput, 'path'>,
  split: boolean | undefined,
): Promise<{ rows: Row[]; summary: WalkSummary; outcome: WalkOutcome }> {
  const req = resolveWalkRequest({ path: root, shape: 'ranked', maxDepth: 64, ...input });
  const w = startWalk(req, { pool, allowedRoots: [root], find: false, split });
  const rows: Row[] = [];
  for (;;) {
    const r = await w.batches.next();
    if (r.done) return { rows, summary: { ...r.value, elapsedMs: 0 }, outcome: await w.finished };
    rows.push(...r.value);
  }
}

it('gives the rows and summary of the walk on one thread', async () => {
  const requests: Omit<WalkRequestInput, 'path'>[] = [
    { order: 'size', direction: 'descending', topN: 10 },
    { order: 'size', direction: 'ascending', topN: 25, offset: 7 },
    { order: 'modified', direction: 'descending', topN: 3 },
    { order: 'modified', direction: 'ascending', topN: 200, types: ['file'] },
  ];
  for (const input of requests) {
    const shared = await run(input, undefined);
    const alone = await run(input, false);
    assert.deepEqual(shared.rows, alone.rows, JSON.stringify(input));
    assert.deepEqual(shared.summary, alone.summary, JSON.stringify(input));
    assert.ok((shared.outcome.split?.given ?? 0) > 0, `directories handed out: ${JSON.stringify(shared.outcome)}`);
    assert.equal(alone.outcome.split, undefined);
  }
});

it('asks for a helper thread only once it has directories to hand out', async () => {
  const acquire = pool.acquire.bind(pool);
  let taken = 0;
  pool.acquire = (opts) => {
    taken++;
    return acquire(opts);
  };
  try {
    // One directory of the tree: read whole before there are any to hand out (a fan-out's small walk).
    const small = resolveWalkRequest({ path: path.join(root, 'd1'), shape: 'ranked', order: 'size', topN: 10 });
    const w = startWalk(small, { pool, allowedRoots: [root], find: false });
    while (!(await w.batches.next()).done);
    assert.equal((await w.finished).split, undefined);
    assert.equal(taken, 1, 'the walk worker alone');
    taken = 0;
    const { outcome } = await run({ order: 'size', direction: 'descending', topN: 10 }, undefined);
    assert.ok((outcome.split?.given ?? 0) > 0, JSON.stringify(outcome));
    assert.equal(taken, 2, 'the walk worker and its helper');
  } finally {
    pool.acquire = acquire;
  }
});
