import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FleetError, resolveWalkRequest } from '@fleetls/core';
import { createLocalBackend } from './local-backend.js';
import { createWalkAdmission } from './walk-admission.js';
import { WalkPool } from './walk-pool.js';

describe('createWalkAdmission', () => {
  it('admits max walks, refuses the next with resource_exhausted naming the limit, and takes a slot back once', () => {
    const a = createWalkAdmission(2, new WalkPool());
    const first = a.enter();
    a.enter();
    assert.equal(a.active(), 2);
    assert.throws(
      () => a.check(),
      (err: unknown) =>
        err instanceof FleetError &&
        err.code === 'resource_exhausted' &&
        err.message === 'too many concurrent walks: 2 running, max_concurrent_walks is 2',
    );
    assert.throws(() => a.enter(), /too many concurrent walks/);
    assert.equal(a.active(), 2, 'a refused walk takes no slot');
    first();
    first();
    assert.equal(a.active(), 1, 'giving a slot back twice gives back one');
    a.enter();
    assert.equal(a.active(), 2);
  });
});

describe('the embedded backend admits walks as the agent does', () => {
  let root: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-admission-')));
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, `f${i}`), '');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('runs max_concurrent_walks at once, refuses the next one before its path is resolved, admits again once one ends', async () => {
    const b = createLocalBackend({ allowedRoots: [root], maxConcurrentWalks: 2 });
    const signal = new AbortController().signal;
    const req = resolveWalkRequest({ path: root, maxDepth: 1 });
    // Two walks that have started and are held by their consumer.
    const held = [b.walk(req, signal), b.walk(req, signal)];
    for (const g of held) assert.equal((await g.next()).done, false);
    const refused = (p: string) =>
      assert.rejects(
        b.walk(resolveWalkRequest({ path: p, maxDepth: 1 }), signal).next(),
        (err: unknown) =>
          FleetError.from(err).code === 'resource_exhausted' &&
          /^too many concurrent walks: 2 running, max_concurrent_walks is 2$/.test((err as Error).message),
      );
    await refused(root);
    // Even a path outside the roots: the refusal comes first, as the agent's does.
    await refused('/etc');
    await held[0].return(undefined as never);
    const again = b.walk(req, signal);
    assert.equal((await again.next()).done, false, 'a slot given back is taken again');
    await again.return(undefined as never);
    await held[1].return(undefined as never);
  });
});
