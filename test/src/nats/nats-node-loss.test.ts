// A cluster node lost during a call (issue 38 ask 1): on a real 3-node nats-server cluster,
// the node a host's agent is connected to is killed while its walk is open. The agent here is
// a stand-in on the test's own connection (it answers the Agent contract's Walk over NATS as
// the agent does), so the kill comes at a point it chooses: after the walk's first message,
// before any row. Its connection moves to another node, as an agent's does; the gateway's
// walk, whose reply stream broke before it handed a row on, is asked again and answers whole.
// A host that cannot answer the second time either says both failures.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWalkRequest } from '@fleetls/core';
import { createLogger } from '@fleetls/gateway';
import { loadContract } from '@fleetls/proto';
import { agentSubjects, frame, HDR } from '@fleetls/runtime/nats';
import { waitFor } from '@fleetls/testkit';
import { connect, type Msg, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { REPO_ROOT } from '../helpers/agent-process.js';
import { type NatsNode, startNatsCluster } from '../helpers/nats-server.js';

const { createNatsBackend } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/backend.js'));
const logger = createLogger({ name: 'nats-node-loss-test', level: 'silent' });
const walkCodec = loadContract().proto.fleetls.v1.Agent.service.Walk;

/** The two messages of a whole walk's reply: the agent's headers, then its rows and summary, last. */
function answerWhole(nc: NatsConnection, msg: Msg, names: string[]): void {
  const h0 = natsHeaders();
  h0.set(HDR.seq, '0');
  h0.set(HDR.version, '0.0.0-test');
  h0.set(HDR.features, '');
  nc.publish(msg.reply as string, undefined, { headers: h0 });
  const rows = names.map((path) => ({
    entry: { path: Buffer.from(path), type: 'ENTRY_TYPE_FILE', size: 1, depth: 1 },
  }));
  const body = Buffer.concat([
    frame(walkCodec.responseSerialize({ rows } as never) as Buffer),
    frame(
      walkCodec.responseSerialize({
        rows: [],
        summary: {
          entriesSent: rows.length,
          entriesSeen: rows.length,
          entriesMatched: rows.length,
          truncations: [],
          elapsedMs: 0,
        },
      } as never) as Buffer,
    ),
  ]);
  const h1 = natsHeaders();
  h1.set(HDR.seq, '1');
  h1.set(HDR.end, '1');
  nc.publish(msg.reply as string, body, { headers: h1 });
}

/** Only the walk's first message (the agent's headers): the rest would follow, were its node alive. */
function answerFirst(nc: NatsConnection, msg: Msg): void {
  const h0 = natsHeaders();
  h0.set(HDR.seq, '0');
  h0.set(HDR.version, '0.0.0-test');
  h0.set(HDR.features, '');
  nc.publish(msg.reply as string, undefined, { headers: h0 });
}

describe('a node lost during a call', () => {
  let dir: string;
  let nodes: NatsNode[];
  const conns: NatsConnection[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-node-loss-'));
    nodes = await startNatsCluster({ dir: join(dir, 'nats'), nodes: 3 });
  });

  after(async () => {
    for (const c of conns) await c.close().catch(() => undefined);
    for (const n of nodes ?? []) await n.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A stand-in agent for `name` on `node` only (it learns the others from the cluster, as an agent does). */
  const standIn = async (name: string, node: NatsNode, answer: (nc: NatsConnection, msg: Msg, n: number) => void) => {
    const nc = await connect({ servers: [node.url], reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    conns.push(nc);
    let asked = 0;
    nc.subscribe(agentSubjects(name).walk, { callback: (_e, msg) => answer(nc, msg, ++asked) });
    // Its Stat answers anything: the test's way to know the server routes to it.
    nc.subscribe(agentSubjects(name).stat, { callback: (_e, msg) => void msg.respond('') });
    await nc.flush();
    return { nc, asked: () => asked };
  };

  const gatewaySide = async (node: NatsNode) => {
    const nc = await connect({ servers: [node.url] });
    conns.push(nc);
    return nc;
  };

  it("the agent's node killed after the walk began, before a row: asked again, the walk is whole", async () => {
    const [n1, n2] = nodes;
    let firstAsked: () => void = () => {};
    const began = new Promise<void>((resolve) => {
      firstAsked = resolve;
    });
    const agent = await standIn('edge-a', n1, (nc, msg, n) => {
      if (n === 1) {
        answerFirst(nc, msg);
        // Killed once its node has the first message (else the kill may take it along, and
        // the gateway sees a host that never answered: marked, not asked again).
        void nc.flush().then(firstAsked);
      } else answerWhole(nc, msg, ['a.txt', 'b.txt']);
    });
    const gw = await gatewaySide(n2);
    // The stand-in's subscription is known on n2 before the walk is sent there.
    await waitFor(
      async () => {
        try {
          await gw.request(agentSubjects('edge-a').stat, '', { timeout: 500 });
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, everyMs: 100, what: 'the stand-in agent routed to n2' },
    );
    const backend = createNatsBackend('edge-a', { nc: gw, logger, connectTimeoutMs: 10_000, livenessMs: 1500 });
    const req = resolveWalkRequest({ path: '/srv', shape: 'tree', maxDepth: 1, deadlineMs: 60_000 });
    const walking = (async () => {
      const names: string[] = [];
      const it = backend.walk(req, AbortSignal.timeout(60_000));
      for (;;) {
        const r = await it.next();
        if (r.done) return { names, summary: r.value };
        for (const row of r.value) if (row.kind === 'entry') names.push(row.entry.path.toString());
      }
    })();
    await began;
    await n1.stop('SIGKILL');
    const { names, summary } = await walking;
    assert.deepEqual(names, ['a.txt', 'b.txt']);
    assert.equal(summary.entriesSent, 2);
    assert.equal(agent.asked(), 2, 'asked once more, no more');
    assert.notEqual(agent.nc.getServer(), `127.0.0.1:${n1.port}`, 'the stand-in moved to another node');
    await n1.start();
  });

  it('a host whose walk broke and then fails again says both', async () => {
    const [, n2, n3] = nodes;
    // Answers the first message and then nothing, every time: silence mid-walk, twice.
    const agent = await standIn('edge-b', n3, (nc, msg) => answerFirst(nc, msg));
    const gw = await gatewaySide(n2);
    await waitFor(
      async () => {
        try {
          await gw.request(agentSubjects('edge-b').stat, '', { timeout: 500 });
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, everyMs: 100, what: 'the stand-in agent routed to n2' },
    );
    const backend = createNatsBackend('edge-b', { nc: gw, logger, connectTimeoutMs: 10_000, livenessMs: 800 });
    const req = resolveWalkRequest({ path: '/srv', shape: 'tree', maxDepth: 1, deadlineMs: 60_000 });
    const it = backend.walk(req, AbortSignal.timeout(60_000));
    await assert.rejects(it.next(), (err: { code?: string; message?: string }) => {
      assert.equal(err.code, 'unavailable', err.message);
      assert.match(String(err.message), /lost on NATS .*\(asked again after: agent edge-b: lost on NATS/);
      return true;
    });
    assert.equal(agent.asked(), 2);
  });
});
