// The Fleet API on a real HTTP port, called by connect-es clients as a dashboard calls it:
// a refusal (no token, not ready) reaches them in their own protocol with its code and the
// server's words, and the start-up log names every URL the port answers at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { Fleet } from '@fleetls/proto/fleet_pb';
import { pino } from 'pino';
import { DEFAULT_GATEWAY_OPTIONS } from '../../fleet/options.js';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { startHttpServer } from '../mcp/http.js';
import { createFleetHttpHandler } from './connect.js';

const fleet = new FakeFleet({ a: new MemoryBackend(dir({ r: dir({ f: file(1) }) })) });

async function rejectsWith(call: Promise<unknown>, code: Code, message: string): Promise<void> {
  await assert.rejects(call, (e: unknown) => {
    assert.ok(e instanceof ConnectError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.rawMessage, message);
    return true;
  });
}

test('Fleet API over HTTP: refusals in Connect and gRPC-Web shape; the log names every URL', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
  const fleetApi = createFleetHttpHandler({ fleet, logger, options: DEFAULT_GATEWAY_OPTIONS, caller: 'http:bearer' });
  let notReady: string | undefined;
  const srv = await startHttpServer({
    fleet,
    logger,
    host: '127.0.0.1',
    port: 0,
    token: 's3cret',
    fleetApi,
    notReady: () => notReady,
    metrics: { contentType: 'text/plain', metrics: async () => '' },
  });
  try {
    const base = srv.url.replace(/\/mcp$/, '');
    const started = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'HTTP server listening');
    assert.deepEqual(started?.urls, {
      mcp: `${base}/mcp`,
      fleet_api: `${base}/fleetls.v1.Fleet/`,
      metrics: `${base}/metrics`,
      healthz: `${base}/healthz`,
      readyz: `${base}/readyz`,
    });

    // Connect's unary error body, read raw: {code, message}, the HTTP status of the code.
    const raw = await fetch(`${base}/fleetls.v1.Fleet/ListHosts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(raw.status, 401);
    assert.deepEqual(await raw.json(), { code: 'unauthenticated', message: 'missing or wrong bearer token' });

    const desc: DescService = Fleet;
    const clients = {
      connect: createClient(desc, createConnectTransport({ baseUrl: base, httpVersion: '1.1' })),
      json: createClient(desc, createConnectTransport({ baseUrl: base, httpVersion: '1.1', useBinaryFormat: false })),
      grpcWeb: createClient(desc, createGrpcWebTransport({ baseUrl: base, httpVersion: '1.1' })),
    } as Record<string, Record<string, (req: object, opts?: object) => never>>;
    for (const [name, client] of Object.entries(clients)) {
      // Unary, then a stream (Walk): both without the token.
      await rejectsWith(client.listHosts({}), Code.Unauthenticated, 'missing or wrong bearer token');
      const walk = async () => {
        for await (const _ of client.walk({ host: 'a', path: '/r' }) as AsyncIterable<unknown>);
      };
      await rejectsWith(walk(), Code.Unauthenticated, 'missing or wrong bearer token');
      const headers = { authorization: 'Bearer s3cret' };
      const hosts = (await client.listHosts({}, { headers })) as { hosts: { host: string }[] };
      assert.deepEqual(
        hosts.hosts.map((h) => h.host),
        ['a'],
        name,
      );
      notReady = 'waiting for inventory';
      await rejectsWith(client.listHosts({}, { headers }), Code.Unavailable, 'not ready: waiting for inventory');
      notReady = undefined;
    }
  } finally {
    await srv.close();
  }
});
