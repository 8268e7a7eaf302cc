// One call split between gateways (issue 38 ask 3): on a real 3-node nats-server cluster, real
// gateways (MCP over stdio) serve the same fleet of simulated hosts on NATS. A ranked
// list_files over every host on one gateway is cut into shards, one per peer: the answer is
// the same top 10 as the hosts' files ranked by hand, every host asked exactly once, each
// gateway's connection asking part of them; a peer whose grants do not give the caller's
// principal those hosts refuses its shard, and the caller asks them itself. With the peer killed mid-call (its hosts held
// unanswered by the simulator, so the kill comes while it walks), the call still answers
// whole: the caller asks the peer's hosts itself once the peer has gone silent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { fleetls } from '../helpers/cli.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type NatsNode, registryReady, startNatsCluster } from '../helpers/nats-server.js';
import { expectedTop, SIM_FILES, type SimHosts, simName, startSimHosts } from '../helpers/nats-sim-hosts.js';

/** Hosts of the simulated fleet; the gateways split a call from SPLIT_MIN_HOSTS on. */
const HOSTS = 600;
const SPLIT_MIN_HOSTS = 200;

interface Gateway {
  client: Client;
  transport: StdioClientTransport;
  log: () => string;
}

type Answer = Record<string, unknown> & {
  items?: { host: string; path: string; size: number }[];
  hosts: { host: string; status: string; message?: string }[];
  found?: number;
};

async function gateway(inventory: string, more: string[] = []): Promise<Gateway> {
  let log = '';
  const { client, transport } = await stdioClient(
    'nats-split',
    {},
    { args: ['--inventory', inventory, ...more], stderr: (d) => (log = (log + d).slice(-65_536)), timeout: 180_000 },
  );
  return { client, transport, log: () => log };
}

