// Scans through the MCP face, in-process: a call past its deadline answers what arrived with
// the others pending and a scan cursor; following it delivers every host's rows once; the
// owner alone may follow it; cancellation stops the walks; every fan-out listing does this (stat,
// one lstat per host, answers whole).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostBackend, Row, StatInfo, WalkRequest, WalkSummary } from '@fleetls/core';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { resolveGatewayOptions } from '../fleet/options.js';
import { dir, FakeFleet, file, HangingBackend, MemoryBackend } from '../testing/fake-fleet.js';
import { connectMcp } from '../testing/mcp-client.js';
import { createScanRegistry, type ScanRegistry } from './scan-registry.js';

const logger = pino({ level: 'silent' });
// A call waits 0.5 s (its deadline less the 2 s kept to present); a host of a scan 4 s.
const OPTIONS = { callDeadlineMs: 2500, scanHostDeadlineMs: 4000 };

/** A backend that answers once `open()` is called. */
class GatedBackend implements HostBackend {
  readonly via = 'agent' as const;
  private opened!: () => void;
  private readonly gate = new Promise<void>((r) => {
    this.opened = r;
  });
  constructor(private readonly inner: MemoryBackend) {}
  open(): void {
    this.opened();
  }
  async *walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    await this.gate;
    return yield* this.inner.walk(req, signal);
  }
  async stat(p: string): Promise<StatInfo> {
    await this.gate;
    return this.inner.stat(p);
  }
  probe(): Promise<{ version: string }> {
    return this.inner.probe();
  }
  close(): void {}
}

const tree = (names: string[]) =>
  dir({ r: dir({ sub: dir({ deep: file(1) }), ...Object.fromEntries(names.map((n, i) => [n, file((i + 1) * 10)])) }) });

const connect = (fleet: FakeFleet, scans: ScanRegistry, principal: string) =>
  connectMcp({ fleet, logger, options: OPTIONS, scans, principal });

function setup() {
  const slow = new GatedBackend(new MemoryBackend(tree(['b1', 'b2'])));
  const never = new HangingBackend();
  const fleet = new FakeFleet({ a: new MemoryBackend(tree(['a1', 'a2', 'a3'])), b: slow, c: never });
  const scans = createScanRegistry(resolveGatewayOptions(OPTIONS), logger);
  return { slow, never, fleet, scans };
}

interface Page {
  items?: { host: string; path: string }[];
  next_cursor?: string;
  hosts: { host: string; status: string }[];
  scan?: { state: string; complete: boolean; hosts_done: number; hosts_total: number; ranking_final?: boolean };
}

const page = (r: CallToolResult) => r.structuredContent as unknown as Page;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

test('a call past its deadline: what arrived, pending hosts, and a cursor that delivers the rest once', async () => {
  const { slow, never, fleet, scans } = setup();
  const { client, close } = await connect(fleet, scans, 'p1');
  const args = { host: 'all', path: '/r', order_by: 'size', sort: 'descending', type: 'file' };
  const first = (await client.callTool({ name: 'list_files', arguments: args })) as CallToolResult;
  const p1 = page(first);
  assert.deepEqual(
    p1.items?.map((i) => `${i.host}:${i.path}`),
    ['a:a3', 'a:a2', 'a:a1'],
  );
  assert.deepEqual(
    p1.hosts.map((h) => `${h.host}:${h.status}`),
    ['a:ok', 'b:pending', 'c:pending'],
  );
  assert.equal(p1.scan?.state, 'running');
  assert.equal(p1.scan?.ranking_final, false);
  assert.match(p1.next_cursor ?? '', /^scan\./);
  assert.match(text(first), /\[PENDING\] 2 hosts not on this page yet: b, c/);
  assert.match(text(first), /\[SCAN\] [0-9a-f]{16} still scanning: 1 of 3 hosts done/);

  slow.open();
  const second = page(
    (await client.callTool({ name: 'list_files', arguments: { ...args, cursor: p1.next_cursor } })) as CallToolResult,
  );
  assert.deepEqual(
    second.items?.map((i) => `${i.host}:${i.path}`),
    ['b:b2', 'b:b1'],
  );
  // b's rows on this page; c still pending (or, on a slow machine, timed out already).
  assert.equal(second.hosts[0].host, 'b');
  assert.equal(second.hosts[0].status, 'ok');
  // The never-answering host times out at the scan's host deadline: the last page says so.
  let last = second;
  const seen = [...(p1.items ?? []), ...(second.items ?? [])].map((i) => `${i.host}:${i.path}`);
  while (last.next_cursor) {
    last = page(
      (await client.callTool({
        name: 'list_files',
        arguments: { ...args, cursor: last.next_cursor },
      })) as CallToolResult,
    );
    for (const i of last.items ?? []) seen.push(`${i.host}:${i.path}`);
  }
  assert.deepEqual(
    last.hosts.map((h) => `${h.host}:${h.status}`).filter((h) => h.startsWith('c:')),
    ['c:timeout'],
  );
  assert.equal(last.scan?.complete, true);
  assert.equal(last.scan?.ranking_final, true);
  assert.deepEqual(seen, ['a:a3', 'a:a2', 'a:a1', 'b:b2', 'b:b1']);
  assert.equal(never.aborts, 1);
  await close();
  scans.close();
});

