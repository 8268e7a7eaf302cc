// A fleet of real hosts on one machine: each host is a network namespace with its own
// address, running fleetls-agent over mTLS (plaintext is refused off loopback). The
// gateway, in the root namespace, fans out to them; then one agent is killed and one
// host's link is cut, and each failure stays one status row beside the healthy host.
// Needs root (network namespaces); without it the suite fails, as the SSH tests do.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { withContract } from '@fleetls/gateway/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AGENT_MAIN, REPO_ROOT } from './helpers/agent-process.js';
import { makePki } from './helpers/certs.js';

const GATEWAY_MAIN = join(REPO_ROOT, 'packages/gateway/dist/main.js');
const tag = String(process.pid % 100_000);

interface TestHost {
  name: string;
  ns: string;
  hostIf: string;
  address: string;
  agent?: ChildProcess;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** A namespace joined to the root namespace by a veth pair on its own /30. */
function makeHost(name: string, index: number): TestHost {
  const ns = `fl${tag}${name}`;
  const hostIf = `flh${tag}${index}`;
  const nsIf = `fln${tag}${index}`;
  const net = `10.213.${index}`;
  ip('netns', 'add', ns);
  ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf, 'netns', ns);
  ip('addr', 'add', `${net}.1/30`, 'dev', hostIf);
  ip('link', 'set', hostIf, 'up');
  ip('-n', ns, 'addr', 'add', `${net}.2/30`, 'dev', nsIf);
  ip('-n', ns, 'link', 'set', nsIf, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  return { name, ns, hostIf, address: `${net}.2` };
}

function startAgentIn(host: TestHost, dir: string, pki: ReturnType<typeof makePki>): Promise<void> {
  const args = ['netns', 'exec', host.ns, process.execPath, AGENT_MAIN, '--listen', `${host.address}:7443`];
  args.push('--allow', dir, '--tls-cert', pki.serverCert, '--tls-key', pki.serverKey, '--tls-ca', pki.ca);
  const child = spawn('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  host.agent = child;
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`agent in ${host.ns} did not start: ${err}`)), 15_000);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      err += chunk;
      if (err.includes('"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent in ${host.ns} exited ${code}: ${err}`));
    });
  });
}

type Json = Record<string, unknown>;

describe('a fleet of network namespaces over mTLS', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-netns-'));
  const tree = join(work, 'srv');
  const hosts: TestHost[] = [];
  let client: Client;

  const call = async (args: Json): Promise<Json> => {
    const res = await client.callTool({ name: 'list_files', arguments: args });
    assert.ok(!res.isError, JSON.stringify(res.content));
    return res.structuredContent as Json;
  };
  const statusOf = (answer: Json) => Object.fromEntries((answer.hosts as Json[]).map((h) => [h.host, h.status]));

  before(async () => {
    assert.equal(process.getuid?.(), 0, 'network namespaces need root; run the suite as root, as CI does');
    mkdirSync(join(tree, 'logs'), { recursive: true });
    for (const [i, size] of [1, 50, 300, 7000].entries()) {
      writeFileSync(join(tree, 'logs', `app-${i}.log`), '');
      truncateSync(join(tree, 'logs', `app-${i}.log`), size);
    }
    hosts.push(makeHost('web1', 1), makeHost('web2', 2));
    const pki = makePki(
      work,
      hosts.map((h) => h.address),
    );
    await Promise.all(hosts.map((h) => startAgentIn(h, tree, pki)));
    const inventory = join(work, 'fleetls.yaml');
    writeFileSync(
      inventory,
      [
        'hosts:',
        ...hosts.map((h) => `  ${h.name}: { agent: "${h.address}:7443", labels: { role: web } }`),
        `agent_tls: { ca: ${pki.ca}, cert: ${pki.clientCert}, key: ${pki.clientKey} }`,
        'defaults: { connect_timeout_ms: 1500, deadline_ms: 4000 }',
        '',
      ].join('\n'),
    );
    client = withContract(new Client({ name: 'netns-test', version: '1.0.0' }));
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [GATEWAY_MAIN, 'serve', '--inventory', inventory],
        stderr: 'pipe',
      }),
    );
  });

  after(async () => {
    await client?.close();
    for (const h of hosts) {
      h.agent?.kill('SIGKILL');
      // Deleting one end of the veth pair deletes both; the namespace goes with its last user.
      for (const args of [
        ['link', 'del', h.hostIf],
        ['netns', 'del', h.ns],
      ]) {
        try {
          ip(...args);
        } catch {
          // already gone
        }
      }
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('merges both hosts, largest first, with a status row each', async () => {
    const answer = await call({
      host: 'label:role=web',
      path: join(tree, 'logs'),
      order_by: 'size',
      sort: 'descending',
    });
    assert.deepEqual(statusOf(answer), { web1: 'ok', web2: 'ok' });
    const items = answer.items as Json[];
    assert.deepEqual(
      items.map((i) => [i.host, i.name, i.size]),
      [
        ['web1', 'app-3.log', 7000],
        ['web2', 'app-3.log', 7000],
        ['web1', 'app-2.log', 300],
        ['web2', 'app-2.log', 300],
        ['web1', 'app-1.log', 50],
        ['web2', 'app-1.log', 50],
        ['web1', 'app-0.log', 1],
        ['web2', 'app-0.log', 1],
      ],
    );
  });

  it('a killed agent is unreachable; the other host still answers', async () => {
    const web2 = hosts[1];
    web2.agent?.kill('SIGKILL');
    await new Promise((resolve) => web2.agent?.once('exit', resolve));
    const answer = await call({
      host: 'all',
      path: join(tree, 'logs'),
      top_n: 2,
      order_by: 'size',
      sort: 'descending',
    });
    assert.deepEqual(statusOf(answer), { web1: 'ok', web2: 'unreachable' });
    assert.deepEqual(
      (answer.items as Json[]).map((i) => [i.host, i.name]),
      [
        ['web1', 'app-3.log'],
        ['web1', 'app-2.log'],
      ],
    );
  });

  it('a host whose link is cut times out within the deadline', async () => {
    ip('link', 'set', hosts[0].hostIf, 'down');
    const answer = await call({ host: 'all', path: join(tree, 'logs') });
    const status = statusOf(answer);
    assert.equal(status.web1, 'timeout');
    assert.equal(status.web2, 'unreachable');
  });
});
