// An agent never silently ignores a filter: a real agent echoes what it applied, and one
// built without a feature (as an older agent that drops the unknown field) is refused by
// the gateway's client before any of its rows is used, naming the feature and its version.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addAgentService, parseAgentConfig } from '@fleetls/agent';
import { FILTER_FEATURES, FleetError, resolveWalkRequest } from '@fleetls/core';
import { createAgentBackend, createLogger, loadFleet, resolveGatewayOptions, type ToolContext } from '@fleetls/gateway';
import { listFiles, listHosts } from '@fleetls/gateway/testing';
import { SERVICE_NAME } from '@fleetls/proto';
import { makeTree } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { drain, entryPaths } from '../helpers/walks.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const signal = () => new AbortController().signal;

describe('capability echo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-echo-'));
  let agent: AgentProcess;
  let old: grpc.Server;
  let oldAddress = '';

  before(async () => {
    makeTree(dir, {
      'big.bin': Buffer.alloc(4096),
      'small.txt': 'x',
      'sub/open.txt': { data: Buffer.alloc(2048), mode: 0o666 },
    });
    agent = await startAgent({ allow: [dir] });
    old = new grpc.Server();
    addAgentService(old, {
      config: parseAgentConfig(
        ['--config', '/dev/null', '--allow', dir, '--insecure-loopback', '--listen', '127.0.0.1:0'],
        {},
      ),
      logger,
      version: '0.0.9-noperm',
      features: FILTER_FEATURES.filter((f) => f !== 'perm'),
    });
    new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' }).addToServer(old);
    const port = await new Promise<number>((resolve, reject) =>
      old.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    oldAddress = `127.0.0.1:${port}`;
  });
  after(async () => {
    await agent?.stop();
    old?.forceShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  const request = (filter: Parameters<typeof resolveWalkRequest>[0]['filter']) =>
    resolveWalkRequest({ path: dir, shape: 'ranked', maxDepth: 3, types: ['file'], filter });

  it('a current agent applies the filters and echoes them', async () => {
    const b = createAgentBackend(agent.address, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      const { rows, summary } = await drain(
        b.walk(request({ minSize: 1024, perm: { match: 'any', mode: 0o2 } }), signal()),
      );
      assert.deepEqual(entryPaths(rows), ['sub/open.txt']);
      assert.deepEqual(summary.applied, ['min_size', 'perm']);
    } finally {
      b.close();
    }
  });

  it('an agent without a feature is refused before any row is used, naming the feature and its version', async () => {
    const b = createAgentBackend(oldAddress, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      const gen = b.walk(request({ minSize: 1024, perm: { match: 'any', mode: 0o2 } }), signal());
      await assert.rejects(gen.next(), (err: unknown) => {
        assert.ok(err instanceof FleetError);
        assert.equal(err.code, 'internal');
        assert.match(err.message, /\(version 0\.0\.9-noperm\) does not apply perm \(/);
        assert.doesNotMatch(err.message, /min_size/);
        return true;
      });
      // What it does apply still works, and is echoed.
      const { rows, summary } = await drain(b.walk(request({ minSize: 1024 }), signal()));
      assert.deepEqual(entryPaths(rows), ['big.bin', 'sub/open.txt']);
      assert.deepEqual(summary.applied, ['min_size']);
      // Without filters nothing is asked of it.
      assert.equal((await drain(b.walk(request(undefined), signal()))).rows.length, 3);
    } finally {
      b.close();
    }
  });
  it('through a tool call: the old agent is a host status error, the current one answers', async () => {
    const inventory = join(dir, 'fleet.yaml');
    writeFileSync(
      inventory,
      [
        'hosts:',
        `  current: { agent: "${agent.address}" }`,
        `  old: { agent: "${oldAddress}" }`,
        'agent_tls: insecure',
        '',
      ].join('\n'),
    );
    const fleet = await loadFleet({ inventoryPath: inventory, logger });
    const ctx: ToolContext = { fleet, options: resolveGatewayOptions(), signal: signal() };
    try {
      const r = await listFiles(ctx, { host: 'all', path: dir, max_depth: 2, perm: '/o+w' });
      assert.deepEqual(
        r.structured.items.map((i) => `${i.host}:${i.path}`),
        ['current:sub/open.txt'],
      );
      const old = r.structured.hosts.find((h) => h.host === 'old');
      assert.equal(old?.status, 'error');
      assert.match(String(old?.message), /version 0\.0\.9-noperm\) does not apply perm/);
      // The line names the path the host could not list (issue 22), not the word "error".
      assert.match(r.text, new RegExp(`old: \\[ERROR\\] ${dir} — .*does not apply perm`));
      // list_hosts check names what each agent applies, from the same metadata.
      const hosts = await listHosts(ctx, { check: true });
      const byName = Object.fromEntries(hosts.structured.hosts.map((h) => [h.host, h]));
      assert.deepEqual(byName.current.features, [...FILTER_FEATURES]);
      assert.deepEqual(
        byName.old.features,
        FILTER_FEATURES.filter((f) => f !== 'perm'),
      );
      assert.match(hosts.text, /0\.0\.9-noperm \(lacks perm\)/);
    } finally {
      await fleet.close();
    }
  });
});