test("another principal's cursor is refused; a wrong query's cursor too", async () => {
  const { fleet, scans } = setup();
  const mine = await connect(fleet, scans, 'p1');
  const theirs = await connect(fleet, scans, 'p2');
  const args = { host: 'all', path: '/r', order_by: 'size' };
  const first = page((await mine.client.callTool({ name: 'list_files', arguments: args })) as CallToolResult);
  const cursor = first.next_cursor;
  assert.match(cursor ?? '', /^scan\./);
  const refused = (await theirs.client.callTool({
    name: 'list_files',
    arguments: { ...args, cursor },
  })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.match(text(refused), /^permission_denied: cursor names scan [0-9a-f]{16}, which another caller started/);
  const status = (await theirs.client.callTool({ name: 'scan_status', arguments: { cursor } })) as CallToolResult;
  assert.equal(status.isError, true);
  const other = (await mine.client.callTool({
    name: 'list_files',
    arguments: { ...args, path: '/r/sub', cursor },
  })) as CallToolResult;
  assert.equal(other.isError, true);
  assert.match(text(other), /cursor is not valid for this query/);
  await Promise.all([mine.close(), theirs.close()]);
  scans.close();
});

test('scan_status: hosts done of total, and cancel=true stops every walk', async () => {
  const { never, fleet, scans } = setup();
  const { client, close } = await connect(fleet, scans, 'p1');
  const first = page(
    (await client.callTool({ name: 'list_directory', arguments: { host: 'all', path: '/r' } })) as CallToolResult,
  );
  const r = (await client.callTool({
    name: 'scan_status',
    arguments: { cursor: first.next_cursor, cancel: true },
  })) as CallToolResult;
  const st = r.structuredContent as {
    scan: { hosts_done: number; hosts_total: number; state: string };
    cancelled: boolean;
  };
  assert.equal(st.scan.hosts_total, 3);
  assert.equal(st.scan.hosts_done, 1);
  assert.equal(st.cancelled, true);
  assert.equal(st.scan.state, 'cancelled');
  await new Promise((res) => setTimeout(res, 50));
  assert.equal(never.aborts, 1);
  await close();
  scans.close();
});

test('a scan says how long it ran, not how long ago it started, and guesses no time left for hosts walking now', async () => {
  // Issue 40, item 9: one slow host beside a quick one was "about 0.8 s left" for a 4.4 s walk,
  // and the Scans view, reading scan_status later, said 19.3 s for the same scan.
  const slow = new GatedBackend(new MemoryBackend(tree(['b1', 'b2'])));
  const fleet = new FakeFleet({ a: new MemoryBackend(tree(['a1'])), b: slow });
  const scans = createScanRegistry(resolveGatewayOptions(OPTIONS), logger);
  const { client, close } = await connect(fleet, scans, 'p1');
  const args = { host: 'all', path: '/r', order_by: 'size' };
  type Status = { scan: { state: string; elapsed_ms: number; estimate_ms?: number } };
  const status = async (cursor: string) =>
    ((await client.callTool({ name: 'scan_status', arguments: { cursor } })) as CallToolResult)
      .structuredContent as unknown as Status;
  const first = page((await client.callTool({ name: 'list_files', arguments: args })) as CallToolResult);
  const cursor = first.next_cursor ?? assert.fail('a scan page');
  assert.equal(first.scan?.hosts_done, 1);
  // b is walking (the concurrency admits both): the pace of a says nothing of when b ends.
  assert.equal((await status(cursor)).scan.estimate_ms, undefined);
  slow.open();
  let last = first;
  while (last.next_cursor) {
    last = page(
      (await client.callTool({
        name: 'list_files',
        arguments: { ...args, cursor: last.next_cursor },
      })) as CallToolResult,
    );
  }
  assert.equal(last.scan?.state, 'complete');
  const ended = (await status(cursor)).scan;
  // Time passes between the two reads (no race: a running clock would differ by these 25 ms).
  await new Promise((res) => setTimeout(res, 25));
  const later = (await status(cursor)).scan;
  assert.equal(later.state, 'complete');
  assert.equal(later.elapsed_ms, ended.elapsed_ms, 'a complete scan ran as long, read now or later');
  await close();
  scans.close();
});

test('notifications/cancelled on a page stops every host of the scan', async () => {
  const { never, fleet, scans } = setup();
  const { client, close } = await connect(fleet, scans, 'p1');
  const args = { host: 'all', path: '/r', order_by: 'size' };
  const first = page((await client.callTool({ name: 'list_files', arguments: args })) as CallToolResult);
  const ctrl = new AbortController();
  const call = client.callTool(
    { name: 'list_files', arguments: { ...args, cursor: first.next_cursor } },
    CallToolResultSchema,
    {
      signal: ctrl.signal,
    },
  );
  await new Promise((res) => setTimeout(res, 100));
  ctrl.abort();
  await assert.rejects(call);
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(never.aborts, 1);
  await close();
  scans.close();
});

test('every fan-out tool goes on as a scan, its pages valid answers', async () => {
  const calls: [string, Record<string, unknown>][] = [
    ['list_directory', { host: 'all', path: '/r' }],
    ['list_files', { host: 'all', path: '/r', order_by: 'size' }],
    // Name order, the default, too (issue 37: it answered at its deadline, the slow hosts lost).
    ['list_files', { host: 'all', path: '/r' }],
    ['list_directories', { host: 'all', path: '/r' }],
    ['diff_directory', { host: 'all', path: '/r' }],
    ['disk_usage', { host: 'all', path: '/r' }],
  ];
  for (const [name, args] of calls) {
    const { slow, fleet, scans } = setup();
    const { client, close } = await connect(fleet, scans, 'p1');
    let p = page((await client.callTool({ name, arguments: args })) as CallToolResult);
    assert.deepEqual(
      p.hosts.filter((h) => h.status === 'pending').map((h) => h.host),
      name === 'diff_directory' ? ['a', 'b', 'c'] : ['b', 'c'],
      name,
    );
    assert.match(p.next_cursor ?? '', /^scan\./, name);
    slow.open();
    const statuses = new Map<string, string>();
    for (const h of p.hosts) statuses.set(h.host, h.status);
    while (p.next_cursor) {
      p = page((await client.callTool({ name, arguments: { ...args, cursor: p.next_cursor } })) as CallToolResult);
      for (const h of p.hosts) statuses.set(h.host, h.status);
    }
    assert.deepEqual(Object.fromEntries(statuses), { a: 'ok', b: 'ok', c: 'timeout' }, name);
    assert.equal(p.scan?.complete, true, name);
    await close();
    scans.close();
  }
});

test('stat is no scan: one lstat per host answers whole at the deadline, the slow hosts timeout, no cursor', async () => {
  // Issue 37: stat takes no cursor, so a page of a scan would have no way on.
  const { slow, fleet, scans } = setup();
  const { client, close } = await connect(fleet, scans, 'p1');
  try {
    const r = (await client.callTool({ name: 'stat', arguments: { host: 'all', path: '/r' } })) as CallToolResult;
    const p = page(r);
    assert.deepEqual(
      p.hosts.map((h) => `${h.host}:${h.status}`),
      ['a:ok', 'b:timeout', 'c:timeout'],
    );
    assert.equal(p.next_cursor, undefined);
    assert.equal(p.scan, undefined);
  } finally {
    slow.open();
    await close();
    scans.close();
  }
});

test('the per-caller cap counts scans left running past their call, not quick calls', async () => {
  const { fleet } = setup();
  const capped = createScanRegistry(resolveGatewayOptions({ ...OPTIONS, scansPerPrincipal: 1 }), logger);
  const { client, close } = await connect(fleet, capped, 'p1');
  const quick = { host: 'a', path: '/r', order_by: 'size', sort: 'descending' };
  // Three quick calls at once: each answers whole within its call, none is refused.
  const burst = (await Promise.all(
    [1, 2, 3].map(() => client.callTool({ name: 'list_files', arguments: quick })),
  )) as CallToolResult[];
  for (const r of burst) assert.equal(r.isError, undefined, text(r));
  // One call outlives its deadline (host c never answers): a scan with a cursor, running.
  const slow = { host: 'all', path: '/r', order_by: 'size', sort: 'descending' };
  const first = (await client.callTool({ name: 'list_files', arguments: slow })) as CallToolResult;
  assert.ok(page(first).next_cursor, text(first));
  // The second such call is refused, naming the cap and what to do.
  const second = (await client.callTool({ name: 'list_files', arguments: slow })) as CallToolResult;
  assert.equal(second.isError, true);
  assert.match(text(second), /1 scans of this caller are still running \(at most 1\): follow their next_cursor/);
  // Cancelling it frees the slot: the next call is served.
  const status = (await client.callTool({
    name: 'scan_status',
    arguments: { cursor: page(first).next_cursor, cancel: true },
  })) as CallToolResult;
  assert.equal(status.isError, undefined, text(status));
  const third = (await client.callTool({ name: 'list_files', arguments: quick })) as CallToolResult;
  assert.equal(third.isError, undefined, text(third));
  await close();
});
