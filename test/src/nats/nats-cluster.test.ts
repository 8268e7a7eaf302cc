// A real 3-node nats-server cluster (JetStream, registry and page store with 3 replicas),
// agents on one node, two gateways on the two others. Nodes are killed (SIGKILL) during walks
// and fan-outs: a walk whose stream broke is a partial answer that says so (or resumes whole,
// never hangs to its deadline), agents fail over to another node and are fresh in the registry
// again, gateways reconnect, and a page cursor made by one gateway is served by the other.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWalkRequest } from '@fleetls/core';
import { createLogger } from '@fleetls/gateway';
import { waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type AgentProcess, REPO_ROOT, startAgent } from '../helpers/agent-process.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type NatsNode, registryReady, startNatsCluster } from '../helpers/nats-server.js';

const { createNatsBackend } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/backend.js'));
const { openRegistryBucket } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
const { openJetStreamPageStore } = await import(join(REPO_ROOT, 'packages/gateway/dist/fleet/jetstream-page-store.js'));
const { openRetried } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/open-retried.js'));
const HEARTBEAT_MS = 500;
const FILES = 4000;
const logger = createLogger({ name: 'nats-cluster-test', level: 'silent' });

type HostRow = { host: string; status: string; message?: string };
type Answer = Record<string, unknown> & { hosts: HostRow[]; items?: Record<string, unknown>[] };

/** Each gateway's stderr, its last 16 KiB: what a failed start-up says when a hook fails. */
const gatewayLogs: string[] = [];

