import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { withContract } from '../../testing/contract.js';
import { dir, FakeFleet, file, HangingBackend, MemoryBackend } from '../../testing/fake-fleet.js';
import { type HttpServerDeps, startHttpServer } from './http.js';

const logger = pino({ level: 'silent' });
const fleet = new FakeFleet({ a: new MemoryBackend(dir({ r: dir({ f: file(1) }) })) });
/** An MCP initialize request: what a client sends first. */
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

/** A server on a free loopback port that wants the bearer token `s3cret`, for `use`; closed after, pass or fail. */
async function withServer(
  use: (srv: { url: string }) => Promise<void>,
  extra: Partial<HttpServerDeps> = {},
): Promise<void> {
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, token: 's3cret', ...extra });
  try {
    await use(srv);
  } finally {
    await srv.close();
  }
}

test('HTTP: 401 without the bearer token; tools answer with it', async () => {
  await withServer(async (srv) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(srv.url, { method: 'POST', headers, body: INIT });
    assert.equal(none.status, 401);
    const wrong = await fetch(srv.url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer nope' },
      body: INIT,
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
  });
});

/** The server must refuse to start; one that starts anyway is closed, so the test fails rather than hangs. */
async function refusesToStart(deps: Partial<Parameters<typeof startHttpServer>[0]>, why: RegExp): Promise<void> {
  const started = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, ...deps }).then(
    (srv) => srv,
    (err: Error) => err,
  );
  if (!(started instanceof Error)) await started.close();
  assert.ok(started instanceof Error, `started on ${deps.host ?? '127.0.0.1'} (${JSON.stringify(deps)})`);
  assert.match(started.message, why);
}

test('HTTP: a token always, loopback too; --no-auth only on loopback, and not beside a token', async () => {
  for (const host of ['0.0.0.0', '127.0.0.1', '::1'])
    await refusesToStart({ host }, /without a bearer token: give one/);
  await refusesToStart(
    { host: '0.0.0.0', noAuth: true },
    /--no-auth .* is refused on 0\.0\.0\.0, which is not a loopback address/,
  );
  await refusesToStart({ noAuth: true, token: 's3cret' }, /exclude each other/);
});

test('HTTP --no-auth: loopback only, logged at start, and Host must name loopback', async () => {
  const lines: string[] = [];
  const logged = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
  const srv = await startHttpServer({ fleet, logger: logged, host: '127.0.0.1', port: 0, noAuth: true });
  assert.ok(
    lines.some((l) => JSON.parse(l).level === 40 && /--no-auth/.test(JSON.parse(l).msg)),
    'a warning at start',
  );
  try {
    const client = withContract(new Client({ name: 'test', version: '1' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.url)));
    const { tools } = await client.listTools();
    assert.equal(tools.length, 8);
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

test('HTTP with a token: DNS rebinding refused too (foreign Host, foreign Origin), loopback Origin served', async () => {
  await withServer(async (srv) => {
    const { port } = new URL(srv.url);
    const foreignHost = await raw(srv.url, { host: `evil.example:${port}`, token: 's3cret', body: INIT });
    assert.equal(foreignHost.status, 403);
    assert.match(foreignHost.text, /Host header must name a loopback address/);
    // Exactly this server's origin: another port, scheme or loopback name is another origin
    // (another local web service, a page of localhost calling 127.0.0.1).
    const foreign = [
      'http://evil.example',
      'null',
      'http://127.0.0.1.evil.example:80',
      'http://127.0.0.1:9999',
      'http://127.0.0.1',
      `https://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
      'http://[::1]:1',
      `http://127.0.0.1:${port}/`,
      `http://user@127.0.0.1:${port}`,
    ];
    for (const origin of foreign) {
      const r = await raw(srv.url, { origin, token: 's3cret', body: INIT });
      assert.equal(r.status, 403, origin);
      assert.match(r.text, /Origin .* is not this server/);
    }
    assert.equal((await raw(srv.url, { origin: `http://127.0.0.1:${port}`, token: 's3cret', body: INIT })).status, 200);
    // The origin the Host header names (a page of http://localhost:PORT, or an `ssh -L` forward's port).
    for (const authority of [`localhost:${port}`, 'localhost:9000']) {
      const r = await raw(srv.url, { host: authority, origin: `http://${authority}`, token: 's3cret', body: INIT });
      assert.equal(r.status, 200, authority);
    }
    assert.equal((await raw(srv.url, { token: 's3cret', body: INIT })).status, 200);
  });
});

test('HTTP: request bodies are bounded, declared or streamed', async () => {
  await withServer(async (srv) => {
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
  });
});

test('HTTP: a bearer token of any length but the right one is 401', async () => {
  await withServer(async (srv) => {
    for (const token of ['s', 's3cre', 's3cret!', 'S3CRET', 'x'.repeat(10_000)]) {
      assert.equal((await raw(srv.url, { token, body: INIT })).status, 401, token.slice(0, 10));
    }
  });
});

test('HTTP: an allow-listed origin may call /mcp, with CORS headers; its neighbours may not', async () => {
  await withServer(
    async (srv) => {
      const ok = await raw(srv.url, { origin: 'https://dash.example', token: 's3cret', body: INIT });
      assert.equal(ok.status, 200);
      for (const origin of ['http://dash.example', 'https://dash.example:8443', 'https://evil.dash.example']) {
        assert.equal((await raw(srv.url, { origin, token: 's3cret', body: INIT })).status, 403, origin);
      }
      const { hostname, port } = new URL(srv.url);
      const preflight = await fetch(`http://${hostname}:${port}/mcp`, {
        method: 'OPTIONS',
        headers: { origin: 'https://dash.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://dash.example');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
    },
    { corsOrigins: ['https://dash.example'] },
  );
});

test("HTTP, 2026-07-28: the client's cancellation (closing the call's stream) reaches every in-flight host", async () => {
  const h1 = new HangingBackend();
  const h2 = new HangingBackend();
  const hanging = new FakeFleet({ h1, h2 });
  await withServer(
    async (srv) => {
      const client = new ClientV2({ name: 'test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new HttpTransportV2(new URL(srv.url), { requestInit: { headers: { authorization: 'Bearer s3cret' } } }),
      );
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const ctrl = new AbortController();
      const call = client.callTool(
        { name: 'list_files', arguments: { host: 'all', path: '/r' } },
        { signal: ctrl.signal },
      );
      await Promise.all([h1.whenCalled(), h2.whenCalled()]);
      ctrl.abort('user pressed stop');
      await assert.rejects(call);
      for (let i = 0; i < 200 && h1.aborts + h2.aborts < 2; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(h1.aborts, 1);
      assert.equal(h2.aborts, 1);
      await client.close();
    },
    { fleet: hanging },
  );
});
