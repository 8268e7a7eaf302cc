import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FleetError } from '@fleetls/core';
import type { GatewayOptions } from '../fleet/options.js';
import { MemoryPageStore } from '../fleet/page-store.js';
import { DeadBackend, dir, FakeFleet, file, HangingBackend, link, MemoryBackend } from '../testing/fake-fleet.js';
import {
  listDirectories,
  listDirectory,
  listFiles,
  listFilesPages,
  listHosts,
  statPaths,
  toolContext,
  treeEntryPaths,
} from '../testing/tool-calls.js';
import type { ToolContext } from './tool.js';

const ctx = (fleet: FakeFleet, options: Partial<GatewayOptions> = {}, signal?: AbortSignal): ToolContext =>
  toolContext(fleet, options, signal ? { signal } : {});

/** A host of `n` files named `prefix` and a number under /r, sizes apart, answering three rows at a time. */
function batchedHost(prefix: string, n: number): MemoryBackend {
  const c: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < n; i++) c[`${prefix}${i}`] = file(i * 7 + prefix.length);
  return new MemoryBackend(dir({ r: dir(c) }), { batch: 3 });
}

// Two hosts with overlapping names and distinct sizes, plus a dead one.
const treeA = dir({
  srv: dir({
    'b.log': file(20, 1_700_000_020),
    'D.txt': file(400, 1_700_000_040),
    sub: dir({ 'deep.log': file(7, 1_700_000_070), inner: dir({ 'x.log': file(1) }) }, { du: 5000 }),
    cache: dir({}, { du: 100 }),
    current: link('sub'),
  }),
});
const treeB = dir({
  srv: dir({
    'a.log': file(300, 1_700_000_030),
    'c.txt': file(10, 1_700_000_010),
    'b.log': file(20, 1_700_000_021),
    data: dir({ 'z.bin': file(9000, 1_700_000_090) }, { du: 9000 }),
  }),
});

function fleet3() {
  return new FakeFleet({
    alpha: new MemoryBackend(treeA, { offsetMin: 60 }),
    beta: new MemoryBackend(treeB, { offsetMin: -300 }),
    gone: new DeadBackend(),
  });
}

test('list_directory: one host gives DesktopCommander lines, a run of siblings by name', async () => {
  const f = new FakeFleet({ alpha: new MemoryBackend(treeA) });
  const r = await listDirectory(ctx(f), { host: 'alpha', path: '/srv' });
  assert.deepEqual(r.text.split('\n'), [
    '[FILE] b.log',
    '[DIR] cache',
    '[LINK] current -> sub',
    '[FILE] D.txt',
    '[DIR] sub',
    '[FILE] sub/deep.log',
    // In the directory of the line above (sub/inner): its name, indented.
    '  [DIR] inner',
  ]);
  assert.equal(r.structured.entries.length, 7);
  // Lean rows: no host when one host was asked, no type for a plain file, no size for a
  // directory; a name, and its directory as an index in `dirs` (none in the path itself).
  assert.deepEqual(r.structured.entries.slice(0, 3), [
    { name: 'b.log', size: 20 },
    { name: 'cache', type: 'directory' },
    { name: 'current', type: 'symlink', size: 3, link_target: 'sub' },
  ]);
  assert.deepEqual(r.structured.dirs, ['sub']);
  assert.deepEqual(r.structured.entries.slice(5), [
    { name: 'deep.log', dir: 0, size: 7 },
    { name: 'inner', dir: 0, type: 'directory' },
  ]);
  assert.deepEqual(
    treeEntryPaths(r.structured).map((e) => e.path),
    ['b.log', 'cache', 'current', 'D.txt', 'sub', 'sub/deep.log', 'sub/inner'],
  );
  assert.equal(r.structured.hosts[0].status, 'ok');
  assert.equal(r.structured.truncated, false);
});