async function gateway(inventory: string): Promise<Client> {
  const slot = gatewayLogs.push('') - 1;
  const stderr = (d: string) => {
    gatewayLogs[slot] = (gatewayLogs[slot] + d).slice(-16_384);
  };
  return (await stdioClient('nats-cluster', {}, { args: ['--inventory', inventory], stderr, timeout: 180_000 })).client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!r.isError, JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

let lastHosts: HostRow[] = [];
const allOk = async (client: Client) => {
  const s = await call(client, 'list_hosts', { host: 'all', check: true });
  lastHosts = s.hosts;
  return s.hosts.length === 2 && s.hosts.every((h) => h.status === 'ok');
};

describe('a 3-node NATS cluster losing nodes', () => {
  let dir: string;
  let big: string;
  let nodes: NatsNode[];
  let agents: AgentProcess[] = [];
  let g1: Client | undefined;
  let g2: Client | undefined;
  let nc: NatsConnection | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-cluster-'));
    big = join(dir, 'tree', 'big');
    mkdirSync(big, { recursive: true });
    // Long names: a name-order listing is many slices of ≤ 60 KiB.
    for (let i = 0; i < FILES; i++)
      writeFileSync(join(big, `f${String(i).padStart(5, '0')}-${'y'.repeat(120)}`), 'z'.repeat(i % 89));
    nodes = await startNatsCluster({ dir: join(dir, 'nats'), nodes: 3 });
    const [n1, n2, n3] = nodes;
    // The registry with 3 replicas before any agent writes to it: a node's loss loses no entry.
    nc = await connect({ servers: [n3.url] });
    await registryReady(nc, 3);
    // Agents seeded with n1 only, so they start there; the cluster tells them the other
    // nodes (connect_urls), which they fail over to.
    agents = await Promise.all(
      ['edge-1', 'edge-2'].map((name) =>
        startAgent({
          natsOnly: true,
          allow: [join(dir, 'tree')],
          args: ['--connect', n1.url, '--name', name, '--heartbeat-ms', String(HEARTBEAT_MS)],
        }),
      ),
    );
    const inventory = (n: NatsNode) => {
      const f = join(dir, `${n.name}.yaml`);
      writeFileSync(f, `hosts_from: nats\nnats: { servers: ["${n.url}"], replicas: 3 }\n`);
      return f;
    };
    try {
      // Each gateway kept as it starts, so after() closes whichever did when the other failed.
      const started = await Promise.allSettled([gateway(inventory(n2)), gateway(inventory(n3))]);
      [g1, g2] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      await waitFor(() => allOk(g1!), { timeoutMs: 60_000, everyMs: 500, what: 'both agents registered' });
    } catch (err) {
      // A gateway that went away says why on its stderr.
      const said = gatewayLogs.map((l, i) => `--- gateway ${i + 1} stderr ---\n${l}`).join('\n');
      throw new Error(`${(err as Error).message}\n${said}`, { cause: err });
    }
  });

  after(async () => {
    await g1?.close();
    await g2?.close();
    await nc?.close();
    await Promise.all(agents.map((a) => a.stop()));
    for (const n of nodes ?? []) await n.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gateways opening the same replicated buckets at once, from two nodes, all open them', async () => {
    // Two R3 creates at once time out one of them in about a third of the rounds (the meta
    // leader's proposal); a gateway tries again (open-retried.ts) rather than stop at start.
    const [, n2, n3] = nodes;
    const [a, b] = await Promise.all([connect({ servers: [n2.url] }), connect({ servers: [n3.url] })]);
    const quiet = createLogger({ name: 'nats-cluster-test', level: 'silent' });
    try {
      for (let round = 0; round < 6; round++) {
        const opens = [a, b].flatMap((c) => [
          openRetried(
            'page store',
            () => openJetStreamPageStore({ nc: c, logger: quiet, bucket: `race-pages-${round}`, replicas: 3 }),
            quiet,
          ),
          openRetried('registry', () => openRegistryBucket(c, `race-registry-${round}`, 3), quiet),
        ]);
        const settled = await Promise.allSettled(opens);
        const failed = settled.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
        assert.deepEqual(failed, [], `round ${round}`);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a page cursor made by the gateway on n2 is served by the gateway on n3, every row once', async () => {
    const args = { host: 'all', path: big, order_by: 'size', sort: 'descending', limit: 500, type: 'file' };
    const key = (i: Record<string, unknown>) => `${i.host}:${i.path}`;
    const a1 = await call(g1!, 'list_files', args);
    const a2 = await call(g1!, 'list_files', { ...args, cursor: a1.next_cursor });
    const b1 = await call(g1!, 'list_files', args);
    const b2 = await call(g2!, 'list_files', { ...args, cursor: b1.next_cursor });
    const want = [a1, a2].flatMap((p) => (p.items ?? []).map(key));
    const got = [b1, b2].flatMap((p) => (p.items ?? []).map(key));
    // Pages are cut at the answer's byte budget: fewer rows than the limit, each page whole.
    assert.ok(want.length > 100, `${want.length} rows in two pages`);
    assert.deepEqual(got, want);
    assert.equal(new Set(got).size, got.length);
  });

  it("the agent's node killed mid-walk: the rows so far and an unavailable error, or the walk whole; never a hang", async (t) => {
    const backend = createNatsBackend('edge-1', { nc, logger, connectTimeoutMs: 10_000, window: 1, livenessMs: 8000 });
    // A deadline far off: ending by it would mean the walk hung.
    const req = resolveWalkRequest({
      path: big,
      shape: 'tree',
      maxDepth: 1,
      maxItemsPerDir: 100_000,
      deadlineMs: 110_000,
    });
    const it = backend.walk(req, AbortSignal.timeout(150_000));
    const names: string[] = [];
    const take = (rows: { entry?: { path: Buffer } }[]) => {
      for (const r of rows) if (r.entry) names.push(r.entry.path.toString());
    };
    const first = await it.next();
    assert.ok(!first.done);
    take(first.value);
    await nodes[0].stop('SIGKILL');
    let failure: { code?: string; message?: string } | undefined;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        take(r.value);
        await new Promise((res) => setTimeout(res, 5)); // a consumer slower than the agent
      }
    } catch (e) {
      failure = e as { code?: string; message?: string };
    }
    t.diagnostic(failure ? `partial: ${names.length} rows, then ${failure.message}` : `whole: ${names.length} rows`);
    assert.deepEqual(names, [...new Set(names)].sort(), 'in order, no row twice');
    if (failure) {
      assert.equal(failure.code, 'unavailable', failure.message);
      assert.match(String(failure.message), /lost on NATS|reply stream broke|no agent answers/);
      assert.ok(names.length > 0 && names.length < FILES, `${names.length} rows before the break`);
    } else assert.equal(names.length, FILES, 'a walk that did not fail is whole');
  });

  it('the agents fail over to another node and are fresh in the registry again', async () => {
    for (const a of agents) {
      const line = await a.waitForLog((l) => l.msg === 'nats reconnect', 60_000);
      assert.notEqual(line.server, `127.0.0.1:${nodes[0].port}`);
    }
    await waitFor(() => allOk(g1!), {
      timeoutMs: 60_000,
      everyMs: 500,
      what: 'both agents fresh after failover',
    }).catch((err) => {
      const why = agents.flatMap((a) =>
        a.logs().filter((l) => l.level !== 'debug' && /nats|regist/i.test(String(l.msg))),
      );
      throw new Error(`${err.message}: ${JSON.stringify(lastHosts)} ${JSON.stringify(why)}`);
    });
    // The other gateway too (its registry may take a few seconds to hear from a new consumer).
    await waitFor(() => allOk(g2!), { timeoutMs: 60_000, everyMs: 500, what: 'the second gateway sees both' });
    const s = await call(g2!, 'list_files', {
      host: 'all',
      path: big,
      order_by: 'size',
      sort: 'descending',
      top_n: 5,
      type: 'file',
    });
    assert.deepEqual(
      s.hosts.map((h) => h.status),
      ['ok', 'ok'],
      JSON.stringify(s.hosts),
    );
  });

  it('a node killed during a fan-out: the call answers, each host ok or saying why; called again, whole', async () => {
    await nodes[0].start(); // back, empty-handed: the other two hold the replicas
    const args = { host: 'all', path: big, order_by: 'name', limit: 2000, type: 'file' };
    const during = call(g1!, 'list_files', args);
    // n3 holds the second gateway and maybe agents: it goes while the first gateway's call runs.
    await Promise.race([agents[0].waitForLog((l) => l.msg === 'walk start', 30_000), during]);
    await nodes[2].stop('SIGKILL');
    const answer = await during;
    for (const h of answer.hosts) {
      if (h.status !== 'ok') {
        assert.match(h.status, /unreachable|timeout|error/, JSON.stringify(h));
        assert.ok(h.message, `${h.host} says why: ${JSON.stringify(h)}`);
      }
    }
    await waitFor(() => allOk(g1!), { timeoutMs: 60_000, everyMs: 500, what: 'both agents fresh again' });
    const again = await call(g1!, 'list_files', args);
    assert.deepEqual(
      again.hosts.map((h) => h.status),
      ['ok', 'ok'],
    );
    assert.equal((again.items ?? []).length > 0, true);
    // The gateway whose node died reconnected to another and serves.
    let last: unknown;
    const s = await waitFor(
      async () => {
        const r = await g2!.callTool({ name: 'list_hosts', arguments: { host: 'all', check: true } });
        last = r;
        const hosts = (r.structuredContent as Answer | undefined)?.hosts ?? [];
        return !r.isError && hosts.length === 2 && hosts.every((h) => h.status === 'ok') ? hosts : undefined;
      },
      { timeoutMs: 60_000, everyMs: 500, what: 'the second gateway serving after its node died' },
    ).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(last)}`);
    });
    assert.equal(s.length, 2);
  });
});
