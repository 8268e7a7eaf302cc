// diff_directory over thousands of hosts, over a real MCP client (scans included): the call
// keeps each distinct tree once, not each host's rows, so its memory is bounded by the
// distinct trees whatever the host count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES, type HostBackend } from '@fleetls/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { connectMcp } from '../../testing/mcp-client.js';

interface Answer {
  groups: { id: string; count: number; hosts: string[] }[];
  differences: {
    path: string;
    values: { groups?: string[]; hosts: string[]; size?: number }[];
    not_compared?: string[];
    not_compared_count?: number;
  }[];
  hosts: { host: string; status: string; message?: string }[];
  truncations: {
    reason: string;
    host?: string;
    dir?: string;
    shown: number;
    total?: number;
    hosts?: number;
    by_status?: Record<string, number>;
  }[];
}

const name = (i: number) => `host-${String(i).padStart(5, '0')}`;

/** `n` hosts of one 20-file tree, every `oddEvery`th with one file of another size. */
function fleet(n: number, oddEvery: number): FakeFleet {
  const files = (odd: boolean) =>
    Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, file(odd && i === 3 ? 99 : i)]));
  const same = dir({ r: dir(files(false)) });
  const odd = dir({ r: dir(files(true)) });
  const backends: Record<string, HostBackend> = {};
  for (let i = 0; i < n; i++) backends[name(i)] = new MemoryBackend(i % oddEvery === oddEvery - 1 ? odd : same);
  return new FakeFleet(backends);
}

async function diffOver(
  f: FakeFleet,
  options: Record<string, number>,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  const { client, close } = await connectMcp(
    { fleet: f, logger: pino({ level: 'silent' }), options: { concurrency: 512, ...options } },
    'diff-many',
  );
  try {
    return (await client.callTool({
      name: 'diff_directory',
      arguments: { host: 'all', path: '/r', ...args },
    })) as CallToolResult;
  } finally {
    await close();
  }
}

test('2,000 hosts of two trees fit a scan store of 3,000 rows: each tree is kept once', async () => {
  // Each tree's 20 rows, and a row's weight for each other host: 2,038. Every host's 20 rows
  // would be 40,000: past the bound, hosts were "rows not kept".
  const r = await diffOver(fleet(2000, 200), {
    scanMemoryRows: 3000,
    maxAnswerBytes: 1_048_576,
    maxAnswerTokens: 300_000,
  });
  const a = r.structuredContent as unknown as Answer;
  assert.equal(r.isError, undefined, JSON.stringify(r.content).slice(0, 500));
  assert.deepEqual(
    a.hosts.filter((h) => h.status !== 'ok').map((h) => `${h.host}: ${h.message}`),
    [],
  );
  assert.deepEqual(
    a.groups.map((g) => g.count),
    [1990, 10],
  );
  assert.deepEqual(
    a.groups[1].hosts,
    Array.from({ length: 10 }, (_, i) => name(i * 200 + 199)),
  );
  assert.deepEqual(
    a.differences.map((d) => d.path),
    ['f3'],
  );
});

test('5,000 hosts at the default budget: groups name their first hosts, the odd group whole, and the answer fits', async () => {
  // Every name in the groups and in each value was over 48,000 bytes by itself: refused.
  const r = await diffOver(fleet(5000, 200), {});
  assert.equal(r.isError, undefined, JSON.stringify(r.content).slice(0, 500));
  assert.ok(Buffer.byteLength(JSON.stringify(r)) <= DEFAULT_MAX_ANSWER_BYTES);
  const a = r.structuredContent as unknown as Answer;
  const odd = Array.from({ length: 25 }, (_, i) => name(i * 200 + 199));
  assert.deepEqual(
    a.groups.map((g) => [g.id, g.count, g.hosts.length]),
    [
      ['A', 4975, 5],
      ['B', 25, 25],
    ],
  );
  assert.deepEqual(a.groups[0].hosts, [0, 1, 2, 3, 4].map(name));
  assert.deepEqual(a.groups[1].hosts, odd);
  assert.deepEqual(
    a.differences.map((d) => [d.path, d.values.map((v) => [v.groups, v.hosts, v.size])]),
    [
      [
        'f3',
        [
          [['A'], [], 3],
          [['B'], [], 99],
        ],
      ],
    ],
  );
  assert.deepEqual(
    a.truncations.find((t) => t.reason === 'group_hosts'),
    { reason: 'group_hosts', shown: 30, total: 5000 },
  );
  const text = (r.content[0] as { text: string }).text.split('\n');
  assert.equal(text[1], `A  4975 hosts (baseline): ${[0, 1, 2, 3, 4].map(name).join(', ')} and 4970 more`);
  assert.equal(text[2], `B  25 hosts: ${odd.join(', ')}`);
  assert.ok(
    text.some((l) => l.startsWith('[NOTE] 5000 hosts compared: group A names its first hosts and counts the rest')),
  );
});

test('2,000 hosts each listing a directory in part: the same cut is told once, with its host count', async () => {
  // A record and a line per host were over 48,000 bytes by themselves: the call was refused.
  const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}`, file(i)]));
  const backends: Record<string, HostBackend> = {};
  for (let i = 0; i < 2000; i++) backends[name(i)] = new MemoryBackend(dir({ r: dir({ d: dir(files) }) }));
  const r = await diffOver(new FakeFleet(backends), {}, { max_items_per_dir: 10 });
  assert.equal(r.isError, undefined, JSON.stringify(r.content).slice(0, 500));
  const a = r.structuredContent as unknown as Answer;
  assert.deepEqual(
    a.truncations.filter((t) => t.reason === 'items_per_dir'),
    [{ host: name(0), dir: 'd', shown: 10, total: 30, reason: 'items_per_dir', hosts: 2000 }],
  );
  assert.match(
    (r.content[0] as { text: string }).text,
    /^host-00000 and 1999 more hosts: \[WARNING\] d: 20 items hidden \(showing first 10 of 30 total\)$/m,
  );
});

test('hosts not compared, over many hosts: the first 20 named and all counted', async () => {
  const files = (size: number, extra: boolean) =>
    Object.fromEntries([
      ...(extra ? [['a0', file(5)]] : []),
      ...Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}`, file(i === 29 ? size : i)]),
    ]);
  const backends: Record<string, HostBackend> = {};
  // 1,000 hosts with f29 of 1 byte, 1,000 of 2, and 100 with a0 first: listing 30 of their 31 entries, not f29.
  for (let i = 0; i < 2100; i++)
    backends[name(i)] = new MemoryBackend(dir({ r: dir({ d: dir(files(i < 1000 ? 1 : 2, i >= 2000)) }) }));
  const r = await diffOver(new FakeFleet(backends), {}, { max_items_per_dir: 30 });
  assert.equal(r.isError, undefined, JSON.stringify(r.content).slice(0, 500));
  const a = r.structuredContent as unknown as Answer;
  const f29 = a.differences.find((d) => d.path === 'd/f29');
  assert.deepEqual(
    f29?.not_compared,
    Array.from({ length: 20 }, (_, i) => name(2000 + i)),
  );
  assert.equal(f29?.not_compared_count, 100);
  assert.deepEqual(
    f29?.values.map((v) => [v.groups, v.size]),
    [
      [['A'], 1],
      [['B'], 2],
    ],
  );
  assert.match(
    (r.content[0] as { text: string }).text,
    /^ {2}not compared \(listed in part\): host-02000, .*, host-02019 and 80 more$/m,
  );
});
