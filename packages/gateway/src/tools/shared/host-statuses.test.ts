// An answer over thousands of hosts fits the default budget (48,000 bytes, 20,000 tokens): the ok
// hosts are counted, the failed ones listed (up to a quarter of the budget), and the cut is a
// truncation record (host_statuses, with the count of each status) and a text line, never silent. Over a few hosts every host
// keeps its status row. Every tool that fans out, over a real MCP client, contract-checked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES, type HostBackend } from '@fleetls/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { DeadBackend, dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { connectMcp } from '../../testing/mcp-client.js';

// Not here at 5,000 hosts: disk_usage answers a path total per host (path_totals); diff_directory
// is asked over 1,000 hosts below (its groups past that: diff-directory/many-hosts.test.ts).
const TOOLS: [string, Record<string, unknown>][] = [
  ['list_files', { path: '/r', order_by: 'size', sort: 'descending', top_n: 10 }],
  ['list_directories', { path: '/r' }],
  ['list_directory', { path: '/r' }],
  ['stat', { path: '/r' }],
];

interface Answer {
  hosts: { host: string; status: string }[];
  truncations?: { reason: string; shown: number; total: number; by_status?: Record<string, number> }[];
}

const cutOf = (a: Answer) => a.truncations?.find((t) => t.reason === 'host_statuses');

async function withFleet(
  ok: number,
  dead: number,
  fn: (call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>) => Promise<void>,
): Promise<void> {
  const tree = dir({ r: dir({ a: file(3), b: file(5), d: dir({ c: file(7) }) }) });
  const backends: Record<string, HostBackend> = {};
  // Failed hosts spread among the ok ones, so the listing keeps the call's host order.
  for (let i = 0; i < ok + dead; i++) {
    const name = `host-${String(i).padStart(5, '0')}`;
    const down = Math.floor(((i + 1) * dead) / (ok + dead)) > Math.floor((i * dead) / (ok + dead));
    backends[name] = down ? new DeadBackend() : new MemoryBackend(tree);
  }
  const { client, close } = await connectMcp(
    { fleet: new FakeFleet(backends), logger: pino({ level: 'silent' }), options: { concurrency: 512 } },
    'many-hosts',
  );
  try {
    await fn(async (name, args) => {
      const r = (await client.callTool({ name, arguments: { host: 'all', ...args } })) as CallToolResult;
      const bytes = Buffer.byteLength(JSON.stringify(r));
      assert.ok(bytes <= DEFAULT_MAX_ANSWER_BYTES, `${name}: ${bytes} bytes`);
      assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content).slice(0, 300)}`);
      return r;
    });
  } finally {
    await close();
  }
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

test('5,000 hosts, 20 of them down: every tool fits the default budget, counts the ok hosts, lists the failed', async () => {
  await withFleet(4980, 20, async (call) => {
    for (const [name, args] of TOOLS) {
      const r = await call(name, args);
      const a = r.structuredContent as unknown as Answer;
      const cut = cutOf(a);
      const { ok = 0, pending = 0, unreachable = 0, ...other } = cut?.by_status ?? {};
      assert.deepEqual(other, {}, name);
      // list_directory shows a few hosts' trees on a page: the others, down or not, are pending (a later page).
      if (name === 'list_directory') assert.equal(ok + pending + unreachable, 5000, name);
      else assert.deepEqual([ok, pending, unreachable], [4980, 0, 20], name);
      assert.deepEqual([cut?.shown, cut?.total], [unreachable, 5000], name);
      assert.deepEqual(
        a.hosts.map((h) => h.status),
        Array(unreachable).fill('unreachable'),
        name,
      );
      assert.match(textOf(r), new RegExp(`\\[NOTE\\] 5000 hosts: .*; hosts lists the ${unreachable} failed`), name);
    }
  });
});

test('diff_directory over 1,000 hosts, 10 of them down: fits, counts the ok hosts, lists the failed', async () => {
  await withFleet(990, 10, async (call) => {
    const a = (await call('diff_directory', { path: '/r' })).structuredContent as unknown as Answer;
    assert.deepEqual(cutOf(a), {
      reason: 'host_statuses',
      shown: 10,
      total: 1000,
      by_status: { ok: 990, unreachable: 10 },
    });
    assert.deepEqual(
      a.hosts.map((h) => h.status),
      Array(10).fill('unreachable'),
    );
  });
});

test('3,000 hosts down: the failed hosts listed are cut, and the cut says so in its record and a warning', async () => {
  await withFleet(0, 3000, async (call) => {
    // list_directory is not here: a failed host's line is a row of its tree page, each of them listed.
    for (const [name, args] of [
      ...TOOLS.filter(([n]) => n !== 'list_directory'),
      ['diff_directory', { path: '/r' }],
    ] as const) {
      const r = await call(name, args);
      const a = r.structuredContent as unknown as Answer;
      assert.ok(a.hosts.length > 0 && a.hosts.length < 3000, `${name}: ${a.hosts.length}`);
      assert.deepEqual(
        cutOf(a),
        { reason: 'host_statuses', shown: a.hosts.length, total: 3000, by_status: { unreachable: 3000 } },
        name,
      );
      assert.match(
        textOf(r),
        new RegExp(
          `\\[WARNING\\] 3000 hosts: 3000 unreachable; host statuses cut .*: ${a.hosts.length} of 3000 failed hosts listed`,
        ),
        name,
      );
    }
  });
});

test('a few hosts: every host keeps its status row, no host_statuses cut', async () => {
  await withFleet(4, 1, async (call) => {
    for (const [name, args] of TOOLS) {
      const a = (await call(name, args)).structuredContent as unknown as Answer;
      assert.equal(a.hosts.length, 5, name);
      assert.equal(cutOf(a), undefined, name);
    }
  });
});