test('list_directory: per-dir caps warn; several hosts prefix lines, in selector order; a dead host is a line and a row', async () => {
  const big: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < 5; i++) big[`f${i}`] = file(i);
  const f = new FakeFleet({
    b: new MemoryBackend(dir({ r: dir({ d: dir(big), top: file(1) }) })),
    a: new MemoryBackend(dir({ r: dir({ only: file(1) }) })),
    gone: new DeadBackend(),
  });
  const r = await listDirectory(ctx(f), { host: 'gone,b,a', path: '/r', max_items_per_dir: 2 });
  assert.deepEqual(r.text.split('\n'), [
    'gone: [ERROR] unreachable — connect ECONNREFUSED 127.0.0.1:9',
    'b: [DIR] d',
    'b: [FILE] d/f0',
    'b:   [FILE] f1',
    'b: [WARNING] d: 3 items hidden (showing first 2 of 5 total)',
    'b: [FILE] top',
    'a: [FILE] only',
  ]);
  assert.deepEqual(
    r.structured.hosts.map((h) => [h.host, h.status]),
    [
      ['gone', 'unreachable'],
      ['b', 'ok'],
      ['a', 'ok'],
    ],
  );
  const warning = r.structured.entries.find((e) => e.type === 'warning');
  assert.deepEqual(warning, { host: 'b', name: 'd', type: 'warning', hidden: { shown: 2, total: 5 } });
});

test('list_directory: a missing path is a not_found host row and a [NOT_FOUND] line', async () => {
  const f = new FakeFleet({ alpha: new MemoryBackend(treeA) });
  const r = await listDirectory(ctx(f), { host: 'alpha', path: '/nope' });
  assert.equal(r.text, '[NOT_FOUND] /nope — path does not exist');
  assert.equal(r.structured.hosts[0].status, 'not_found');
});

test('list_directory: a symlinked path is listed through its target', async () => {
  const f = new FakeFleet({ alpha: new MemoryBackend(treeA) });
  const r = await listDirectory(ctx(f), { host: 'alpha', path: '/srv/current', depth: 1 });
  assert.equal(r.text, '[FILE] deep.log\n[DIR] inner');
});

test('list_directory: the answer is cut at its byte budget, at a line, and says so', async () => {
  const many: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < 2000; i++) many[`file-${String(i).padStart(5, '0')}`] = file(i);
  const f = new FakeFleet({ alpha: new MemoryBackend(dir({ r: dir(many) })) });
  const r = await listDirectory(ctx(f, { maxAnswerBytes: 4096 }), { host: 'alpha', path: '/r' });
  assert.ok(Buffer.byteLength(r.text) <= 4096, `${Buffer.byteLength(r.text)} bytes`);
  const lines = r.text.split('\n');
  assert.match(
    lines.at(-1) ?? '',
    /^\[WARNING\] answer cut at 4096 bytes after \d+ lines; to continue, call list_directory again with the same arguments and cursor: [A-Za-z0-9_-]+$/,
  );
  assert.equal(lines.at(-1)?.split('cursor: ')[1], r.structured.next_cursor);
  assert.ok(lines.slice(0, -1).every((l) => /^\[FILE\] file-\d{5}$/.test(l)));
  assert.equal(r.structured.entries.length, lines.length - 1);
  assert.equal(r.structured.truncated, true);
  // The record says what the warning says: the budget and its limit, how many shown; no empty host or dir.
  const shown = Number(/after (\d+) lines/.exec(lines.at(-1) ?? '')?.[1]);
  assert.deepEqual(r.structured.truncations.at(-1), { reason: 'bytes', limit: 4096, shown, total: 2000 });
});

test('list_files cut at its token budget: the record names tokens and the limit, as the warning does', async () => {
  const many: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < 2000; i++) many[`file-${String(i).padStart(5, '0')}`] = file(i);
  const f = new FakeFleet({ alpha: new MemoryBackend(dir({ r: dir(many) })) });
  const r = await listFiles(ctx(f, { maxAnswerTokens: 3000 }), { host: 'alpha', path: '/r', limit: 2000 });
  const warning = r.text.split('\n').find((l) => l.startsWith('[WARNING] answer cut')) ?? '';
  const m = /^\[WARNING\] answer cut at 3000 tokens after (\d+) of 2000 rows; next_cursor goes on from there$/.exec(
    warning,
  );
  assert.ok(m, warning);
  assert.deepEqual(r.structured.truncations, [{ reason: 'tokens', limit: 3000, shown: Number(m[1]), total: 2000 }]);
  assert.equal(r.structured.count, Number(m[1]));
});

