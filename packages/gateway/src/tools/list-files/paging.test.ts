// list_files in name order is path order and pages through every entry of any tree by
// resuming the walks (more entries than a ranking keeps, several hosts with the same paths,
// an agent that ignores resume points); only a ranked order keeps a top-K, and says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparePaths, emptySummary, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';
import type { GatewayOptions } from '../../fleet/options.js';
import { MemoryPageStore, SNAPSHOT_ROWS } from '../../fleet/page-store.js';
import { DeadBackend, dir, FakeFleet, type FakeNode, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { listFiles, listFilesPages, toolContext } from '../../testing/tool-calls.js';
import type { ToolContext } from '../tool.js';
import { PATH_CHUNK_ROWS } from './paths.js';

const ctx = (fleet: FakeFleet, options: Partial<GatewayOptions> = {}): ToolContext =>
  toolContext(fleet, options, { pages: new MemoryPageStore() });

/** An agent from before resume points: it ignores `after` and walks from the start. */
class OldAgent extends MemoryBackend {
  override walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    const { after: _a, afterRow: _r, ...rest } = req;
    return super.walk(rest, signal);
  }
}

/** `dirs` directories of `per` files each, plus names that sort differently by base name and by path. */
function bigTree(dirs: number, per: number): FakeNode {
  const top: Record<string, FakeNode> = { '.pwd.lock': file(1), 'a.b': file(2), 'a-b': file(3) };
  for (let d = 0; d < dirs; d++) {
    const kids: Record<string, FakeNode> = {};
    for (let f = 0; f < per; f++) kids[`f${f}`] = file(f);
    top[`d${String(d).padStart(3, '0')}`] = dir(kids);
  }
  top.a = dir({ b: file(4), '.z': file(5) });
  return dir({ r: dir(top) });
}

test('name order is path order: a directory before its entries, `/` before other bytes', async () => {
  const c = ctx(new FakeFleet({ h: new MemoryBackend(bigTree(2, 2)) }));
  const { structured, text } = await listFiles(c, { host: 'h', path: '/r', max_depth: 1, type: 'any' });
  assert.deepEqual(
    structured.items.map((i) => i.path),
    ['.pwd.lock', 'a', 'a/.z', 'a/b', 'a-b', 'a.b', 'd000', 'd000/f0', 'd000/f1', 'd001', 'd001/f0', 'd001/f1'],
  );
  assert.match(text, /^Showing 1-12 of 12 entries in path order\n/);
});

test(`name order pages through every entry of a tree larger than a ranking keeps (${SNAPSHOT_ROWS})`, async () => {
  const tree = bigTree(121, 1000); // 121,127 entries
  // A loaded machine must not cut the ranked walk of 121k entries at the default deadline.
  const c = ctx(new FakeFleet({ h: new MemoryBackend(tree, { frozen: true }) }), {
    deadlineMs: 120_000,
    callDeadlineMs: 120_000,
  });
  const args = { host: 'h', path: '/r', max_depth: 1, type: 'any', limit: 5000 };
  const { rows, pages } = await listFilesPages(c, args);
  assert.equal(rows.length, 121 * 1001 + 6);
  assert.equal(new Set(rows).size, rows.length, 'no entry twice');
  const paths = rows.map((r) => Buffer.from(r.slice(1)));
  for (let i = 1; i < paths.length; i++)
    assert.ok(comparePaths(paths[i - 1], paths[i]) < 0, `${rows[i - 1]} < ${rows[i]}`);
  assert.ok(pages.length > 20, `${pages.length} pages`);
  // No total until the end is in sight; then it is the whole listing, and no page says "top".
  assert.equal(pages[0].total, undefined);
  assert.equal(pages.at(-1)?.total, rows.length);
  // Nothing cut but by the budget: a page's only other record says the rows after it follow (page).
  assert.ok(pages.every((p) => p.truncations.every((t) => ['bytes', 'tokens', 'page'].includes(t.reason))));

  // A ranked order keeps its top-K and says so.
  const ranked = await listFiles(c, { ...args, order_by: 'size' });
  assert.equal(ranked.structured.total, SNAPSHOT_ROWS);
  assert.equal(ranked.structured.found, rows.length);
  assert.match(ranked.text, /ranked: only the first 100000 of 121127 found are kept; order_by=name pages through all/);
});

