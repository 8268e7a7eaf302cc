import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWalkRequest } from '@fleetls/core';
import { createFsSource } from '../fs/source.js';
import { loadFindWalk } from './find-source.js';
import { probeFind } from './route.js';

// 40,000 files of one size under two directories: every one a candidate tied at the K-th key,
// and enough for find and awk to run across several of the agent's 20 ms looks at awk.
let root: string;
before(async () => {
  assert.equal(await probeFind(), true, 'GNU find and awk on this host');
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-find-source-')));
  for (const d of ['a', 'b']) {
    fs.mkdirSync(path.join(root, d));
    for (let i = 0; i < 20_000; i++) fs.closeSync(fs.openSync(path.join(root, d, `f${i}`), 'w'));
  }
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the find route of a ranked walk', () => {
  const req = resolveWalkRequest({ path: '/', shape: 'ranked', order: 'size', topN: 10, maxDepth: 3 });
  const load = (awkMaxBytes?: number) => {
    const source = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    return loadFindWalk({ ...req, path: root }, { fs: source, isCancelled: () => false, awkMaxBytes }).finally(() =>
      source.close(),
    );
  };

  it('lists with find and awk within their bounds', async () => {
    const loaded = await load();
    assert.ok(loaded && 'source' in loaded, JSON.stringify(loaded));
  });

  it('stops awk past its memory bound, and the JS walker lists the walk instead (issue 35, F6)', async () => {
    // One byte: awk is past it from its start (its resident pages are read while it reads find's output).
    const loaded = await load(1);
    assert.deepEqual(loaded, { fallback: 'awk held more than 1 bytes of candidates (ties at the K-th best key)' });
  });
});
