// `fleetls pki` end to end: a CA, the agents' certificates for a two-host inventory (one
// addressed by IP, one by name) and the gateway's client certificate, all from the CLI;
// real agents serve them over mTLS and the gateway lists both. A DNS-only certificate (as
// a Kubernetes DaemonSet's agents carry) reached by IP answers ok with
// agent_tls.server_name, and is `auth` without it. `fleetls hosts --check` shows the
// days to expiry; a missing file the inventory names fails the load, naming its key.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { fleetls } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway-process.js';

interface HostRow {
  host: string;
  status: string;
  message?: string;
  cert_expires_in_days?: number;
}

describe('fleetls pki', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-pki-'));
  const pki = join(dir, 'pki');
  const tree = join(dir, 'tree');
  const agents: Record<string, AgentProcess> = {};
  const tls = (serverName?: string) => [
    'agent_tls:',
    `  ca: ${join(pki, 'ca.crt')}`,
    `  cert: ${join(pki, 'gateway.crt')}`,
    `  key: ${join(pki, 'gateway.key')}`,
    ...(serverName ? [`  server_name: ${serverName}`] : []),
  ];
  const inventory = (name: string, hosts: Record<string, string>, extra: string[]): string => {
    const file = join(dir, `${name}.yaml`);
    const lines = Object.entries(hosts).flatMap(([h, address]) => [`  ${h}:`, `    agent: ${address}`]);
    writeFileSync(file, ['hosts:', ...lines, ...extra, ''].join('\n'));
    return file;
  };
  const cli = async (args: string[]) => {
    const r = await fleetls(args, { cwd: dir });
    assert.equal(r.code, 0, `fleetls ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const serve = (host: string) =>
    startAgent({
      allow: [tree],
      tls: true,
      args: [
        '--tls-cert',
        join(pki, `${host}.crt`),
        '--tls-key',
        join(pki, `${host}.key`),
        '--tls-ca',
        join(pki, 'ca.crt'),
      ],
    });

  before(async () => {
    makeTree(tree, { 'sub/f.txt': 'x' });
    // The addresses' hosts are what `issue` reads; the ports are the agents' once they listen.
    const draft = inventory('fleet', { 'by-ip': '127.0.0.1:1', 'by-name': 'localhost:1' }, tls());
    await cli(['pki', 'init', '--dir', pki]);
    await cli(['--inventory', draft, 'pki', 'issue', 'by-ip', 'by-name', '--dir', pki]);
    // Not in the inventory: named only by the DNS name given, as a DaemonSet's agents are.
    await cli(['pki', 'issue', 'pod', '--name', 'fleetls-agent.fleetls.svc', '--dir', pki]);
    await cli(['pki', 'client', '--dir', pki]);
    for (const host of ['by-ip', 'by-name', 'pod']) agents[host] = await serve(host);
  });
  after(async () => {
    await Promise.all(Object.values(agents).map((a) => a.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every key 0600 and every certificate 0644', () => {
    for (const f of ['ca', 'by-ip', 'by-name', 'pod', 'gateway']) {
      assert.equal(statSync(join(pki, `${f}.key`)).mode & 0o777, 0o600, f);
      assert.equal(statSync(join(pki, `${f}.crt`)).mode & 0o777, 0o644, f);
    }
  });

  it('refuses a second init over the same CA', async () => {
    const r = await fleetls(['pki', 'init', '--dir', pki], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /already holds a CA/);
  });

  it('lists both hosts of the inventory (one by IP, one by name) over mTLS', async () => {
    const file = inventory(
      'fleet',
      { 'by-ip': `127.0.0.1:${agents['by-ip'].port}`, 'by-name': `localhost:${agents['by-name'].port}` },
      tls(),
    );
    const out = await cli(['--inventory', file, 'ls', `all:${tree}/sub`, '--json']);
    const answer = JSON.parse(out) as { items: { host: string; path: string }[]; hosts: HostRow[] };
    assert.deepEqual(
      answer.hosts.map((h) => [h.host, h.status]),
      [
        ['by-ip', 'ok'],
        ['by-name', 'ok'],
      ],
    );
    assert.deepEqual(answer.items.map((i) => `${i.host}:${i.path}`).sort(), ['by-ip:f.txt', 'by-name:f.txt']);
  });

  it('hosts --check shows the days until each agent certificate expires', async () => {
    const file = inventory(
      'fleet',
      { 'by-ip': `127.0.0.1:${agents['by-ip'].port}`, 'by-name': `localhost:${agents['by-name'].port}` },
      tls(),
    );
    const rows = (JSON.parse(await cli(['--inventory', file, 'hosts', '--check', '--json'])) as { hosts: HostRow[] })
      .hosts;
    // issue's default validity is 397 days, from an hour ago.
    assert.deepEqual(
      rows.map((r) => [r.host, r.cert_expires_in_days]),
      [
        ['by-ip', 396],
        ['by-name', 396],
      ],
    );
  });

  it("the gateway's metric says the soonest agent certificate expiry a probe saw", async () => {
    const file = inventory(
      'fleet',
      { 'by-ip': `127.0.0.1:${agents['by-ip'].port}`, 'by-name': `localhost:${agents['by-name'].port}` },
      tls(),
    );
    const token = 'pki-test-token';
    const auth = { authorization: `Bearer ${token}` };
    const gw = startGateway(['--http', '127.0.0.1:0'], { FLEETLS_INVENTORY: file, FLEETLS_TOKEN: token });
    const client = new Client({ name: 'pki-test', version: '1' });
    try {
      const url = await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
      const metrics = async () => (await fetch(url.replace(/\/mcp$/, '/metrics'), { headers: auth })).text();
      const gauge = /^fleetls_gateway_agent_cert_min_days_to_expiry\{scope="fleet"\} ([0-9.]+)$/m;
      assert.doesNotMatch(await metrics(), gauge, 'no sample before any probe');
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
      await client.callTool({ name: 'list_hosts', arguments: { check: true } });
      const days = Number(gauge.exec(await metrics())?.[1]);
      assert.ok(days > 396 && days < 397, String(days));
    } finally {
      await client.close();
      await gw.stop();
    }
  });

  it('a DNS-only certificate reached by IP answers ok with agent_tls.server_name, auth without', async () => {
    const address = { pod: `127.0.0.1:${agents.pod.port}` };
    const named = inventory('k8s', address, tls('fleetls-agent.fleetls.svc'));
    const ok = JSON.parse(await cli(['--inventory', named, 'ls', `pod:${tree}/sub`, '--json'])) as {
      hosts: HostRow[];
    };
    assert.equal(ok.hosts[0]?.status, 'ok', JSON.stringify(ok.hosts));
    const unnamed = inventory('k8s-no-name', address, tls());
    const r = await fleetls(['--inventory', unnamed, 'ls', `pod:${tree}/sub`, '--json'], { cwd: dir });
    const refused = (JSON.parse(r.stdout) as { hosts: HostRow[] }).hosts[0];
    assert.equal(refused?.status, 'auth', JSON.stringify(refused));
    assert.match(refused?.message ?? '', /127\.0\.0\.1/);
  });

  it('a file the inventory names that is missing fails the load, naming its key path', async () => {
    const file = join(dir, 'missing.yaml');
    writeFileSync(
      file,
      [
        'hosts:',
        '  a:',
        '    agent: 127.0.0.1:1',
        'agent_tls:',
        `  ca: ${join(pki, 'nope.crt')}`,
        `agent_token_file: ${join(dir, 'no-token')}`,
        '',
      ].join('\n'),
    );
    const r = await fleetls(['--inventory', file, 'hosts'], { cwd: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /agent_tls\.ca: cannot read .*nope\.crt \(no such file\)/);
    assert.match(r.stderr, /agent_token_file: cannot read .*no-token \(no such file\)/);
  });
});

describe('fleetls pki, as docs/operators.md runs it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-pki-order-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]) => fleetls(args, { cwd: dir });

  it('issues for an inventory with no agent_tls yet (the certificates come first, agent_tls after)', async () => {
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, ['hosts:', '  web-1:', '    agent: 10.0.0.7:7443', ''].join('\n'));
    const pki = join(dir, 'pki');
    assert.equal((await run(['pki', 'init', '--dir', pki])).code, 0);
    const r = await run(['--inventory', file, 'pki', 'issue', 'web-1', '--dir', pki]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /web-1\.crt .*names 10\.0\.0\.7/);
  });

  it('names each CA apart (host, date, random), so a CA mismatch can say which', async () => {
    const names: string[] = [];
    for (const d of ['ca-a', 'ca-b']) {
      const r = await run(['pki', 'init', '--dir', join(dir, d)]);
      assert.equal(r.code, 0, r.stderr);
      names.push(/CA "([^"]+)"/.exec(r.stdout)?.[1] ?? '');
    }
    const today = new Date().toISOString().slice(0, 10);
    for (const n of names) assert.match(n, new RegExp(`^fleetls CA \\S+ ${today} [0-9a-f]{6}$`));
    assert.notEqual(names[0], names[1]);
    const { X509Certificate } = await import('node:crypto');
    const subject = new X509Certificate(readFileSync(join(dir, 'ca-a', 'ca.crt'))).subject;
    assert.equal(subject, `CN=${names[0]}`);
  });

  it('refuses to write a key or certificate through a symlink planted in the pki directory', async () => {
    const pki = join(dir, 'planted');
    assert.equal((await run(['pki', 'init', '--dir', pki])).code, 0);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious\n', { mode: 0o644 });
    symlinkSync(victim, join(pki, 'web-2.key'));
    const r = await run(['pki', 'issue', 'web-2', '--dir', pki]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /refusing to write .*web-2\.key: it is a symlink/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n', 'the victim is not overwritten');
    assert.equal(statSync(victim).mode & 0o777, 0o644, 'nor chmodded');
    // A dangling link where init would put the CA key: refused too, not created through.
    const fresh = join(dir, 'fresh');
    mkdirSync(fresh);
    symlinkSync(join(dir, 'made-through-link'), join(fresh, 'ca.key'));
    const init = await run(['pki', 'init', '--dir', fresh]);
    assert.equal(init.code, 1, init.stderr);
    assert.match(init.stderr, /refusing to write .*ca\.key: it is a symlink/);
    assert.throws(() => statSync(join(dir, 'made-through-link')), /ENOENT/);
  });
});