test('name order over hosts with the same paths, one ignoring resume points: pages = the unpaged list', async () => {
  const fleet = new FakeFleet({
    web1: new MemoryBackend(bigTree(6, 40)),
    web2: new OldAgent(bigTree(6, 40)),
    web3: new MemoryBackend(bigTree(5, 41)),
  });
  const args = { host: 'web1,web2,web3', path: '/r', max_depth: 1, type: 'any', limit: 5000 };
  const whole = await listFiles(
    ctx(fleet, { maxAnswerBytes: 4 * 1024 * 1024, maxAnswerTokens: 4 * 1024 * 1024 }),
    args,
  );
  assert.equal(whole.structured.next_cursor, undefined);
  const want = whole.structured.items.map((i) => `${i.host}:${i.path}`);
  assert.equal(want.length, 2 * (6 * 41 + 6) + 5 * 42 + 6);
  for (const bytes of [2048, 3000]) {
    const { rows, pages } = await listFilesPages(ctx(fleet, { maxAnswerBytes: bytes, maxAnswerTokens: bytes }), args);
    assert.ok(pages.length > 20, `${pages.length} pages`);
    assert.deepEqual(rows, want, `budget ${bytes}`);
  }
  // Without a page store (the CLI), each page resumes the walks: the same rows.
  const noStore = { ...ctx(fleet, { maxAnswerBytes: 2048, maxAnswerTokens: 2048 }), pages: undefined };
  assert.deepEqual((await listFilesPages(noStore, args)).rows, want);
});

test('top_n in name order: the first N in path order, then the listing ends', async () => {
  const c = ctx(new FakeFleet({ h: new MemoryBackend(bigTree(3, 10)) }));
  const { rows, pages } = await listFilesPages(c, {
    host: 'h',
    path: '/r',
    max_depth: 1,
    type: 'any',
    top_n: 7,
    limit: 3,
  });
  assert.deepEqual(
    rows,
    ['.pwd.lock', 'a', 'a/.z', 'a/b', 'a-b', 'a.b', 'd000'].map((p) => `:${p}`),
  );
  assert.equal(pages.at(-1)?.total, 7);
});

/** Counts the walks it was asked. */
class CountingAgent extends MemoryBackend {
  walks = 0;
  override walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    this.walks++;
    return super.walk(req, signal);
  }
}

test(`following next_cursor walks each chunk of ${PATH_CHUNK_ROWS} rows once, the chunk that ends the listing too`, async () => {
  const agent = new CountingAgent(bigTree(30, 1000)); // 30,036 entries: two chunks
  const c = ctx(new FakeFleet({ h: agent }), { deadlineMs: 120_000, callDeadlineMs: 120_000 });
  const { rows, pages } = await listFilesPages(c, { host: 'h', path: '/r', max_depth: 1, type: 'any', limit: 5000 });
  assert.equal(rows.length, 30 * 1001 + 6);
  assert.equal(new Set(rows).size, rows.length, 'no entry twice');
  assert.ok(pages.length > 50, `${pages.length} pages`);
  // The first page (no cursor yet) walks only as far as it shows, then one walk per chunk.
  assert.equal(agent.walks, 3, `${agent.walks} walks for ${pages.length} pages`);
});

/** Its first resumed walk meets its deadline before any row (a slow seek on a loaded host). */
class StallingAgent extends MemoryBackend {
  stalls = 1;
  override walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    if (req.after === undefined || this.stalls === 0) return super.walk(req, signal);
    this.stalls--;
    return (async function* (): AsyncGenerator<Row[], WalkSummary, void> {
      const summary: WalkSummary = { ...emptySummary(), entriesSeen: 0 };
      summary.truncations.push({ dir: Buffer.alloc(0), shown: 0, total: 0, reason: 'deadline' });
      yield* [] as Row[][]; // no row before the deadline
      return summary;
    })();
  }
}

