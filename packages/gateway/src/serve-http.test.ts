import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { startHttpServer } from './serve-http.js';
import { withContract } from './testing/contract.js';
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

    const client = withContract(new Client({ name: 'test', version: '1' }));
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
    const client = withContract(new Client({ name: 'test', version: '1' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.url)));
    const { tools } = await client.listTools();
    assert.equal(tools.length, 7);
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

/** One raw request: the headers a browser or an attacker would send, not what a client library picks. */
function raw(
  url: string,
  opts: { host?: string; origin?: string; token?: string; body?: string | Buffer; chunked?: boolean },
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  const headers: Record<string, string> = {
    host: opts.host ?? `${hostname}:${port}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (opts.origin) headers.origin = opts.origin;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const body = opts.body ?? '{}';
  if (!opts.chunked) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: '/mcp', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // The server may answer and close before the whole body is written.
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(err)));
    if (opts.chunked) {
      const b = Buffer.from(body);
      for (let i = 0; i < b.length; i += 64 * 1024) req.write(b.subarray(i, i + 64 * 1024));
    } else req.write(body);
    req.end();
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

test('HTTP with a token: DNS rebinding refused too (foreign Host, foreign Origin), loopback Origin served', async () => {
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, token: 's3cret' });
  try {
    const { port } = new URL(srv.url);
    const foreignHost = await raw(srv.url, { host: `evil.example:${port}`, token: 's3cret', body: INIT });
    assert.equal(foreignHost.status, 403);
    assert.match(foreignHost.text, /Host header must name a loopback address/);
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1.evil.example:80']) {
      const r = await raw(srv.url, { origin, token: 's3cret', body: INIT });
      assert.equal(r.status, 403, origin);
      assert.match(r.text, /Origin .* is not this server/);
    }
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, 'http://[::1]:1']) {
      assert.equal((await raw(srv.url, { origin, token: 's3cret', body: INIT })).status, 200, origin);
    }
    assert.equal((await raw(srv.url, { token: 's3cret', body: INIT })).status, 200);
  } finally {
    await srv.close();
  }
});

test('HTTP: request bodies are bounded, declared or streamed', async () => {
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, token: 's3cret' });
  try {
    const big = `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`;
    const declared = await raw(srv.url, { token: 's3cret', body: big });
    assert.equal(declared.status, 413);
    assert.match(declared.text, /over the limit of 1048576/);
    const streamed = await raw(srv.url, { token: 's3cret', body: big, chunked: true });
    assert.equal(streamed.status, 413);
    assert.match(streamed.text, /over the limit of 1048576 bytes/);
    // Refused before the body is looked at: no token, no reading.
    assert.equal((await raw(srv.url, { body: big })).status, 401);
    assert.equal((await raw(srv.url, { token: 's3cret', body: INIT })).status, 200);
  } finally {
    await srv.close();
  }
});

test('HTTP: a bearer token of any length but the right one is 401', async () => {
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, token: 's3cret' });
  try {
    for (const token of ['s', 's3cre', 's3cret!', 'S3CRET', 'x'.repeat(10_000)]) {
      assert.equal((await raw(srv.url, { token, body: INIT })).status, 401, token.slice(0, 10));
    }
  } finally {
    await srv.close();
  }
});
