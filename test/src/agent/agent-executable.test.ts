// The agent executable (scripts/package/sea.mjs) carries the packages it uses only where
// configured (yaml, prom-client, the NATS client) in an asset of their own, compiled at first
// use, so that its main script, held whole at rest, is smaller (issue 39's idle RSS). Each of
// them still works from the executable, in one real agent: a settings file, /metrics, NATS;
// and its reflection, answered without protobufjs, serves a client that builds a stub from it.
// It also carries its native module (fsat.node) as an asset: copied alone, it still walks natively.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, makeTree } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { type NatsNode, startNatsCluster } from '../helpers/nats-server.js';
import { builtExecutables } from '../helpers/packages.js';
import { reflect } from '../helpers/reflection-client.js';

/** How many entries a Walk of `path` (4 levels) through `agent` lists. */
async function entriesUnder(agent: AgentProcess, path: string): Promise<number> {
  const client = agentClient(agent.address);
  try {
    const { rows } = await walkAll(client, { path, maxDepth: 4 });
    return rows.filter((r) => r.kind === 'entry').length;
  } finally {
    client.close();
  }
}

describe('the agent executable loads what its start leaves out when it is used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-exe-lazy-'));
  const data = join(dir, 'data');
  let nats: NatsNode;
  let agent: AgentProcess;
  let metricsPort = 0;

  before(async () => {
    makeTree(data, { 'a.txt': 'a', 'sub/b.txt': 'bb' });
    mkdirSync(join(dir, 'nats'));
    [nats] = await startNatsCluster({ dir: join(dir, 'nats') });
    metricsPort = await freePort();
    const config = join(dir, 'agent.yaml');
    // Every setting from the file (yaml), with /metrics (prom-client) and NATS (the NATS client).
    writeFileSync(
      config,
      [`allow:\n  - ${data}`, `metrics: 127.0.0.1:${metricsPort}`, `connect: ${nats.url}`, 'name: exe-1', ''].join(
        '\n',
      ),
    );
    agent = await startAgent({
      allow: [],
      main: join(builtExecutables(), 'fleetls-agent'),
      node: [],
      args: ['--config', config],
      env: { FLEETLS_AGENT_CONFIG: config },
    });
  });

  after(async () => {
    await agent?.stop();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads its settings file, serves /metrics and NATS, and walks the root the file allows', async () => {
    await agent.waitForLog((l) => l.msg === 'serving on NATS', 15_000);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^# TYPE /m);
    assert.equal(await entriesUnder(agent, data), 3);
  });

  it('answers gRPC reflection, and a stub built from it calls Stat', async () => {
    const reflected = await reflect(agent.address, new grpc.Metadata(), 'fleetls.v1.Agent');
    assert.ok(reflected.services.includes('fleetls.v1.Agent'), reflected.services.join());
    const stub = new reflected.Service(agent.address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      Stat(req: object, cb: (e: grpc.ServiceError | null, r?: { entry: { size: number } }) => void): void;
    };
    try {
      const stat = await new Promise<{ entry: { size: number } } | undefined>((resolve, reject) =>
        stub.Stat({ path: join(data, 'sub/b.txt') }, (e, r) => (e ? reject(e) : resolve(r))),
      );
      assert.equal(Number(stat?.entry.size), 2);
    } finally {
      stub.close();
    }
  });
});

describe('the agent executable copied alone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-exe-alone-'));
  const data = join(dir, 'data');
  const tmp = join(dir, 'tmp');
  let agent: AgentProcess;

  before(async () => {
    makeTree(data, { 'a.txt': 'a', 'sub/b.txt': 'bb' });
    mkdirSync(tmp);
    // No fsat.node beside it and none in ../lib/fleetls-agent/: only the one it carries.
    mkdirSync(join(dir, 'bin'));
    const exe = join(dir, 'bin', 'fleetls-agent');
    copyFileSync(join(builtExecutables(), 'fleetls-agent'), exe);
    agent = await startAgent({ allow: [data], main: exe, node: [], env: { TMPDIR: tmp } });
  });

  after(async () => {
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the native module it carries, leaves no copy of it behind, and walks', async () => {
    const listening = await agent.waitForLog((l) => l.msg === 'listening', 15_000);
    assert.equal(listening.statRoute, "fstatat (the executable's own fsat.node)");
    assert.equal(await entriesUnder(agent, data), 3);
    // Each thread wrote its copy into a directory of its own and removed it once loaded.
    assert.deepEqual(readdirSync(tmp), []);
  });
});
