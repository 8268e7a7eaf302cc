// A ranked walk over the native module's packed reads drops what its heap would refuse (and
// what its types filter never shows) without an object per entry (core RankCut, source.ts
// `dropped`): it must give exactly the rows and summary of the same walk offered every entry.
// The tree holds what decides a heap: ties on size and on mtime (the path breaks them), hard
// links, symlinks, a FIFO, a directory that cannot be read, sizes larger than the top kept,
// and an odd name.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { type Row, resolveWalkRequest, type TreeSource, type WalkRequestInput, walk } from '@fleetls/core';
import { readsDents } from './fsat.js';
import { createFsSource } from './source.js';

let root: string;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-cut-')));
  for (let d = 0; d < 6; d++) {
    const dir = path.join(root, `d${d}`, `e${d % 2}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 400; i++) {
      const f = path.join(dir, `f${i}`);
      fs.writeFileSync(f, 'x'.repeat((i * 37 + d) % 23));
      // Ties on mtime: 5 distinct seconds, 3 distinct nanoseconds.
      fs.utimesSync(f, 1_700_000_000 + (i % 5) + (i % 3) / 4, 1_700_000_000 + (i % 5) + (i % 3) / 4);
    }
  }
  fs.linkSync(path.join(root, 'd0/e0/f1'), path.join(root, 'hard'));
  fs.symlinkSync('d0', path.join(root, 'link'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  fs.writeFileSync(Buffer.from(`${root}/odd-\xff`, 'latin1'), 'y'.repeat(22));
  fs.mkdirSync(path.join(root, 'locked'));
  fs.writeFileSync(path.join(root, 'locked', 'in'), 'z'.repeat(22));
  fs.chmodSync(path.join(root, 'locked'), 0);
});

after(() => {
  fs.chmodSync(path.join(root, 'locked'), 0o755);
  fs.rmSync(root, { recursive: true, force: true });
});

/** Every row and the summary (less its elapsed time) of a walk over `source`. */
function run(input: Omit<WalkRequestInput, 'path'>, source: TreeSource): { rows: Row[]; summary: unknown } {
  const req = resolveWalkRequest({ path: root, shape: 'ranked', maxDepth: 64, ...input });
  const g = walk(req, source, () => 0);
  const rows: Row[] = [];
  for (;;) {
    const r = g.next();
    if (r.done) return { rows, summary: { ...r.value, elapsedMs: 0 } };
    rows.push(r.value);
  }
}

/** The source as a walk sees it without the cut: every entry offered. */
function uncut(): TreeSource {
  const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
  return {
    root: () => src.root(),
    list: (dir, stats) => src.list(dir, stats),
    fill: (dir, raw) => (src.fill as NonNullable<TreeSource['fill']>)(dir, raw),
    dirSize: (dir, deadlineAt, levels) => src.dirSize(dir, deadlineAt, levels),
  };
}

it('gives the rows and summary of the walk offered every entry: ties, hard links, types, offsets, sizes', () => {
  assert.ok(readsDents(), 'the native module is loaded');
  const requests: Omit<WalkRequestInput, 'path'>[] = [];
  for (const order of ['size', 'modified'] as const)
    for (const direction of ['descending', 'ascending'] as const)
      for (const [topN, offset] of [
        [1, 0],
        [7, 0],
        [25, 13],
        [3000, 0],
      ])
        requests.push({ order, direction, topN, offset });
  requests.push({ order: 'size', direction: 'descending', topN: 5, types: ['file'] });
  requests.push({ order: 'size', direction: 'descending', topN: 5, types: ['fifo', 'symlink'] });
  requests.push({ order: 'size', direction: 'descending', topN: 5, types: ['dir'], dirSizes: true });
  requests.push({ order: 'modified', direction: 'ascending', topN: 5, maxDepth: 2 });
  for (const input of requests) {
    const got = run(input, createFsSource(root, { followSymlinks: false, allowedRoots: [root] }));
    const want = run(input, uncut());
    assert.deepEqual(got, want, JSON.stringify(input));
    assert.ok(want.rows.length > 0, JSON.stringify(input));
  }
});
