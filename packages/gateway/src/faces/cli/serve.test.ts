// `fleetls serve --http --grpc`: /readyz is not ready until the inventory is loaded and every
// transport listens (the probes answer meanwhile), ready then, and not ready once shutting down.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { DEFAULT_GATEWAY_OPTIONS } from '../../fleet/options.js';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import type { CliIo } from './run.js';
import { runServe } from './serve.js';

/** A port free a moment ago: the URL is printed only once ready, and the test must probe before. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const addr = s.address();
  await new Promise((resolve) => s.close(resolve));
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/** The HTTP server listens before the inventory loads; wait for it to take connections. */
async function get(url: string): Promise<Response> {
  for (;;) {
    try {
      return await fetch(url);
    } catch {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

describe('fleetls serve readiness', () => {
  it('/readyz waits for the inventory and the gRPC listener, and says which', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let loadInventory!: () => void;
    const inventoryLoaded = new Promise<void>((resolve) => {
      loadInventory = resolve;
    });
    let stop!: () => void;
    const shutdown = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let said = '';
    let onLine: () => void = () => {};
    const io = {
      argv: [],
      env: {},
      cwd: '/',
      stdout: { write: () => true },
      stderr: {
        write: (s: string) => {
          said += s;
          onLine();
          return true;
        },
      },
      untilShutdown: () => shutdown,
    } as unknown as CliIo;
    const fleet = new FakeFleet({ alpha: new MemoryBackend(dir({ srv: dir({ 'a.log': file(1) }) })) });
    const serving = runServe({
      flags: { http: `127.0.0.1:${port}`, grpc: '127.0.0.1:0', noAuth: true, allow: ['/srv'] },
      open: async () => {
        await inventoryLoaded;
        return { fleet, options: DEFAULT_GATEWAY_OPTIONS };
      },
      logger: pino({ level: 'silent' }),
      io,
    });

    const notYet = await get(`${base}/readyz`);
    assert.equal(notYet.status, 503);
    assert.equal(await notYet.text(), 'not ready: waiting for inventory, Fleet gRPC API\n');
    assert.equal((await get(`${base}/healthz`)).status, 200);
    const mcp = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    assert.equal(mcp.status, 503, 'no tool runs before the inventory is loaded');
    assert.doesNotMatch(said, /MCP over HTTP at/, 'the URL is printed once it answers');

    const printed = new Promise<void>((resolve) => {
      onLine = () => {
        if (said.includes('dashboard at')) resolve();
      };
    });
    loadInventory();
    await printed;
    assert.match(said, /Fleet API \(gRPC\) at 127\.0\.0\.1:\d+/);
    // Every URL the server answers at, as an operator pastes it (issue 22: not /mcp alone).
    assert.match(said, new RegExp(`MCP over HTTP at ${base}/mcp`));
    assert.match(said, new RegExp(`Fleet API \\(Connect, gRPC-Web\\) at ${base}/fleetls\\.v1\\.Fleet/`));
    assert.match(said, new RegExp(`health at ${base}/healthz and ${base}/readyz`));
    assert.match(said, new RegExp(`dashboard at ${base}/\n`));
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(await ready.text(), 'ready\n');

    stop();
    await serving;
    await assert.rejects(fetch(`${base}/readyz`), 'closed once shut down');
  });
});