test('list_files: merged order across hosts, ties broken by host; dead host is a status row', async () => {
  const r = await listFiles(ctx(fleet3()), {
    host: 'all',
    path: '/srv',
    order_by: 'size',
    sort: 'descending',
    type: 'file',
  });
  assert.deepEqual(
    r.structured.items.map((i) => [i.host, i.path, i.size]),
    [
      ['alpha', 'D.txt', 400],
      ['beta', 'a.log', 300],
      ['alpha', 'b.log', 20],
      ['beta', 'b.log', 20],
      ['beta', 'c.txt', 10],
    ],
  );
  assert.equal(r.structured.kind, 'files.list');
  assert.deepEqual(r.structured.columns, ['host', 'path', 'name', 'type', 'size', 'modified']);
  assert.equal(r.structured.count, 5);
  assert.equal(r.structured.total, 5);
  assert.equal(r.structured.next_cursor, undefined);
  assert.deepEqual(
    r.structured.hosts.map((h) => h.status),
    ['ok', 'ok', 'unreachable'],
  );
  assert.equal(r.structured.items[1].modified, '2023-11-14T17:13:50-05:00');
  const lines = r.text.split('\n');
  assert.equal(lines[0], 'Showing 1-5 of 5 files');
  assert.equal(lines[2], 'Host\tPath\tType\tSize\tLast_Modified');
  assert.match(lines.at(-1) ?? '', /^gone: \[ERROR\] unreachable/);
});

test('list_files: top_n applies to the merged list; max_depth, pattern and type filter', async () => {
  const top = await listFiles(ctx(fleet3()), {
    host: 'alpha,beta',
    path: '/srv',
    order_by: 'size',
    sort: 'descending',
    top_n: 2,
    type: 'file',
  });
  assert.deepEqual(
    top.structured.items.map((i) => `${i.host}:${i.path}`),
    ['alpha:D.txt', 'beta:a.log'],
  );
  assert.equal(top.structured.total, 2);
  assert.equal(top.structured.found, 5);
  const deep = await listFiles(ctx(fleet3()), {
    host: 'alpha,beta',
    path: '/srv',
    max_depth: 2,
    pattern: '*.log',
    type: 'file',
  });
  assert.deepEqual(
    deep.structured.items.map((i) => `${i.host}:${i.path}`),
    ['beta:a.log', 'alpha:b.log', 'beta:b.log', 'alpha:sub/deep.log', 'alpha:sub/inner/x.log'],
  );
  const dirs = await listFiles(ctx(fleet3()), { host: 'alpha,beta', path: '/srv', type: 'directory' });
  assert.deepEqual(
    dirs.structured.items.map((i) => [i.host, i.name, i.type]),
    [
      ['alpha', 'cache', 'directory'],
      ['beta', 'data', 'directory'],
      ['alpha', 'sub', 'directory'],
    ],
  );
});

test('list_files: cursors cover the merged set exactly once, across hosts', async () => {
  const f = new FakeFleet({ h1: batchedHost('a', 23), h2: batchedHost('bb', 17), h3: batchedHost('ccc', 11) });
  const all = await listFiles(ctx(f), { host: 'all', path: '/r', order_by: 'size', limit: 5000 });
  assert.equal(all.structured.total, 51);
  const { rows: seen, pages } = await listFilesPages(ctx(f), { host: 'all', path: '/r', order_by: 'size', limit: 7 });
  assert.equal(pages.length, 8);
  assert.deepEqual(
    seen,
    all.structured.items.map((i) => `${i.host}:${i.path}`),
  );
  assert.equal(new Set(seen).size, 51);
  const second = await listFiles(ctx(f), {
    host: 'all',
    path: '/r',
    order_by: 'size',
    limit: 7,
    start_index: 7,
    type: 'file',
  });
  assert.match(second.text, /^Showing 8-14 of 51 files/);
  await assert.rejects(
    listFiles(ctx(f), { host: 'all', path: '/r', order_by: 'name', cursor: second.structured.next_cursor }),
    (e: FleetError) => e.code === 'invalid_argument' && /cursor is not valid for this query/.test(e.message),
  );
});

test('list_files: a page cut by bytes hands a cursor that goes on from the last row shown', async () => {
  const c: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < 300; i++) c[`name-${String(i).padStart(4, '0')}`] = file(i);
  const f = new FakeFleet({ h: new MemoryBackend(dir({ r: dir(c) })) });
  const p1 = await listFiles(ctx(f, { maxAnswerBytes: 3000 }), { host: 'h', path: '/r' });
  assert.ok(Buffer.byteLength(p1.text) <= 3000);
  assert.ok(p1.structured.count < 200 && p1.structured.count > 10);
  assert.ok(p1.structured.next_cursor);
  assert.match(p1.text, /\[WARNING\] answer cut at 3000 bytes/);
  const p2 = await listFiles(ctx(f, { maxAnswerBytes: 3000 }), {
    host: 'h',
    path: '/r',
    cursor: p1.structured.next_cursor,
  });
  assert.equal(p2.structured.items[0].name, `name-${String(p1.structured.count).padStart(4, '0')}`);
});

