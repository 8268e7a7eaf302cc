// Agents that dial out to a real nats-server: Walk and Stat over NATS request/reply
// (the same messages and handlers as gRPC), the registry (presence, heartbeats, last seen),
// selectors over it, flow control, cancellation and an agent lost mid-walk.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWalkRequest } from '@fleetls/core';
import { createLogger } from '@fleetls/gateway';
import { waitFor } from '@fleetls/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type AgentProcess, REPO_ROOT, startAgent } from '../helpers/agent-process.js';
import { startHttpGateway, stdioClient } from '../helpers/gateway-process.js';
import { type NatsNode, startNatsCluster } from '../helpers/nats-server.js';

const { createNatsBackend } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/backend.js'));
const { watchRegistry } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
const HEARTBEAT_MS = 500;
const logger = createLogger({ name: 'nats-test', level: 'silent' });

type Structured = Record<string, unknown> & { hosts?: { host: string; status: string; error?: string }[] };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!r.isError, JSON.stringify(r.content));
  return r.structuredContent as Structured;
}

function natsAgent(url: string, name: string, allow: string, extra: string[] = []): Promise<AgentProcess> {
  return startAgent({
    natsOnly: true,
    allow: [allow],
    args: ['--connect', url, '--name', name, '--heartbeat-ms', String(HEARTBEAT_MS), ...extra],
  });
}

