// The ranked fan-outs over many hosts keep per host only the rows that may still rank within
// top_n over the call's hosts (rankedCut, as list_files' rankedWalkTask): disk_usage and
// list_directories over 2,000 hosts fit a scan store of 2,000 rows, and rank as the hosts do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostBackend } from '@fleetls/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { dir, FakeFleet, file, MemoryBackend } from '../testing/fake-fleet.js';
import { connectMcp } from '../testing/mcp-client.js';

const HOSTS = 2000;
const DIRS = 25;
const name = (i: number) => `host-${String(i).padStart(5, '0')}`;
const dirName = (j: number) => `d${String(j).padStart(2, '0')}`;
/** Each (host, directory) its own size, in no order of the hosts. */
const sizeOf = (i: number, j: number) => ((i * 7919) % HOSTS) * DIRS + j + 1;

/** The 20 largest (host, directory) pairs. */
function expectedTop(): [string, string][] {
  const all: [number, string, string][] = [];
  for (let i = 0; i < HOSTS; i++) for (let j = 0; j < DIRS; j++) all.push([sizeOf(i, j), name(i), dirName(j)]);
  return all
    .sort((a, b) => b[0] - a[0])
    .slice(0, 20)
    .map(([, h, d]) => [h, d]);
}

async function call(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const backends: Record<string, HostBackend> = {};
  for (let i = 0; i < HOSTS; i++) {
    const dirs = Object.fromEntries(
      Array.from({ length: DIRS }, (_, j) => [dirName(j), dir({ f: file(sizeOf(i, j)) }, { du: sizeOf(i, j) })]),
    );
    backends[name(i)] = new MemoryBackend(dir({ r: dir(dirs) }));
  }
  const { client, close } = await connectMcp(
    {
      fleet: new FakeFleet(backends),
      logger: pino({ level: 'silent' }),
      // disk_usage answers a path total per host: a budget that holds 2,000 of them.
      options: { concurrency: 512, scanMemoryRows: 2000, maxAnswerBytes: 1_048_576, maxAnswerTokens: 300_000 },
    },
    'ranked-rows',
  );
  try {
    const r = (await client.callTool({
      name: tool,
      arguments: { host: 'all', path: '/r', ...args },
    })) as CallToolResult;
    assert.equal(r.isError, undefined, JSON.stringify(r.content).slice(0, 500));
    return r;
  } finally {
    await close();
  }
}

interface Statuses {
  hosts: { host: string; status: string; message?: string }[];
}

// Each host's 20 rows were 40,000: past the store's 2,000, hosts were "rows not kept".
test('disk_usage top 20 over 2,000 hosts: every host kept, the 20 largest of them all', async () => {
  const a = (await call('disk_usage', {})).structuredContent as unknown as Statuses & {
    rows: { host: string; path: string }[];
  };
  assert.deepEqual(
    a.hosts.filter((h) => h.status !== 'ok').map((h) => `${h.host}: ${h.message}`),
    [],
  );
  assert.deepEqual(
    a.rows.map((r) => [r.host, r.path]),
    expectedTop(),
  );
});

test('list_directories top 20 by size over 2,000 hosts: every host kept, the 20 largest of them all', async () => {
  const a = (await call('list_directories', { order_by: 'size', sort: 'descending', top_n: 20 }))
    .structuredContent as unknown as Statuses & { nodes: { host: string; name: string }[] };
  assert.deepEqual(
    a.hosts.filter((h) => h.status !== 'ok').map((h) => `${h.host}: ${h.message}`),
    [],
  );
  assert.deepEqual(
    a.nodes.map((r) => [r.host, r.name]),
    expectedTop(),
  );
});