test('bad arguments name the argument and its bounds', async () => {
  const f = fleet3();
  const cases: [Promise<unknown>, RegExp][] = [
    [listDirectory(ctx(f), { host: 'alpha', path: '/srv', depth: 11 }), /depth must be an integer from 1 to 10/],
    [listDirectory(ctx(f), { host: 'alpha', path: 'srv' }), /path/],
    [listFiles(ctx(f), { host: 'alpha', path: '/srv', limit: 0 }), /limit must be an integer from 1 to 5000/],
    [listFiles(ctx(f), { host: 'alpha', path: '/srv', pattern: '[' }), /^pattern: /],
    [listFiles(ctx(f), { host: 'alpha', path: '/srv', cursor: 'garbage!' }), /cursor/],
    [listDirectories(ctx(f), { host: 'alpha', path: '/srv', top_n: 1001 }), /top_n must be an integer from 1 to 1000/],
    [
      listDirectories(ctx(f), { host: 'alpha', path: '/srv', order_by: 'age' }),
      /order_by must be one of name, size, modified/,
    ],
    [listDirectory(ctx(f), { path: '/srv' }), /host is required/],
    [listDirectory(ctx(f), { host: 'nobody', path: '/srv' }), /unknown host/],
    [
      listDirectory(ctx(f), { host: 'alpha', path: '/srv', colour: true }),
      /^colour: unknown argument; known: host, path, depth, max_items_per_dir, cursor$/,
    ],
  ];
  for (const [p, re] of cases) {
    await assert.rejects(
      p,
      (e: unknown) => e instanceof FleetError && e.code === 'invalid_argument' && re.test(e.message),
    );
  }
});

test('list_directories: immediate subdirectories, recursive sizes only when ordering by size', async () => {
  const bySize = await listDirectories(ctx(fleet3()), {
    host: 'alpha,beta',
    path: '/srv',
    order_by: 'size',
    sort: 'descending',
  });
  assert.deepEqual(bySize.structured.nodes, [
    { host: 'beta', name: 'data', size: 9000, modified: '2023-11-14T17:13:20-05:00' },
    { host: 'alpha', name: 'sub', size: 5000, modified: '2023-11-14T23:13:20+01:00' },
    { host: 'alpha', name: 'cache', size: 100, modified: '2023-11-14T23:13:20+01:00' },
  ]);
  assert.equal(bySize.structured.found, 3);
  assert.equal(bySize.structured.truncated, false);
  const top = await listDirectories(ctx(fleet3()), { host: 'all', path: '/srv', top_n: 2 });
  assert.deepEqual(
    top.structured.nodes.map((n) => [n.host, n.name, n.size]),
    [
      ['alpha', 'cache', undefined],
      ['beta', 'data', undefined],
    ],
  );
  assert.deepEqual(
    { found: top.structured.found, shown: top.structured.shown, truncated: top.structured.truncated },
    {
      found: 3,
      shown: 2,
      truncated: true,
    },
  );
  assert.equal(top.structured.hosts[2].status, 'unreachable');
  // A symlink to a directory as path is listed, not answered empty.
  const viaLink = await listDirectories(ctx(fleet3()), { host: 'alpha', path: '/srv/current' });
  assert.deepEqual(
    viaLink.structured.nodes.map((n) => n.name),
    ['inner'],
  );
});

test('stat: per host, with a failing host as a row', async () => {
  const r = await statPaths(ctx(fleet3()), { host: 'alpha,gone', path: '/srv/D.txt' });
  assert.equal(r.structured.results.length, 1);
  const s = r.structured.results[0];
  assert.equal(s.type, 'file');
  assert.equal(s.mode, '0644');
  assert.equal(s.permissions, '-rw-r--r--');
  assert.equal(s.size, 400);
  assert.deepEqual(
    r.structured.hosts.map((h) => h.status),
    ['ok', 'unreachable'],
  );
  assert.match(r.text, /^alpha: path: \/srv\/D.txt$/m);
  const missing = await statPaths(ctx(fleet3()), { host: 'alpha', path: '/srv/none' });
  assert.equal(missing.structured.hosts[0].status, 'not_found');
});

