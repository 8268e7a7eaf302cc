import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError, MemorySource, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';
import { entryRow, recordAt, rootAt, runWalk, walkRequest } from '@fleetls/core/testing';
import { guardWalk, HostOverrun, HostStalled, RowAllowance } from './walk-guard.js';

/**
 * A tree whose every cap can bite: a wide root, wide subdirectories, unreadable ones (an entry
 * row, then its error row), so the allowance is checked against what the engine really sends.
 */
function hostileTree(): MemorySource {
  const records = [];
  const dirErrors = new Map<string, { code: 'DENIED'; detail: string }>();
  for (let d = 0; d < 6; d++) {
    records.push(recordAt(`d${d}`, { type: 'dir' }));
    for (let f = 0; f < 9; f++) {
      records.push(recordAt(`d${d}/s${f}`, { type: f % 3 === 0 ? 'dir' : 'file', size: f }));
      if (f % 3 === 0) dirErrors.set(`d${d}/s${f}`, { code: 'DENIED', detail: 'denied' });
    }
  }
  for (let f = 0; f < 12; f++) records.push(recordAt(`f${f}`, { size: 100 + f }));
  return new MemorySource(rootAt(), records, { dirErrors });
}

describe('RowAllowance', () => {
  const requests: [string, Partial<WalkRequest>][] = [
    ['tree, caps biting', { maxDepth: 3, maxItemsPerDir: 4 }],
    ['tree, root capped', { maxDepth: 3, maxItemsPerDir: 4, capRoot: true }],
    ['tree, max_entries biting', { maxDepth: 3, maxItemsPerDir: 4, maxEntries: 7 }],
    ['tree, one per directory', { maxDepth: 3, maxItemsPerDir: 1, capRoot: true }],
    ['ranked', { shape: 'ranked', order: 'size', maxDepth: 3, topN: 5 }],
    ['ranked with offset', { shape: 'ranked', order: 'size', maxDepth: 3, topN: 3, offset: 4 }],
  ];
  for (const [what, over] of requests) {
    it(`takes every row an honest walk sends, and not one more (${what})`, () => {
      const req = walkRequest(over);
      const { rows } = runWalk(req, hostileTree());
      assert.ok(rows.length > 0);
      const allowance = new RowAllowance(req);
      assert.equal(allowance.excess(rows), undefined);
      // One more row in the last directory the walk listed, or past the whole walk's bound.
      const last = rows.filter((r) => r.kind === 'entry').at(-1) as Extract<Row, { kind: 'entry' }>;
      const sibling = Buffer.concat([last.entry.path, Buffer.from('-more')]);
      const extra = [...Array(req.maxItemsPerDir + req.maxEntries + req.topN)].map((_, i) =>
        entryRow(Buffer.concat([sibling, Buffer.from(String(i))])),
      );
      assert.match(allowance.excess(extra) ?? '', /more than (max_entries|top_n|max_items_per_dir)=/);
    });
  }

  it('counts children per directory, an error row after its entry not as another', () => {
    const req = walkRequest({ maxItemsPerDir: 2 });
    const a = new RowAllowance(req);
    assert.equal(a.excess([entryRow('d'), entryRow('d/a'), entryRow('d/a'), entryRow('d/b')]), undefined);
    assert.match(a.excess([entryRow('d/c')]) ?? '', /max_items_per_dir=2/);
    // The requested path's own children are exempt unless cap_root.
    const root = new RowAllowance(walkRequest({ maxItemsPerDir: 1 }));
    assert.equal(root.excess([entryRow('a'), entryRow('b'), entryRow('c')]), undefined);
    const capped = new RowAllowance(walkRequest({ maxItemsPerDir: 1, capRoot: true }));
    assert.match(capped.excess([entryRow('a'), entryRow('b')]) ?? '', /max_items_per_dir=1/);
  });
});

describe('guardWalk', () => {
  const summary: WalkSummary = {
    entriesSent: 0,
    entriesSeen: 0,
    entriesMatched: 0,
    truncations: [],
    elapsedMs: 0,
    depthLimitedDirs: 0,
  };

  it('ends a host past its allowance, and stops its walk', async () => {
    let stopped = false;
    async function* flood(_req: WalkRequest, _signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
      try {
        for (let i = 0; ; i++) yield [entryRow(`f${i}`)];
      } finally {
        stopped = true;
      }
    }
    const got: Row[] = [];
    await assert.rejects(
      (async () => {
        for await (const rows of guardWalk(flood, walkRequest({ maxEntries: 5 }), new AbortController().signal)) {
          got.push(...rows);
        }
      })(),
      (err: unknown) => err instanceof HostOverrun && /more than max_entries=5 rows/.test(err.message),
    );
    assert.equal(got.length, 5);
    assert.ok(stopped, 'the inner walk was returned');
  });

  it('ends a host whose rows began and then stopped, through its signal', async () => {
    let reason: unknown;
    async function* stall(_req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
      yield [entryRow('a')];
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      reason = signal.reason;
      throw signal.reason;
    }
    const it = guardWalk(stall, walkRequest(), new AbortController().signal, { stallMs: 50 });
    assert.equal((await it.next()).done, false);
    await assert.rejects(
      it.next(),
      (err: unknown) =>
        err instanceof HostStalled && err.code === 'deadline_exceeded' && /no rows for 0.1 s/.test(err.message),
    );
    assert.ok(reason instanceof HostStalled);
  });

  it('waits for the first row as long as the walk takes (a ranked walk sends its rows at the end)', async () => {
    async function* ranked(): AsyncGenerator<Row[], WalkSummary, void> {
      await new Promise((resolve) => setTimeout(resolve, 120));
      yield [entryRow('a')];
      return summary;
    }
    const rows: Row[] = [];
    const it = guardWalk(ranked, walkRequest({ shape: 'ranked', topN: 1 }), new AbortController().signal, {
      stallMs: 30,
    });
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      rows.push(...r.value);
    }
    assert.equal(rows.length, 1);
  });

  it("passes the caller's abort reason through", async () => {
    const ctrl = new AbortController();
    async function* wait(_req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      throw signal.reason;
    }
    const it = guardWalk(wait, walkRequest(), ctrl.signal);
    const next = it.next();
    ctrl.abort(new FleetError('cancelled', 'by the test'));
    await assert.rejects(next, /by the test/);
  });
});
