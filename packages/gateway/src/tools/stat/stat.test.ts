// stat over MCP (issue 37): no cursor, and an answer bounded by the budget with its cut said.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { connectMcp } from '../../testing/mcp-client.js';

const logger = pino({ level: 'silent' });
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** `n` hosts, each with /etc/passwd. */
function hosts(n: number): FakeFleet {
  const backends: Record<string, MemoryBackend> = {};
  for (let i = 0; i < n; i++)
    backends[`web-${String(i).padStart(3, '0')}`] = new MemoryBackend(dir({ etc: dir({ passwd: file(1800 + i) }) }));
  return new FakeFleet(backends);
}

test('stat takes no cursor: a call with one is refused as an unknown argument', async () => {
  const { client, close } = await connectMcp({ fleet: hosts(2), logger });
  try {
    const r = (await client.callTool({
      name: 'stat',
      arguments: { host: 'all', path: '/etc/passwd', cursor: 'AAAA' },
    })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(text(r), /\bcursor: unknown argument; known: host, path$/);
    const tools = await client.listTools();
    const stat = tools.tools.find((t) => t.name === 'stat');
    assert.deepEqual(Object.keys(stat?.inputSchema.properties ?? {}), ['host', 'path']);
    assert.equal(Object.hasOwn(stat?.outputSchema?.properties ?? {}, 'next_cursor'), false);
  } finally {
    await close();
  }
});

test('stat of one path on 300 hosts is one bounded answer: the hosts past the budget are cut, and the cut is said', async () => {
  const { client, close } = await connectMcp({ fleet: hosts(300), logger });
  try {
    const r = (await client.callTool({
      name: 'stat',
      arguments: { host: 'all', path: '/etc/passwd' },
    })) as CallToolResult;
    assert.equal(r.isError, undefined, text(r));
    const whole = JSON.stringify({ content: r.content, structuredContent: r.structuredContent });
    assert.ok(whole.length <= 48_000, `${whole.length} characters`);
    const s = r.structuredContent as {
      results: { host: string }[];
      hosts: unknown[];
      next_cursor?: string;
      truncations?: { reason: string; shown: number; total: number }[];
    };
    const shown = s.results.length;
    assert.ok(shown > 10 && shown < 300, `${shown} results`);
    assert.equal(s.results[shown - 1].host, `web-${String(shown - 1).padStart(3, '0')}`, 'the first hosts, in order');
    assert.deepEqual(
      s.truncations?.find((t) => t.reason === 'bytes'),
      { reason: 'bytes', limit: 48_000, shown, total: 300 },
    );
    assert.equal(s.next_cursor, undefined);
    assert.match(text(r), new RegExp(`\\[WARNING\\] answer cut at 48000 bytes: ${300 - shown} of 300 hosts not shown`));
  } finally {
    await close();
  }
});