test('a resumed walk its deadline stops before its first row: an empty page that says so and goes on, not the end', async () => {
  const c = ctx(new FakeFleet({ h: new StallingAgent(bigTree(3, 100)) }));
  const args = { host: 'h', path: '/r', max_depth: 1, type: 'any', limit: 50 };
  const first = await listFiles(c, args);
  assert.equal(first.structured.count, 50);
  const stalled = await listFiles(c, { ...args, cursor: first.structured.next_cursor });
  assert.equal(stalled.structured.count, 0);
  assert.equal(stalled.structured.total, undefined);
  assert.equal(typeof stalled.structured.next_cursor, 'string');
  assert.ok(stalled.structured.truncations.some((t) => t.reason === 'deadline'));
  assert.match(stalled.text, /^No entries from 51 listed in this call \(see below\); call again with next_cursor/);
  const { rows } = await listFilesPages(c, { ...args, cursor: stalled.structured.next_cursor });
  assert.equal(50 + rows.length, 3 * 101 + 6, 'every entry, once');
  assert.equal(new Set(rows).size, rows.length);
});

/**
 * A host whose walk counts an entry it looked at but did not send (as a walk that filters
 * after counting would): it stops one row short of max_entries, saying it stopped there.
 */
class ShortAgent extends MemoryBackend {
  override walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    return super.walk({ ...req, maxEntries: Math.max(1, req.maxEntries - 1) }, signal);
  }
}

test('top_n in name order gives min(top_n, found) rows over hosts that stop short, and reports the cut', async () => {
  const late: Record<string, FakeNode> = {};
  for (let i = 0; i < 10; i++) late[`x${i}`] = file(i);
  // b's names all sort after a's fourth row, where a stopped: the chunk ended there, at 4 rows.
  const fleet = new FakeFleet({
    a: new ShortAgent(bigTree(3, 10)),
    b: new ShortAgent(dir({ r: dir(late) })),
    gone: new DeadBackend(),
  });
  const r = await listFiles(ctx(fleet), { host: 'all', path: '/r', max_depth: 1, type: 'any', top_n: 5 });
  // Each host stopped after 4 of the 5 asked: the page walked on to its 5 rows.
  assert.deepEqual(
    r.structured.items.map((i) => `${i.host}:${i.path}`),
    ['a:.pwd.lock', 'a:a', 'a:a/.z', 'a:a/b', 'a:a-b'],
  );
  assert.equal(r.structured.count, 5);
  assert.equal(r.structured.total, 5);
  assert.equal(r.structured.next_cursor, undefined);
  assert.equal(r.structured.truncated, true);
  assert.deepEqual(
    r.structured.truncations.map((t) => `${t.reason}:${t.shown}`),
    ['top_n:5'],
  );
  assert.match(r.text, /^Showing 1-5 of 5 entries in path order \(top_n 5: more were found\)/);
  // Fewer found than top_n: every row, and no cut.
  const few = await listFiles(ctx(fleet), { host: 'a', path: '/r/a', type: 'any', top_n: 50 });
  assert.equal(few.structured.count, 2);
  assert.equal(few.structured.truncated, false);
  assert.deepEqual(few.structured.truncations, []);
});

test("a one-level listing's first page says its total: the hosts read the whole directory to order it", async () => {
  const files: Record<string, FakeNode> = {};
  for (let i = 0; i < 250; i++) files[`e${String(i).padStart(3, '0')}`] = file(i);
  const fleet = new FakeFleet({ h: new MemoryBackend(dir({ r: dir(files) })) });
  const { rows, pages } = await listFilesPages(ctx(fleet), { host: 'h', path: '/r', limit: 100 });
  assert.equal(rows.length, 250);
  assert.deepEqual(
    pages.map((p) => [p.count, p.total]),
    [
      [100, 250],
      [100, 250],
      [50, 250],
    ],
  );
  // A page with a cursor says why it is not all: the rows after it.
  assert.deepEqual(pages[0].truncations, [{ reason: 'page', shown: 100, total: 250 }]);
  // Filtered, the count of the directory is not the listing's: no total before the end.
  const filtered = await listFilesPages(ctx(fleet), { host: 'h', path: '/r', limit: 100, min_size: 100 });
  assert.equal(filtered.pages[0].total, undefined);
  assert.equal(filtered.rows.length, 150);
});
