// The contract check itself: it passes what the tools answer and fails what they must not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TOOLS } from '../tools/registry.js';
import { assertCliJson, assertConforms, declaredOutputSchema, withContract } from './contract.js';

test('contract: every tool declares an object outputSchema; every tool that asks hosts requires their statuses', () => {
  // scan_status asks no host: it reads the gateway's own scan record (its failed hosts are in `scan`).
  const asksNoHost = new Set(['scan_status']);
  for (const t of TOOLS) {
    const s = declaredOutputSchema(t.name) as { type: string; required?: string[] };
    assert.equal(s.type, 'object', t.name);
    if (asksNoHost.has(t.name)) assert.ok(s.required?.includes('scan'), t.name);
    else assert.ok(s.required?.includes('hosts'), t.name);
  }
});

test('contract: a nonconforming answer fails, naming the tool and the field', () => {
  const ok = { path: '/r', dirs: [], entries: [{ name: 'a', size: 1 }], truncated: false, truncations: [], hosts: [] };
  assertConforms('list_directory', ok);
  assert.throws(
    () => assertConforms('list_directory', { ...ok, entries: [{ size: 1 }] }),
    /list_directory answered structuredContent that does not match its outputSchema: \/entries\/0 must have required property 'name'/,
  );
  assert.throws(() => assertConforms('list_files', ok), /list_files .* must have required property 'kind'/);
  assert.throws(() => assertCliJson(['tree', 'localhost:/r', '--json'], '{"path":"/r"}'), /list_directory/);
  assertCliJson(['tree', 'localhost:/r'], 'not json: no --json');
});

test('contract: a checked client fails a call whose structuredContent is not what the server advertised', async () => {
  // zod lets an extra key through; the advertised JSON Schema (additionalProperties: false) does not.
  const server = new McpServer({ name: 'sloppy', version: '1' });
  server.registerTool('count', { description: 'x', outputSchema: { n: z.number() } }, async () => ({
    structuredContent: { n: 1, stray: true },
    content: [{ type: 'text', text: '1' }],
  }));
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = withContract(new Client({ name: 'test', version: '1' }));
  await client.connect(ct);
  await assert.rejects(
    client.callTool({ name: 'count', arguments: {} }),
    /contract: count answered structuredContent that does not match its outputSchema: \/ must NOT have additional properties/,
  );
  await Promise.all([client.close(), server.close()]);
});
