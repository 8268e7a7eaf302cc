import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { REGISTRY_BUCKET } from '@fleetls/runtime/nats';
import type { NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { type NatsRegistry, watchRegistry } from './registry.js';

type Heard = (err: Error | null, m: { subject: string; headers?: unknown; data: Uint8Array }) => void;

/**
 * A connection that delivers what the test publishes to the registry's subscription and
 * refuses everything else (the bucket's read then fails at once, as with denied JetStream,
 * and hosts come from their heartbeats alone).
 */
function fakeConnection(): { nc: NatsConnection; heard: () => Heard } {
  let callback: Heard | undefined;
  const own = {
    subscribe(_subject: string, opts: { callback: Heard }) {
      callback = opts.callback;
      return { unsubscribe() {} };
    },
    flush: () => Promise.resolve(),
  };
  const nc = new Proxy(own, {
    get: (target, p) =>
      p in target
        ? target[p as keyof typeof own]
        : p === 'then'
          ? undefined
          : () => Promise.reject(new Error('permissions violation (a fake connection)')),
  }) as unknown as NatsConnection;
  return { nc, heard: () => callback! };
}

describe('watchRegistry', async () => {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
  let clock = 1_000_000;
  const { nc, heard } = fakeConnection();
  const registry: NatsRegistry = await watchRegistry({
    nc,
    logger,
    now: () => clock,
    identity: (name) => (name === 'web-1' ? { labels: { role: 'web' }, groups: ['web'] } : undefined),
  });
  after(() => registry.close());
  const beat = (name: string, body: Record<string, unknown>) =>
    heard()(null, {
      subject: `$KV.${REGISTRY_BUCKET}.${name}`,
      data: Buffer.from(JSON.stringify({ name, labels: {}, groups: [], version: '1', capabilities: [], ...body })),
    });

  it('a repeated heartbeat refreshes when the host was seen; a changed registration is read again', () => {
    beat('web-1', { heartbeatMs: 60000, startedAt: 'a' });
    assert.equal(registry.get('web-1')?.heartbeatMs, 60000);
    assert.equal(registry.get('web-1')?.seenAt.getTime(), clock);
    clock += 5000;
    beat('web-1', { heartbeatMs: 60000, startedAt: 'a' });
    assert.equal(registry.get('web-1')?.seenAtMs, clock);
    // The same length, other bytes: told apart by the hashes, not by the length.
    beat('web-1', { heartbeatMs: 30000, startedAt: 'a' });
    assert.equal(registry.get('web-1')?.heartbeatMs, 30000);
    beat('web-1', { heartbeatMs: 30000, startedAt: 'b' });
    assert.equal(registry.get('web-1')?.heartbeatMs, 30000);
    assert.equal(registry.stale('web-1'), undefined);
    clock += 2 * 30000 + 1;
    assert.match(registry.stale('web-1')?.message ?? '', /agent web-1 stopped heartbeating on NATS: .*every 30000 ms/);
  });

  it("labels and groups are the operator's; a claim beyond them is warned once, not every heartbeat", () => {
    warnings.length = 0;
    for (let i = 0; i < 3; i++) beat('db-1', { heartbeatMs: 60000, startedAt: 'a', groups: ['web'] });
    assert.deepEqual(registry.get('db-1')?.identity, { labels: {}, groups: [] });
    assert.equal(warnings.filter((w) => /host db-1 registers claiming groups web/.test(w)).length, 1);
    assert.deepEqual(registry.get('web-1')?.identity, { labels: { role: 'web' }, groups: ['web'] });
  });

  it('a deleted key forgets the host', () => {
    heard()(null, {
      subject: `$KV.${REGISTRY_BUCKET}.db-1`,
      headers: { get: (k: string) => (k === 'KV-Operation' ? 'DEL' : '') },
      data: new Uint8Array(),
    });
    assert.equal(registry.get('db-1'), undefined);
    assert.deepEqual(
      registry.hosts().map((h) => h.name),
      ['web-1'],
    );
  });

  it('hosts() lists them in name order, a host that comes or goes included at once', () => {
    beat('zz-9', { heartbeatMs: 60000, startedAt: 'a' });
    beat('aa-1', { heartbeatMs: 60000, startedAt: 'a' });
    assert.deepEqual(
      registry.hosts().map((h) => h.name),
      ['aa-1', 'web-1', 'zz-9'],
    );
    beat('mm-5', { heartbeatMs: 60000, startedAt: 'a' });
    beat('aa-1', { heartbeatMs: 60000, startedAt: 'a' });
    assert.deepEqual(
      registry.hosts().map((h) => h.name),
      ['aa-1', 'mm-5', 'web-1', 'zz-9'],
    );
  });
});
