// The SDK's Client over stdio, spawning `fleetls serve` against real agents on loopback
// ports and an address where nothing listens.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { TOOLS } from '@fleetls/gateway';
import { fullTreeLines } from '@fleetls/gateway/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stdioClient, stdioClientV2 } from '../../helpers/gateway-process.js';
import { driveEveryTool, type McpFleetFixture, mcpTree, startMcpFleet } from '../../helpers/mcp-fixture.js';

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

async function spawnClient(env: Record<string, string>, args: string[] = []): Promise<Client> {
  return (await stdioClient('fleetls-e2e', env, { args })).client;
}

type Items = { host: string; path: string; size: number }[];

describe('fleetls serve over stdio, with an inventory', () => {
  let fx: McpFleetFixture;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  before(async () => {
    fx = await startMcpFleet();
    client = await spawnClient({ FLEETLS_INVENTORY: fx.inventory });
  });
  after(async () => {
    await client?.close();
    await fx?.close();
  });

  it('lists every tool of the registry', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
  });

  it('the v1 SDK client, on 2025-11-25, drives every tool', async () => {
    const driven = await driveEveryTool(fx, call);
    assert.deepEqual(driven.sort(), TOOLS.map((t) => t.name).sort());
  });

  it('the v2 SDK client, on 2026-07-28 (server/discover), drives every tool', async () => {
    const v2 = await stdioClientV2('fleetls-e2e-v2', { FLEETLS_INVENTORY: fx.inventory });
    try {
      assert.equal(v2.getProtocolEra(), 'modern');
      assert.equal(v2.getNegotiatedProtocolVersion(), '2026-07-28');
      const driven = await driveEveryTool(fx, (name, args) => v2.callTool({ name, arguments: args }));
      assert.deepEqual(driven.sort(), TOOLS.map((t) => t.name).sort());
      // Progress, on this revision too: hosts done of total, rising.
      const progress: number[] = [];
      await v2.callTool(
        { name: 'list_files', arguments: { host: 'all', path: fx.data } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      assert.ok(progress.length >= 1 && progress.every((p, i) => i === 0 || p > progress[i - 1]), `${progress}`);
    } finally {
      await v2.close();
    }
  });

  it('list_hosts check=true probes every host', async () => {
    const r = await call('list_hosts', { check: true });
    const hosts = (
      r.structuredContent as { hosts: { host: string; reachable: boolean; status: string; version?: string }[] }
    ).hosts;
    assert.deepEqual(
      hosts.map((h) => [h.host, h.reachable, h.status]),
      [
        ['web-1', true, 'ok'],
        ['web-2', true, 'ok'],
        ['narrow', true, 'ok'],
        ['dead', false, 'unreachable'],
      ],
    );
    assert.ok(hosts[0].version);
  });

  it('list_files merges hosts in order, applies top_n to the merged list, and has a status row per host', async () => {
    const r = await call('list_files', {
      host: 'all',
      path: fx.data,
      max_depth: 2,
      order_by: 'size',
      sort: 'descending',
      top_n: 5,
      type: 'file',
    });
    assert.equal(r.isError, undefined);
    const sc = r.structuredContent as {
      items: Items;
      total: number;
      found: number;
      hosts: { host: string; status: string }[];
    };
    assert.deepEqual(
      sc.items.map((i) => `${i.host}:${i.path}:${i.size}`),
      ['web-1:c.log:4000', 'web-2:c.log:4000', 'web-1:a.log:300', 'web-2:a.log:300', 'web-1:big/f149:149'],
    );
    assert.equal(sc.total, 5);
    assert.equal(sc.found, 2 * 155);
    assert.deepEqual(
      sc.hosts.map((h) => `${h.host}:${h.status}`),
      ['web-1:ok', 'web-2:ok', 'narrow:denied', 'dead:unreachable'],
    );
    assert.match(text(r), /^Showing 1-5 of 5 files \(top 5 of 310 found\)/);
  });

  it('cursors cover the merged list of two agents exactly once', async () => {
    const args = { host: '@webs', path: fx.data, max_depth: 1, type: 'any', order_by: 'modified' };
    const pages = async (limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await call('list_files', { ...args, limit, ...(cursor ? { cursor } : {}) });
        const sc = page.structuredContent as { items: Items; next_cursor?: string };
        for (const i of sc.items) seen.push(`${i.host}:${i.path}`);
        cursor = sc.next_cursor;
      } while (cursor);
      return seen;
    };
    // The largest pages (cut by the answer budget, not by limit) and pages of 90 rows.
    const all = await pages(5000);
    assert.equal(all.length, 2 * 158);
    const seen = await pages(90);
    assert.deepEqual(seen, all);
    assert.equal(new Set(seen).size, all.length);
  });

  it('list_directory gives DesktopCommander lines for one host, a run of siblings by name', async () => {
    const r = await call('list_directory', { host: 'web-1', path: fx.data });
    // A line in the directory of the line above shows its name, indented.
    const big = Array.from(
      { length: 100 },
      (_, i) => `${i === 0 ? '[FILE] big/' : '  [FILE] '}f${String(i).padStart(3, '0')}`,
    );
    assert.deepEqual(text(r).split('\n'), [
      '[FILE] a.log',
      '[FILE] B.txt',
      '[DIR] big',
      ...big,
      '[WARNING] big: 50 items hidden (showing first 100 of 150 total)',
      '[FILE] c.log',
      '[LINK] current -> sub',
      '[DIR] sub',
      '[FILE] sub/deep.log',
      '  [DIR] inner',
    ]);
  });

  it('list_directory prefixes every line with its host and reports the dead one', async () => {
    const r = await call('list_directory', { host: 'web-2,dead', path: `${fx.data}/sub`, depth: 1 });
    assert.deepEqual(text(r).split('\n').slice(0, 2), ['web-2: [FILE] deep.log', 'web-2: [DIR] inner']);
    assert.match(text(r).split('\n')[2], /^dead: \[ERROR\] unreachable — /);
  });

  it('list_directory pages through the trees of two agents with next_cursor, each row once', async () => {
    const args = { host: '@webs', path: fx.data, depth: 3 };
    const whole = text(await call('list_directory', args)).split('\n');
    assert.equal(whole.length, 2 * 110);
    const small = await spawnClient({ FLEETLS_INVENTORY: fx.inventory }, ['--max-answer-bytes', '2048']);
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await small.callTool({
          name: 'list_directory',
          arguments: { ...args, ...(cursor ? { cursor } : {}) },
        });
        const r = page as CallToolResult;
        assert.equal(r.isError, undefined, text(r));
        const sc = r.structuredContent as { next_cursor?: string; hosts: { host: string }[] };
        cursor = sc.next_cursor;
        // Every page names the hosts a later page lists (pending), in one line of its own.
        assert.equal(sc.hosts.at(-1)?.host, 'web-2');
        const lines = text(r)
          .split('\n')
          .filter((l) => !/^\[PENDING\] web-2: continued on the next page/.test(l));
        if (cursor)
          assert.equal(
            lines.pop(),
            `[WARNING] answer cut at 2048 bytes after ${lines.length} lines; to continue, call list_directory again with the same arguments and cursor: ${cursor}`,
          );
        seen.push(...lines);
        pages++;
      } while (cursor && pages < 100);
      assert.ok(pages > 2, `${pages} pages`);
      // A page's first line shows its whole path where the one answer gave a sibling's name.
      assert.deepEqual(fullTreeLines(seen), fullTreeLines(whole));
    } finally {
      await small.close();
    }
  });

  it('list_directories orders subdirectories by recursive size', async () => {
    const r = await call('list_directories', { host: 'web-1', path: fx.data, order_by: 'size', sort: 'descending' });
    const nodes = (r.structuredContent as { nodes: { name: string; size: number }[] }).nodes;
    assert.deepEqual(
      nodes.map((n) => n.name),
      ['big', 'sub'],
    );
    assert.ok(nodes[0].size >= 149 * 75);
    // A symlink to a directory as path is listed through it.
    const viaLink = await call('list_directories', { host: 'web-1', path: `${fx.data}/current` });
    assert.deepEqual(
      (viaLink.structuredContent as { nodes: { name: string }[] }).nodes.map((n) => n.name),
      ['inner'],
    );
  });

  it('stat answers per host', async () => {
    const r = await call('stat', { host: 'web-1,dead', path: `${fx.data}/a.log` });
    const sc = r.structuredContent as {
      results: { size: number; type: string; mode: string }[];
      hosts: { status: string }[];
    };
    assert.equal(sc.results[0].size, 300);
    assert.equal(sc.results[0].type, 'file');
    assert.match(sc.results[0].mode, /^0[0-7]{3}$/);
    assert.deepEqual(
      sc.hosts.map((h) => h.status),
      ['ok', 'unreachable'],
    );
  });

  it('bad arguments are tool errors naming the argument and its bounds', async () => {
    const r = await call('list_directory', { host: 'web-1', path: fx.data, depth: 99 });
    assert.equal(r.isError, true);
    assert.match(text(r), /depth must be an integer from 1 to 10/);
    const unknown = await call('list_files', { host: 'nope', path: fx.data });
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /web-1/);
    // An argument the schema does not name is refused, not dropped (the answer would be depth 0).
    const stray = await call('list_files', { host: 'web-1', path: fx.data, maxDepth: 3 });
    assert.equal(stray.isError, true);
    assert.match(text(stray), /maxDepth: unknown argument; did you mean max_depth\?/);
  });
});

describe('fleetls serve over stdio, with no inventory', () => {
  it('serves localhost from the embedded agent', async () => {
    const fx = mcpTree();
    const client = await spawnClient({ FLEETLS_INVENTORY: '' });
    try {
      const r = (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'localhost', path: `${fx.data}/sub` },
      })) as CallToolResult;
      assert.equal(text(r), '[FILE] deep.log\n[DIR] inner\n[FILE] inner/x.bin');
      assert.equal((r.structuredContent as { hosts: { via: string }[] }).hosts[0].via, 'embedded');
    } finally {
      await client.close();
      fs.rmSync(fx.root, { recursive: true, force: true });
    }
  });
});