async function call(g: Gateway, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await g.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  assert.ok(!r.isError, JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

const TOP10 = { host: 'sim-*', path: '/sim', order_by: 'size', sort: 'descending', top_n: 10 };
const rowsOf = (a: Answer) => (a.items ?? []).map((i) => `${i.host}:${i.path} ${i.size}`);

describe('one call split between two gateways on a 3-node NATS cluster', () => {
  let dir: string;
  let nodes: NatsNode[];
  let nc: NatsConnection | undefined;
  let sim: SimHosts;
  let g1: Gateway | undefined;
  let g2: Gateway | undefined;
  /** A third gateway with grants (`local`: sim-000* only): it refuses shards its grants do not give. */
  let g3: Gateway | undefined;
  /** g1's inbox prefix: the walks it asks itself. */
  let own: string;
  let lastSeen = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-split-'));
    nodes = await startNatsCluster({ dir: join(dir, 'nats'), nodes: 3 });
    const [n1, n2, n3] = nodes;
    nc = await connect({ servers: [n1.url] });
    await registryReady(nc, 3);
    sim = startSimHosts(nc, HOSTS);
    const inventory = (n: NatsNode) => {
      const f = join(dir, `${n.name}.yaml`);
      writeFileSync(
        f,
        `hosts_from: nats\nnats: { servers: ["${n.url}"], replicas: 3, split_min_hosts: ${SPLIT_MIN_HOSTS} }\n`,
      );
      return f;
    };
    const grants = join(dir, 'grants.yaml');
    writeFileSync(grants, 'principals:\n  local:\n    tools: [list_files]\n    hosts: ["sim-000*"]\n    paths: [/]\n');
    [g1, g2, g3] = await Promise.all([
      gateway(inventory(n2)),
      gateway(inventory(n3)),
      gateway(inventory(n1), ['--grants', grants]),
    ]);
    // Each hears the others say hello (a serving gateway announces itself at start).
    await waitFor(() => (g1!.log().match(/peer gateway joined/g)?.length ?? 0) >= 2, {
      timeoutMs: 30_000,
      what: 'g1 hears g2 and g3',
    });
    await waitFor(
      async () => {
        const r = await g1!.client.callTool({ name: 'list_hosts', arguments: { host: 'sim-*' } });
        const text = (r.content as { text?: string }[])[0]?.text ?? '';
        const shown = /of (\d+) hosts shown/.exec(text)?.[1];
        lastSeen = shown ?? String((r.structuredContent as Answer | undefined)?.count ?? text.slice(0, 200));
        return Number(lastSeen) === HOSTS;
      },
      { timeoutMs: 60_000, everyMs: 500, what: `g1 sees the ${HOSTS} simulated hosts` },
    ).catch((err) => {
      throw new Error(`${err.message}: it sees ${lastSeen}`);
    });
    // g1's own inbox: the walks of a call it does not split.
    sim.reset();
    await call(g1, 'list_files', { ...TOP10, host: simName(0) });
    own = sim.lastAsker[0] as string;
    assert.ok(own, 'the one host was asked');
  });

  after(async () => {
    sim?.stop();
    await g1?.client.close().catch(() => undefined);
    await g2?.client.close().catch(() => undefined);
    await g3?.client.close().catch(() => undefined);
    await nc?.close();
    for (const n of nodes ?? []) await n.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`a call over fewer than split_min_hosts (${SPLIT_MIN_HOSTS}) hosts is not split`, async () => {
    sim.reset();
    // sim-000* is sim-00000 … sim-00099: 100 hosts.
    const answer = await call(g1!, 'list_files', { ...TOP10, host: 'sim-000*' });
    assert.equal(answer.found, 100 * SIM_FILES);
    assert.deepEqual([...sim.byAsker.entries()], [[own, 100]]);
  });

  it('a top 10 over every host: the same rows as ranked by hand, each host asked once, the peer asking part', async () => {
    sim.reset();
    const answer = await call(g1!, 'list_files', TOP10);
    assert.deepEqual(rowsOf(answer), expectedTop(HOSTS, 10));
    // Every host's count merged (each matched all its files), none failed.
    assert.equal(answer.found, HOSTS * SIM_FILES);
    assert.deepEqual(
      answer.hosts.filter((h) => h.status !== 'ok'),
      [],
    );
    assert.deepEqual([...new Set(sim.asked)], [1], 'every host asked exactly once');
    // g2 asked its third; g3 refused its own, which g1 asked itself: g3's grants do not know g1's
    // caller (a stdio session of a gateway without grants), and give `local` sim-000* only.
    const askers = [...sim.byAsker.entries()];
    assert.equal(askers.length, 2, `two gateways asked: ${JSON.stringify(askers)}`);
    const peer = askers.find(([asker]) => asker !== own);
    assert.ok(peer && peer[1] >= HOSTS / 4, `the peer asked part of the hosts: ${JSON.stringify(askers)}`);
    assert.match(g1!.log(), /it refused the shard: principal 'stdio' is not in this gateway's grants/);
  });

  it('a one-shot CLI splits its call with the serving gateways (it serves none)', async (t) => {
    sim.reset();
    const r = await fleetls([
      '--inventory',
      join(dir, `${nodes[0].name}.yaml`),
      'ls',
      'sim-*:/sim',
      '--order-by',
      'size',
      '--desc',
      '--top-n',
      '10',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as Answer;
    assert.deepEqual(rowsOf(answer), expectedTop(HOSTS, 10));
    assert.equal(answer.found, HOSTS * SIM_FILES);
    assert.deepEqual([...new Set(sim.asked)], [1], 'every host asked exactly once');
    // The CLI's own connection, and at least one serving gateway's (the ones that answered its hello in time).
    const askers = [...sim.byAsker.keys()];
    t.diagnostic(`walks by ${JSON.stringify([...sim.byAsker.entries()])}`);
    assert.ok(askers.length >= 2, `walks by ${JSON.stringify([...sim.byAsker.entries()])}`);
  });

  it('the peer killed mid-call: the caller asks its hosts itself, and the answer is whole', async () => {
    sim.reset();
    // The peer's walks are held: it is mid-shard when it dies.
    sim.hold = (asker) => asker !== own;
    try {
      const answering = call(g1!, 'list_files', TOP10);
      await waitFor(() => [...sim.byAsker.keys()].some((a) => a !== own), {
        timeoutMs: 30_000,
        what: 'the peer asking its shard',
      });
      const pid = g2!.transport.pid;
      assert.ok(pid, 'the peer gateway runs');
      process.kill(pid, 'SIGKILL');
      const answer = await answering;
      assert.deepEqual(rowsOf(answer), expectedTop(HOSTS, 10));
      assert.equal(answer.found, HOSTS * SIM_FILES);
      assert.deepEqual(
        answer.hosts.filter((h) => h.status !== 'ok'),
        [],
      );
      // Every host answered by g1 in the end: the peer's were asked again, by g1.
      assert.ok(
        sim.lastAsker.every((a) => a === own),
        'each host last asked by the caller',
      );
      assert.ok(
        sim.asked.every((n) => n >= 1),
        'every host asked',
      );
      assert.match(g1!.log(), /its hosts left are asked here/);
    } finally {
      sim.hold = undefined;
    }
  });
});