test('list_hosts: inventory rows; check probes every host', async () => {
  const r = await listHosts(ctx(fleet3()), {});
  assert.deepEqual(
    r.structured.hosts.map((h) => [h.host, h.transport, h.reachable]),
    [
      ['alpha', 'agent', undefined],
      ['beta', 'agent', undefined],
      ['gone', 'agent', undefined],
    ],
  );
  const checked = await listHosts(ctx(fleet3()), { check: true });
  assert.deepEqual(
    checked.structured.hosts.map((h) => [h.host, h.reachable, h.version ?? null, h.status]),
    [
      ['alpha', true, 'fake-1.0', 'ok'],
      ['beta', true, 'fake-1.0', 'ok'],
      ['gone', false, null, 'unreachable'],
    ],
  );
});

test('cancelling a query cancels every host walk', async () => {
  const h1 = new HangingBackend();
  const h2 = new HangingBackend();
  const f = new FakeFleet({ h1, h2 });
  const ctrl = new AbortController();
  const pending = listFiles(ctx(f, {}, ctrl.signal), { host: 'all', path: '/r' });
  await Promise.all([h1.whenCalled(), h2.whenCalled()]);
  ctrl.abort();
  const r = await pending;
  assert.equal(h1.aborts + h2.aborts, 2);
  assert.ok(r.structured.hosts.every((h) => h.status !== 'ok'));
});

test("a walk's own deadline is within the call's: a host asked late gets what is left of it", async () => {
  const b = new MemoryBackend(treeA);
  const f = new FakeFleet({ alpha: b });
  await listFiles(ctx(f, { deadlineMs: 600_000, callDeadlineMs: 5000 }), { host: 'alpha', path: '/srv' });
  const asked = b.requests.at(-1)?.deadlineMs ?? Number.POSITIVE_INFINITY;
  assert.ok(asked <= 4000, `walk deadline ${asked} ms`);
  await listDirectory({ ...ctx(f), deadlineAt: performance.now() + 2000 }, { host: 'alpha', path: '/srv' });
  const tree = b.requests.at(-1)?.deadlineMs ?? Number.POSITIVE_INFINITY;
  assert.ok(tree <= 1600, `tree walk deadline ${tree} ms`);
});

test('list_files pages that follow a cursor do not re-rank: two ranked walks per host in all, every row once', async () => {
  const backends = { h1: batchedHost('a', 230), h2: batchedHost('bb', 170), h3: batchedHost('ccc', 110) };
  const f = new FakeFleet(backends);
  let clock = 0;
  const pages = new MemoryPageStore(() => clock);
  const withStore = (): ToolContext => ({ ...ctx(f), pages });
  const args = { host: 'all', path: '/r', order_by: 'size', limit: 40 } as const;
  const whole = await listFiles(ctx(f, { maxAnswerBytes: 1 << 22, maxAnswerTokens: 1 << 22 }), {
    ...args,
    limit: 5000,
  });
  assert.equal(whole.structured.count, 510);
  const walksBefore = Object.values(backends).map((b) => b.requests.length);
  const { rows: seen, pages: answers } = await listFilesPages(withStore(), args);
  assert.equal(answers.length, 13);
  assert.deepEqual(
    seen,
    whole.structured.items.map((i) => `${i.host}:${i.path}`),
  );
  // The first page ranks its 40 rows; the second ranks the whole listing once; the rest are slices of it.
  const walks = Object.values(backends).map((b, i) => b.requests.length - walksBefore[i]);
  assert.deepEqual(walks, [2, 2, 2]);
  assert.deepEqual(
    backends.h1.requests.slice(-2).map((r) => r.topN),
    [40, 100_000],
  );
  assert.equal(pages.size, 1);

  // Kept rankings expire; a cursor still goes on from its row (ranked again), and a changed query is refused.
  const first = await listFiles(withStore(), args);
  const second = await listFiles(withStore(), { ...args, cursor: first.structured.next_cursor });
  clock += 11 * 60_000;
  const third = await listFiles(withStore(), { ...args, cursor: second.structured.next_cursor });
  assert.deepEqual(
    third.structured.items.map((i) => `${i.host}:${i.path}`),
    seen.slice(80, 120),
  );
  await assert.rejects(
    listFiles(withStore(), { ...args, sort: 'descending', cursor: second.structured.next_cursor }),
    /cursor is not valid for this query/,
  );
});