describe('agents on NATS', () => {
  let dir: string;
  let tree: string;
  let nodes: NatsNode[];
  let url: string;
  let a1: AgentProcess;
  let a2: AgentProcess;
  let client: Client;
  let nc: NatsConnection;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-'));
    tree = join(dir, 'tree');
    mkdirSync(join(tree, 'big'), { recursive: true });
    // Long names: the listing is several times CHUNK_BYTES, so it crosses many messages.
    for (let i = 0; i < 4000; i++)
      writeFileSync(join(tree, 'big', `f${String(i).padStart(5, '0')}-${'x'.repeat(120)}`), 'x'.repeat(i % 97));
    writeFileSync(join(tree, 'top.txt'), 'top');
    nodes = await startNatsCluster({ dir: join(dir, 'nats') });
    url = nodes[0].url;
    [a1, a2] = await Promise.all([
      natsAgent(url, 'web-1.example', tree, ['--label', 'role=web', '--group', 'web']),
      natsAgent(url, 'db-1', tree, ['--label', 'role=db']),
    ]);
    // Labels and groups are the operator's (the inventory), whatever an agent registers.
    const inventory = join(dir, 'fleet.yaml');
    writeFileSync(
      inventory,
      [
        'hosts_from: nats',
        `nats: { servers: ["${url}"], hosts: { web-1.example: { labels: { role: web }, groups: [web] }, db-1: { labels: { role: db } } } }`,
        '',
      ].join('\n'),
    );
    client = (await stdioClient('nats-test', { FLEETLS_INVENTORY: inventory })).client;
    nc = await connect({ servers: [url] });
  });

  after(async () => {
    await client?.close();
    await nc?.close();
    await Promise.all([a1?.stop(), a2?.stop()]);
    for (const n of nodes ?? []) await n.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('list_hosts shows the registry: each agent by name, via agent+nats, with its labels and groups', async () => {
    const s = await call(client, 'list_hosts', { host: 'all', check: true });
    const rows = s.hosts as unknown as Record<string, unknown>[];
    const web = rows.find((r) => r.host === 'web-1.example');
    assert.deepEqual(
      { transport: web?.transport, labels: web?.labels, groups: web?.groups, status: web?.status },
      { transport: 'agent+nats', labels: { role: 'web' }, groups: ['web'], status: 'ok' },
    );
    assert.ok(rows.some((r) => r.host === 'db-1' && r.status === 'ok'));
  });

  it('selectors resolve against the registry: @group and label:k=v', async () => {
    const web = await call(client, 'list_files', { host: '@web', path: tree, type: 'file' });
    assert.deepEqual([...new Set((web.hosts ?? []).map((h) => h.host))], ['web-1.example']);
    const db = await call(client, 'list_files', { host: 'label:role=db', path: tree, type: 'file' });
    assert.deepEqual([...new Set((db.hosts ?? []).map((h) => h.host))], ['db-1']);
    assert.equal((db.hosts ?? [])[0].status, 'ok');
  });

  it('a walk many messages long arrives whole and in order, through the same handlers as gRPC', async () => {
    const s = await call(client, 'list_files', {
      host: 'all',
      path: join(tree, 'big'),
      order_by: 'name',
      limit: 5000,
      type: 'file',
    });
    assert.equal(s.total ?? s.count, 8000);
    const backend = createNatsBackend('web-1.example', { nc, logger, connectTimeoutMs: 5000 });
    const req = resolveWalkRequest({ path: join(tree, 'big'), shape: 'tree', maxDepth: 1, maxItemsPerDir: 100_000 });
    const names: string[] = [];
    const it = backend.walk(req, AbortSignal.timeout(30_000));
    let r = await it.next();
    while (!r.done) {
      for (const row of r.value) if (row.entry) names.push(row.entry.path.toString());
      r = await it.next();
    }
    assert.equal(names.length, 4000);
    assert.deepEqual(names, [...names].sort());
    assert.equal(r.value.entriesSeen, 4000);
  });

  it('flow control: the agent never has more than the window of unacknowledged slices in flight', async () => {
    const spy = await connect({ servers: [url] });
    let maxAhead = 0;
    let lastData = 0;
    let lastAck = 0;
    let walkInbox: string | undefined;
    const inbox = spy.subscribe('_INBOX.>', {
      callback: (_e, m) => {
        const seq = Number(m.headers?.get('Fleetls-Seq'));
        // This walk's inbox: the one its headers (seq 0) came to; other traffic is not counted.
        if (seq === 0 && walkInbox === undefined) walkInbox = m.subject;
        if (m.subject !== walkInbox || !(seq > 0)) return;
        lastData = seq;
        maxAhead = Math.max(maxAhead, lastData - lastAck);
      },
    });
    const acks = spy.subscribe('fleetls.agent.db-1.ctl.>', {
      callback: (_e, m) => {
        lastAck = Math.max(lastAck, Number(m.headers?.get('Fleetls-Ack') ?? 0));
      },
    });
    await spy.flush();
    const backend = createNatsBackend('db-1', { nc, logger, connectTimeoutMs: 5000, window: 4 });
    const req = resolveWalkRequest({ path: join(tree, 'big'), shape: 'tree', maxDepth: 1, maxItemsPerDir: 100_000 });
    let rows = 0;
    for await (const batch of backend.walk(req, AbortSignal.timeout(60_000))) {
      rows += batch.length;
      await new Promise((r) => setTimeout(r, 30)); // a slow consumer
    }
    inbox.unsubscribe();
    acks.unsubscribe();
    await spy.close();
    assert.equal(rows, 4000);
    assert.ok(lastData > 8, `the listing took ${lastData} slices`);
    assert.ok(maxAhead <= 4, `${maxAhead} slices unacknowledged (window 4)`);
  });

  it('cancelling a walk stops it on the agent', async () => {
    const backend = createNatsBackend('web-1.example', { nc, logger, connectTimeoutMs: 5000, window: 1 });
    const req = resolveWalkRequest({ path: join(tree, 'big'), shape: 'tree', maxDepth: 1, maxItemsPerDir: 100_000 });
    const ac = new AbortController();
    const it = backend.walk(req, ac.signal);
    await it.next();
    ac.abort();
    await assert.rejects(it.next(), (e: { code?: string }) => e.code === 'cancelled');
    await a1.waitForLog((l) => l.msg === 'walk end' && l.outcome === 'cancelled', 10_000);
  });

  it('stateless gateways: page 1 from one gateway, that gateway killed, page 2 from another, every row exactly once', async () => {
    const args = {
      host: 'all',
      path: join(tree, 'big'),
      order_by: 'size',
      sort: 'descending',
      limit: 300,
      type: 'file',
    };
    const key = (i: Record<string, unknown>) => `${i.host}:${i.path}`;
    // The same three pages from one gateway that lives: what the pages must be.
    const c1 = await call(client, 'list_files', args);
    const c2 = await call(client, 'list_files', { ...args, cursor: c1.next_cursor as string });
    const c3 = await call(client, 'list_files', { ...args, cursor: c2.next_cursor as string });
    const all = [c1, c2, c3].flatMap((p) => (p.items as Record<string, unknown>[]).map(key));
    // Over HTTP with one token: one caller to both gateways (a cursor is its caller's; a stdio
    // gateway's caller is its own process).
    const httpGateway = async () => {
      const { gateway: process, base } = await startHttpGateway(['--nats', url], {
        FLEETLS_INVENTORY: '',
        FLEETLS_TOKEN: 'nats-stateless-token',
      });
      const c = new Client({ name: 'nats-test', version: '1.0.0' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { Authorization: 'Bearer nats-stateless-token' } },
        }),
      );
      const stop = async () => {
        await c.close();
        await process.stop();
      };
      return { c, stop };
    };
    const g1 = await httpGateway();
    const first = await call(g1.c, 'list_files', args);
    const page1 = await call(g1.c, 'list_files', { ...args, cursor: first.next_cursor as string });
    await g1.stop(); // the gateway that kept the ranking is gone
    const g2 = await httpGateway();
    const page2 = await call(g2.c, 'list_files', { ...args, cursor: page1.next_cursor as string });
    await g2.stop();
    const seen = [first, page1, page2].flatMap((p) => (p.items as Record<string, unknown>[]).map(key));
    assert.deepEqual(seen, all);
    assert.equal(new Set(seen).size, seen.length, 'no row twice');
    assert.ok(seen.length > 100, `${seen.length} rows`);
  });

  it('an unknown host is unavailable at once (no responders), not a timeout', async () => {
    const backend = createNatsBackend('ghost', { nc, logger, connectTimeoutMs: 5000 });
    const t0 = Date.now();
    await assert.rejects(backend.probe(AbortSignal.timeout(5000)), (e: { code?: string }) => e.code === 'unavailable');
    assert.ok(Date.now() - t0 < 4000);
  });

  it('an agent lost mid-walk: the rows sent so far, then the error (a partial answer)', async () => {
    const lost = await natsAgent(url, 'lost-1', tree);
    const backend = createNatsBackend('lost-1', { nc, logger, connectTimeoutMs: 5000, window: 1, livenessMs: 5000 });
    const req = resolveWalkRequest({ path: join(tree, 'big'), shape: 'tree', maxDepth: 1, maxItemsPerDir: 100_000 });
    const it = backend.walk(req, AbortSignal.timeout(30_000));
    let rows = (await it.next()).value?.length ?? 0;
    await lost.stop('SIGKILL');
    const err = await (async () => {
      try {
        for (;;) {
          const r = await it.next();
          if (r.done) return undefined;
          rows += r.value.length;
        }
      } catch (e) {
        return e as { code?: string; message?: string };
      }
    })();
    assert.ok(err, 'the walk must fail, not end as if whole');
    assert.equal(err.code, 'unavailable', err.message);
    assert.ok(rows > 0 && rows < 4000, `${rows} rows before the loss`);
  });

  it('a host that stops heartbeating is unreachable with its last-seen time; restarted, it is back within one heartbeat', async () => {
    const gone = await natsAgent(url, 'flaky-1', tree);
    const registry = await watchRegistry({ nc, logger });
    await a1.waitForLog(() => true);
    await gone.stop('SIGKILL');
    // The time that must pass for its registration to go stale: what the test is about.
    await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 4));
    const s = await call(client, 'list_hosts', { host: 'flaky-1', check: true });
    const row = (s.hosts ?? []).find((h) => h.host === 'flaky-1') as Record<string, unknown> | undefined;
    assert.ok(row, JSON.stringify(s));
    assert.equal(row.status, 'unreachable');
    assert.match(String(row.message), /last seen \d{4}-\d\d-\d\dT/);
    assert.match(String(row.address), /last seen/);
    const seenBefore = registry.get('flaky-1')?.seenAt.getTime() ?? 0;
    const t0 = Date.now();
    const back = await natsAgent(url, 'flaky-1', tree);
    await waitFor(() => (registry.get('flaky-1')?.seenAt.getTime() ?? 0) > seenBefore, {
      everyMs: 20,
      timeoutMs: 60_000,
      what: 'flaky-1 registered again',
    });
    const took = Date.now() - t0;
    const again = await call(client, 'list_hosts', { host: 'flaky-1', check: true });
    assert.equal((again.hosts ?? [])[0]?.status, 'ok', JSON.stringify(again));
    registry.close();
    await back.stop();
    // Registered at start, before the first heartbeat interval passes (process start included).
    assert.ok(took < 15_000, `back in the registry after ${took} ms`);
  });
});
