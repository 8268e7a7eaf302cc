import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { startHttpServer } from './serve-http.js';
import { dir, FakeFleet, file, MemoryBackend } from './testing/fake-fleet.js';

const logger = pino({ level: 'silent' });
const fleet = new FakeFleet({ a: new MemoryBackend(dir({ r: dir({ f: file(1) }) })) });

test('HTTP: 401 without the bearer token; tools answer with it', async () => {
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, token: 's3cret' });
  try {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(srv.url, { method: 'POST', headers, body: JSON.stringify(init) });
    assert.equal(none.status, 401);
    const wrong = await fetch(srv.url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer nope' },
      body: JSON.stringify(init),
    });
    assert.equal(wrong.status, 401);

    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { authorization: 'Bearer s3cret' } },
      }),
    );
    const r = (await client.callTool({
      name: 'list_directory',
      arguments: { host: 'a', path: '/r' },
    })) as CallToolResult;
    assert.deepEqual(r.content, [{ type: 'text', text: '[FILE] f' }]);
    await client.close();
  } finally {
    await srv.close();
  }
});

test('HTTP: refuses a non-loopback address without a token', async () => {
  await assert.rejects(startHttpServer({ fleet, logger, host: '0.0.0.0', port: 0 }), /without a bearer token/);
});

test('HTTP without a token: loopback only, and Host must name loopback', async () => {
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0 });
  try {
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.url)));
    const { tools } = await client.listTools();
    assert.equal(tools.length, 5);
    await client.close();
    const { port } = new URL(srv.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 403);
  } finally {
    await srv.close();
  }
});
