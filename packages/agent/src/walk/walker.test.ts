import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Row } from '@fleetls/core';
import { resolveWalkRequest, WALK_DEFAULTS } from '@fleetls/core';
import { createLocalBackend } from '../carriers/local-backend.js';
import { WalkPool } from './pool.js';
import { resumeRequest } from './rest.js';
import { startWalk } from './walker.js';

/** The tests' walks share one pool, as one agent's do. */
const pool = new WalkPool();

let root: string;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-walker-')));
  for (let d = 0; d < 40; d++) {
    fs.mkdirSync(path.join(root, `d${d}`));
    for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, `d${d}`, `f${i}`), '');
  }
  fs.symlinkSync('/', path.join(root, 'to-root'));
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

const entriesOf = (rows: Row[]) => rows.filter((r) => r.kind === 'entry').length;

describe('startWalk', () => {
  it('streams every row in small batches and returns the summary', async () => {
    const req = resolveWalkRequest({ path: root, maxDepth: 2, maxItemsPerDir: 1000 });
    const w = startWalk(req, { pool, allowedRoots: [root], batchRows: 64 });
    let n = 0;
    let batches = 0;
    for (;;) {
      const r = await w.batches.next();
      if (r.done) {
        assert.equal(r.value.entriesSent, n);
        assert.equal(r.value.entriesSeen, 40 * 100 + 41);
        break;
      }
      assert.ok(r.value.length <= 64);
      n += entriesOf(r.value);
      batches++;
    }
    assert.equal(n, 40 * 100 + 41);
    assert.ok(batches > 40);
    // The worker's tally crosses with the outcome: every entry it sent, no cut, no error row.
    assert.deepEqual(await w.finished, {
      seen: 4041,
      cancelled: false,
      counts: { entries: 4041, errors: {}, truncations: {} },
      route: 'js',
      stuck: 0,
    });
  });

  it('stops the worker when cancelled while the consumer holds back', async () => {
    const req = resolveWalkRequest({ path: root, maxDepth: 2, maxItemsPerDir: 1000 });
    const w = startWalk(req, { pool, allowedRoots: [root], batchRows: 16, credits: 1 });
    const first = await w.batches.next();
    assert.equal(first.done, false);
    await new Promise((r) => setTimeout(r, 100));
    w.cancel();
    await assert.rejects(
      (async () => {
        for (;;) if ((await w.batches.next()).done) return;
      })(),
      /cancelled/,
    );
    const out = await w.finished;
    assert.equal(out.cancelled, true);
    assert.ok(out.seen < 1000, `worker saw ${out.seen}`);
  });
});

describe('startWalk, per walk', () => {
  // As createFsSource's listings (fs/source.test.ts): a generator function declared per walk
  // left a dead old map holding that walk's state through every scavenge.
  it('hands out batches from one generator function for every walk, none made per walk', async () => {
    const req = resolveWalkRequest({ path: root, maxDepth: 1 });
    const a = startWalk(req, { pool, allowedRoots: [root] });
    const b = startWalk(req, { pool, allowedRoots: [root] });
    assert.equal(Object.getPrototypeOf(a.batches), Object.getPrototypeOf(b.batches));
    for (const w of [a, b]) {
      for await (const _ of w.batches);
      assert.equal((await w.finished).cancelled, false);
    }
  });
});

describe('createLocalBackend', () => {
  it('walks with the same checks as the agent', async () => {
    const b = createLocalBackend({ allowedRoots: [root] });
    const ctl = new AbortController();
    const gen = b.walk(resolveWalkRequest({ path: root, maxDepth: 1 }), ctl.signal);
    let rows: Row[] = [];
    for (;;) {
      const r = await gen.next();
      if (r.done) break;
      rows = rows.concat(r.value);
    }
    assert.equal(entriesOf(rows), 41);
    await assert.rejects(
      (async () => {
        for await (const _ of b.walk(resolveWalkRequest({ path: `${root}/to-root` }), ctl.signal)) {
        }
      })(),
      (err: Error & { code?: string }) => err.code === 'permission_denied',
    );
    await assert.rejects(
      b.stat('/etc/passwd', false, ctl.signal),
      (err: Error & { code?: string }) => err.code === 'permission_denied',
    );
    await assert.rejects(
      b.stat(`${root}/nope`, false, ctl.signal),
      (err: Error & { code?: string }) => err.code === 'not_found',
    );
    const st = await b.stat(`${root}/to-root`, false, ctl.signal);
    assert.equal(st.entry.type, 'symlink');
    assert.match((await b.probe(ctl.signal)).version, /^\d+\./);
  });

  it('stops the walk when the signal aborts', async () => {
    const b = createLocalBackend({ allowedRoots: [root] });
    const ctl = new AbortController();
    const gen = b.walk(resolveWalkRequest({ path: root, maxDepth: 2, maxItemsPerDir: 1000 }), ctl.signal);
    await gen.next();
    ctl.abort();
    await assert.rejects(
      (async () => {
        for (;;) if ((await gen.next()).done) return;
      })(),
      /cancelled/,
    );
  });
});

describe('resumeRequest', () => {
  const base = { ...WALK_DEFAULTS, path: '/r', maxEntries: 100, deadlineMs: 10_000 };
  it('resumes a tree after the last row sent, with what is left of the limits', () => {
    assert.deepEqual(resumeRequest(base, 40, { path: 'a/b', row: 'error' }, 3000), {
      ...base,
      maxEntries: 60,
      deadlineMs: 7000,
      after: Buffer.from('a/b'),
      afterRow: 'error',
    });
    assert.deepEqual(resumeRequest(base, 0, undefined, 20_000), { ...base, deadlineMs: 1 });
  });
  it('skips what a ranked list already sent', () => {
    const ranked = { ...base, shape: 'ranked' as const, topN: 10, offset: 5 };
    assert.deepEqual(resumeRequest(ranked, 4, { path: 'x', row: 'entry' }, 0), { ...ranked, topN: 6, offset: 9 });
  });
});
