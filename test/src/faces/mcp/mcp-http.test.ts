// The SDK's Client over Streamable HTTP, against `fleetls serve --http 127.0.0.1:0` with a
// bearer token, in front of real agents on loopback ports and an address where nothing listens.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { TOOLS } from '@fleetls/gateway';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { httpClientV2, startGateway } from '../../helpers/gateway-process.js';
import { driveEveryTool, startMcpHttp } from '../../helpers/mcp-fixture.js';
import { suiteFixture } from '../../helpers/suite-fixture.js';

const TOKEN = 'e2e-token-0123456789';

describe('fleetls serve --http', () => {
  const http = suiteFixture(
    () => startMcpHttp(TOKEN, 'fleetls-e2e-http'),
    (h) => h.close(),
  );
  before(() => assert.equal(http().gateway.stdout(), '', 'nothing but the MCP transport writes to stdout'));

  it('answers 401 without the bearer token', async () => {
    const res = await fetch(http().url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
  });

  it('merges hosts, reports each, and sends progress (hosts done of total, at most one a second)', async () => {
    const progress: number[] = [];
    const at: number[] = [];
    const totals = new Set<number | undefined>();
    const r = (await http().client.callTool(
      {
        name: 'list_files',
        arguments: { host: 'all', path: http().fleet.data, order_by: 'name', type: 'file', limit: 4 },
      },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          progress.push(p.progress);
          at.push(performance.now());
          totals.add(p.total);
        },
      },
    )) as CallToolResult;
    const sc = r.structuredContent as {
      items: { host: string; path: string }[];
      total: number;
      next_cursor?: string;
      hosts: { host: string; status: string }[];
    };
    assert.deepEqual(
      sc.items.map((i) => `${i.host}:${i.path}`),
      ['web-1:a.log', 'web-2:a.log', 'web-1:B.txt', 'web-2:B.txt'],
    );
    // Name order pages by resuming the walks: the total comes with the page that reaches the end,
    // here the first: each host's walk listed its 3 files (a walk no longer stops at the 4 first
    // children when a type filter leaves fewer rows: issue 37).
    assert.equal(sc.total, 6);
    assert.ok(sc.next_cursor);
    assert.deepEqual(
      sc.hosts.map((h) => `${h.host}:${h.status}`),
      ['web-1:ok', 'web-2:ok', 'narrow:denied', 'dead:unreachable'],
    );
    // Hosts answer in bursts: the count rises, never past the hosts asked, a second apart at least.
    assert.ok(progress.length >= 1 && progress.every((p, i) => i === 0 || p > progress[i - 1]), `${progress}`);
    assert.ok(
      progress.every((p) => p >= 1 && p <= 4),
      `${progress}`,
    );
    assert.deepEqual([...totals], [4]);
    // (sent a second apart; measured where they arrive, so with the stream's jitter)
    for (let i = 1; i < at.length; i++) assert.ok(at[i] - at[i - 1] >= 500, `gap ${at[i] - at[i - 1]} ms`);
    const next = (await http().client.callTool({
      name: 'list_files',
      arguments: {
        host: 'all',
        path: http().fleet.data,
        order_by: 'name',
        type: 'file',
        limit: 4,
        cursor: sc.next_cursor,
      },
    })) as CallToolResult;
    assert.deepEqual(
      (next.structuredContent as { items: { host: string; path: string }[] }).items.map((i) => `${i.host}:${i.path}`),
      ['web-1:c.log', 'web-2:c.log'],
    );
  });

  it('bad arguments are tool errors', async () => {
    const r = (await http().client.callTool({
      name: 'list_directories',
      arguments: { host: 'web-1', path: http().fleet.data, top_n: 5000 },
    })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.content), /top_n must be an integer from 1 to 1000/);
  });

  it('the v1 SDK client, on 2025-11-25, drives every tool', async () => {
    const { client } = http();
    assert.equal((client.transport as StreamableHTTPClientTransport).protocolVersion, '2025-11-25');
    const driven = await driveEveryTool(http().fleet, async (name, args) =>
      client.callTool({ name, arguments: args }, CallToolResultSchema),
    );
    assert.deepEqual(driven.sort(), TOOLS.map((t) => t.name).sort());
  });

  it('the v2 SDK client, on 2026-07-28 (server/discover), drives every tool', async () => {
    const client = await httpClientV2(http().url, TOKEN, 'fleetls-e2e-http-v2');
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const driven = await driveEveryTool(http().fleet, (name, args) => client.callTool({ name, arguments: args }));
      assert.deepEqual(driven.sort(), TOOLS.map((t) => t.name).sort());
      // Progress, on this revision too: hosts done of total, rising.
      const progress: number[] = [];
      await client.callTool(
        { name: 'list_files', arguments: { host: 'all', path: http().fleet.data } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      assert.ok(progress.length >= 1 && progress.every((p, i) => i === 0 || p > progress[i - 1]), `${progress}`);
    } finally {
      await client.close();
    }
  });
});

describe('fleetls serve --http on a non-loopback address', () => {
  it('refuses to start without a token', async () => {
    const gw = startGateway(['--http', '0.0.0.0:0'], { FLEETLS_INVENTORY: '' });
    assert.notEqual(await gw.exited, 0);
    assert.doesNotMatch(gw.stderr(), /MCP over HTTP at/);
    assert.match(gw.stderr(), /without a bearer token/);
  });
});
