import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWalkRequest } from '@fleetls/core';
import { startSpareWorker, WalkPool } from './pool.js';
import { startWalk } from './walker.js';

let root: string;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-pool-')));
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(root, `f${i}`), '');
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('startSpareWorker', () => {
  it("is the first walk's worker, in the first pool that needs one, and only in that one", async () => {
    const spare = startSpareWorker();
    assert.equal(startSpareWorker(), spare, 'one spare at a time');
    const pool = new WalkPool();
    const w = startWalk(resolveWalkRequest({ path: root, maxDepth: 1 }), { pool, allowedRoots: [root] });
    let entries = 0;
    for (;;) {
      const r = await w.batches.next();
      if (r.done) break;
      entries += r.value.filter((row) => row.kind === 'entry').length;
    }
    assert.equal(entries, 10);
    assert.equal((await w.finished).cancelled, false);
    // Its walk over, the worker went back to the pool that took it: the next walk there gets it again.
    const again = pool.acquire();
    const other = new WalkPool().acquire();
    try {
      assert.equal(again, spare);
      assert.notEqual(other, spare, 'the spare was taken: another pool starts its own');
    } finally {
      await Promise.all([again.terminate(), other.terminate(), spare.terminate()]);
    }
  });
});
