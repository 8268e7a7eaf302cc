// A 3-node NATS cluster's faults as users meet them (issue 38): a one-shot CLI and a gateway
// started with any one node down answer every time; a registry bucket an older agent made on
// one node is raised to the cluster's 3 replicas; a killed agent is `unreachable` in
// list_hosts on every gateway without a probe, and back when it restarts; what times out or
// fails says what it was (the connect, the registry read).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, makeTree, waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type AgentProcess, REPO_ROOT, startAgent } from '../helpers/agent-process.js';
import { fleetls } from '../helpers/cli.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type NatsNode, registryReady, startNatsCluster } from '../helpers/nats-server.js';

const { isFresh } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
const HEARTBEAT_MS = 1000;
const STREAM = 'KV_fleetls-hosts';

type HostRow = { host: string; status?: string; message?: string; address: string };

async function listHosts(client: Client, args: Record<string, unknown> = {}): Promise<HostRow[]> {
  const r = await client.callTool({ name: 'list_hosts', arguments: { host: 'all', ...args } });
  assert.ok(!r.isError, JSON.stringify(r.content));
  return (r.structuredContent as { hosts: HostRow[] }).hosts;
}

describe('a 3-node NATS cluster with faults, as users meet them', () => {
  let dir: string;
  let tree: string;
  let nodes: NatsNode[];
  let agents: AgentProcess[] = [];
  let nc: NatsConnection | undefined;
  /** An inventory naming all three nodes (so, in the tests below, always one that is down). */
  let everyNode: string;
  const gatewayLogs: string[] = [];

  const gateway = async (inventory: string): Promise<Client> => {
    const slot = gatewayLogs.push('') - 1;
    const stderr = (d: string) => {
      gatewayLogs[slot] += d;
    };
    return (await stdioClient('nats-faults', { FLEETLS_INVENTORY: inventory }, { stderr, timeout: 60_000 })).client;
  };
  const inventoryOf = (name: string, servers: NatsNode[]) => {
    const f = join(dir, `${name}.yaml`);
    writeFileSync(f, `hosts_from: nats\nnats: { servers: [${servers.map((n) => `"${n.url}"`).join(', ')}] }\n`);
    return f;
  };
  /** The registry's stream has a leader among the nodes up, and every replica of those nodes is current. */
  const settled = (up: NatsNode[]) =>
    waitFor(
      async () => {
        try {
          const c = await connect({ servers: up.map((n) => n.url), reconnect: false, timeout: 2000 });
          try {
            const info = await (await jetstreamManager(c)).streams.info(STREAM);
            const names = up.map((n) => n.name);
            const cluster = info.cluster;
            return (
              cluster?.leader !== undefined &&
              names.includes(cluster.leader) &&
              (cluster.replicas ?? []).filter((r) => names.includes(r.name)).every((r) => r.current) &&
              (cluster.replicas ?? []).filter((r) => names.includes(r.name)).length === up.length - 1
            );
          } finally {
            await c.close();
          }
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000, everyMs: 250, what: `the registry's stream led and current on ${up.map((n) => n.name)}` },
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-faults-'));
    tree = join(dir, 'tree');
    makeTree(tree, { 'a.txt': 'a' });
    nodes = await startNatsCluster({ dir: join(dir, 'nats'), nodes: 3 });
    everyNode = inventoryOf('every-node', nodes);
    // The registry as an agent of before made it: on one node only.
    nc = await connect({ servers: [nodes[0].url] });
    await registryReady(nc, 1);
    agents = await Promise.all(
      ['edge-1', 'edge-2'].map((name) =>
        startAgent({
          natsOnly: true,
          allow: [tree],
          args: [
            '--connect',
            nodes.map((n) => n.url).join(','),
            '--name',
            name,
            '--heartbeat-ms',
            String(HEARTBEAT_MS),
          ],
        }),
      ),
    );
  });

  after(async () => {
    await nc?.close();
    await Promise.all(agents.map((a) => a.stop()));
    for (const n of nodes ?? []) await n.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the first gateway raises a one-node registry to the cluster’s 3 replicas', async () => {
    const g = await gateway(everyNode);
    try {
      await waitFor(async () => (await listHosts(g)).length === 2, { timeoutMs: 30_000, what: 'both agents listed' });
      const info = await (await jetstreamManager(nc!)).streams.info(STREAM);
      assert.equal(info.config.num_replicas, 3);
      assert.match(gatewayLogs.join(''), /replicas raised from 1 to 3/);
    } finally {
      await g.close();
    }
    await settled(nodes);
  });

  it('with any one node of three down, a one-shot CLI and a gateway start answer every time (21 runs each)', async () => {
    const failures: string[] = [];
    for (const down of nodes) {
      await down.stop('SIGKILL');
      const up = nodes.filter((n) => n !== down);
      await settled(up);
      for (let i = 0; i < 7; i++) {
        const r = await fleetls(['hosts'], { env: { FLEETLS_INVENTORY: everyNode } });
        if (r.code !== 0 || !/edge-1/.test(r.stdout) || !/edge-2/.test(r.stdout))
          failures.push(`cli, ${down.name} down: exit ${r.code}: ${r.stdout}${r.stderr.slice(-2000)}`);
        try {
          const g = await gateway(everyNode);
          try {
            const names = (await listHosts(g)).map((h) => h.host).sort();
            if (names.join() !== 'edge-1,edge-2') failures.push(`gateway, ${down.name} down: listed ${names}`);
          } finally {
            await g.close();
          }
        } catch (err) {
          failures.push(`gateway, ${down.name} down: ${(err as Error).message}: ${gatewayLogs.at(-1)?.slice(-2000)}`);
        }
      }
      await down.start();
      await settled(nodes);
    }
    assert.deepEqual(failures, []);
  });

  it('a killed agent is unreachable in list_hosts on every gateway, without a probe; restarted, it is served', async () => {
    // Staleness: two heartbeats, so a killed agent is unreachable within 2.5 of them.
    assert.equal(isFresh({ seenAt: new Date(0), heartbeatMs: HEARTBEAT_MS }, 2 * HEARTBEAT_MS), true);
    assert.equal(isFresh({ seenAt: new Date(0), heartbeatMs: HEARTBEAT_MS }, 2 * HEARTBEAT_MS + 1), false);
    const g2 = await gateway(inventoryOf('n2', [nodes[1]]));
    const g3 = await gateway(inventoryOf('n3', [nodes[2]]));
    try {
      const row = async (g: Client) => (await listHosts(g, { host: 'edge-2' }))[0];
      for (const g of [g2, g3]) assert.equal((await row(g)).status, undefined);
      await agents[1].stop('SIGKILL');
      for (const g of [g2, g3]) {
        await waitFor(async () => (await row(g)).status === 'unreachable', {
          timeoutMs: 30_000,
          everyMs: 100,
          what: 'edge-2 unreachable on each gateway',
        });
        assert.match(
          String((await row(g)).message),
          /agent edge-2 stopped heartbeating on NATS: last seen .* heartbeat every 1000 ms/,
        );
      }
      agents[1] = await startAgent({
        natsOnly: true,
        allow: [tree],
        args: ['--connect', nodes[0].url, '--name', 'edge-2', '--heartbeat-ms', String(HEARTBEAT_MS)],
      });
      for (const g of [g2, g3]) {
        await waitFor(async () => (await row(g)).status === undefined, { timeoutMs: 30_000, what: 'edge-2 back' });
        const [checked] = await listHosts(g, { host: 'edge-2', check: true });
        assert.equal(checked.status, 'ok', JSON.stringify(checked));
      }
    } finally {
      await g2.close();
      await g3.close();
    }
  });

  it('what fails says what it was: the connect names its servers, the registry read its bucket', async () => {
    const nowhere = `nats://127.0.0.1:${await freePort()}`;
    const r = await fleetls(['--nats', nowhere, 'hosts']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, new RegExp(`NATS connect: no server of ${nowhere} accepted a connection`));
    // A server without JetStream: the registry cannot be read, and the CLI still answers, saying why.
    const plain = await startNatsCluster({ dir: join(dir, 'plain'), extra: 'jetstream: disabled' });
    try {
      const p = await fleetls(['--nats', plain[0].url, '--log-level', 'warn', 'hosts']);
      assert.match(p.stderr, /registry read \(bucket fleetls-hosts\): JetStream does not answer: it is not enabled/);
      assert.match(p.stderr, /'all' selects no host; known hosts: \(none\)\. No agent has registered on NATS/);
      assert.doesNotMatch(p.stderr, /fleetls: timeout\b/);
    } finally {
      await plain[0].stop();
    }
  });
});
