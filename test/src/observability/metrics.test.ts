// /metrics of a real agent (--metrics) and of a real gateway (serve --http) parse as
// Prometheus text exposition (with a parser, not a regex), and their counters move when
// walks run. Also /healthz and /readyz of the gateway.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { after, before, describe, it } from 'node:test';
import parsePrometheus, { type ParsedFamily } from 'parse-prometheus-text-format';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { mcpTree, startMcpHttp } from '../helpers/mcp-fixture.js';
import { suiteFixture } from '../helpers/suite-fixture.js';

const TOKEN = 'metrics-token-0123456789';

async function scrape(url: string, headers: Record<string, string> = {}): Promise<ParsedFamily[]> {
  const res = await fetch(url, { headers });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

/** The value of one sample (0 when the series does not exist yet). */
function sample(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  const m = family.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  if (!m) return 0;
  return Number(m.value ?? m.count);
}

function assertFamily(families: ParsedFamily[], name: string, type: ParsedFamily['type']): void {
  const f = families.find((x) => x.name === name);
  assert.ok(f, `${name} is exposed`);
  assert.equal(f.type, type, name);
  assert.ok(f.help.length > 0, `${name} has help`);
}

describe('agent --metrics', () => {
  let agent: AgentProcess;
  let metricsUrl: string;
  let data: string;
  let root: string;

  before(async () => {
    const tree = mcpTree();
    data = tree.data;
    root = tree.root;
    agent = await startAgent({ allow: [tree.root], args: ['--metrics', '127.0.0.1:0'] });
    const line = await agent.waitForLog((l) => l.msg === 'metrics at /metrics');
    metricsUrl = `http://${String(line.address)}/metrics`;
  });
  after(async () => {
    await agent?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('counts walks by outcome, entries, truncations and RPCs', async () => {
    const before = await scrape(metricsUrl);
    assertFamily(before, 'fleetls_agent_walks_total', 'COUNTER');
    assertFamily(before, 'fleetls_agent_walk_duration_seconds', 'HISTOGRAM');
    assertFamily(before, 'process_cpu_user_seconds_total', 'COUNTER');
    assert.equal(sample(before, 'fleetls_agent_walks_total', { outcome: 'ok' }), 0);

    const client = agentClient(agent.address);
    try {
      const res = await walkAll(client, { path: data, maxDepth: 2, maxItemsPerDir: 10 });
      const entries = res.rows.filter((r) => r.kind === 'entry').length;
      const cuts = res.rows.filter((r) => r.kind === 'truncation').length + res.summary.truncations.length;
      assert.ok(cuts > 0, 'the walk was cut (big/ holds 150 files)');
      await assert.rejects(walkAll(client, { path: '/etc' }));

      const afterWalks = await scrape(metricsUrl);
      assert.equal(sample(afterWalks, 'fleetls_agent_walks_total', { outcome: 'ok' }), 1);
      assert.equal(sample(afterWalks, 'fleetls_agent_walks_total', { outcome: 'permission_denied' }), 1);
      assert.equal(sample(afterWalks, 'fleetls_agent_walk_entries_total'), entries);
      assert.equal(sample(afterWalks, 'fleetls_agent_walk_truncations_total', { reason: 'items_per_dir' }), cuts);
      assert.equal(sample(afterWalks, 'fleetls_agent_walk_duration_seconds'), 2);
      assert.equal(sample(afterWalks, 'fleetls_agent_rpcs_total', { method: '/fleetls.v1.Agent/Walk', code: 'OK' }), 1);
      assert.equal(
        sample(afterWalks, 'fleetls_agent_rpcs_total', {
          method: '/fleetls.v1.Agent/Walk',
          code: 'PERMISSION_DENIED',
        }),
        1,
      );
    } finally {
      client.close();
    }
  });

  it('serves nothing but /metrics', async () => {
    const res = await fetch(metricsUrl.replace('/metrics', '/'));
    assert.equal(res.status, 404);
  });

  it('answers loopback Host names only, and no browser page (issue 35, I4)', async () => {
    /** GET /metrics with these headers (fetch would set Host itself): the status. */
    const get = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(metricsUrl, { headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
      });
    const { host } = new URL(metricsUrl);
    assert.equal(await get({ host }), 200);
    assert.equal(await get({ host: `localhost:${new URL(metricsUrl).port}` }), 200);
    assert.equal(await get({ host: 'evil.example' }), 403);
    assert.equal(await get({ host, origin: 'http://evil.example' }), 403);
  });
});

describe('gateway /metrics, /healthz, /readyz', () => {
  const http = suiteFixture(
    () => startMcpHttp(TOKEN, 'fleetls-metrics-test'),
    (h) => h.close(),
  );
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('answers /healthz and /readyz without a token, /metrics only with it', async () => {
    assert.equal((await fetch(`${http().base}/healthz`)).status, 200);
    assert.equal((await fetch(`${http().base}/readyz`)).status, 200);
    assert.equal((await fetch(`${http().base}/metrics`)).status, 401);
  });

  it('counts host walks, fan-out outcomes, entries and tool calls as a tool runs', async () => {
    const before = await scrape(`${http().base}/metrics`, auth);
    assertFamily(before, 'fleetls_gateway_walks_total', 'COUNTER');
    assertFamily(before, 'fleetls_gateway_fanout_hosts_total', 'COUNTER');
    assertFamily(before, 'process_resident_memory_bytes', 'GAUGE');
    const res = await http().client.callTool({
      name: 'list_directory',
      arguments: { host: 'web-1,web-2,dead', path: http().fleet.data, depth: 2, max_items_per_dir: 10 },
    });
    assert.notEqual(res.isError, true, JSON.stringify(res));
    const bad = await http().client.callTool({
      name: 'list_directory',
      // Past the SDK's schema check (which answers before any tool runs), refused by the tool's plan.
      arguments: { host: 'no-such-host', path: http().fleet.data },
    });
    assert.equal(bad.isError, true);
    const afterCall = await scrape(`${http().base}/metrics`, auth);
    assert.equal(
      sample(afterCall, 'fleetls_gateway_tool_calls_total', { tool: 'list_directory', outcome: 'invalid_argument' }),
      1,
    );
    assert.equal(sample(afterCall, 'fleetls_gateway_walks_total', { via: 'agent', outcome: 'ok' }), 2);
    assert.equal(sample(afterCall, 'fleetls_gateway_walks_total', { via: 'agent', outcome: 'unavailable' }), 1);
    assert.equal(sample(afterCall, 'fleetls_gateway_fanout_hosts_total', { status: 'ok', via: 'agent' }), 2);
    assert.equal(sample(afterCall, 'fleetls_gateway_fanout_hosts_total', { status: 'unreachable', via: 'agent' }), 1);
    assert.ok(sample(afterCall, 'fleetls_gateway_walk_entries_total', { via: 'agent' }) > 0);
    assert.ok(
      sample(afterCall, 'fleetls_gateway_walk_truncations_total', { via: 'agent', reason: 'items_per_dir' }) >= 2,
    );
    assert.equal(sample(afterCall, 'fleetls_gateway_tool_calls_total', { tool: 'list_directory', outcome: 'ok' }), 1);
    // The parser folds labelled histograms into one sample, so only the family is checked here.
    assertFamily(afterCall, 'fleetls_gateway_walk_duration_seconds', 'HISTOGRAM');
  });
});
