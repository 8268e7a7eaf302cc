// A fleet of real hosts on one machine: each host is a network namespace with its own
// address, running fleetls-agent over mTLS (plaintext is refused off loopback). The
// gateway, in the root namespace, fans out to them; then one agent is killed and one
// host's link is cut, and each failure stays one status row beside the healthy host.
// Needs root (network namespaces); without it the suite fails, as the SSH tests do.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { makePki } from '../helpers/certs.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { ip, makeHost, removeHost, startAgentIn, type TestHost } from '../helpers/netns.js';

type Json = Record<string, unknown>;

describe('a fleet of network namespaces over mTLS', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-netns-'));
  const tree = join(work, 'srv');
  const hosts: TestHost[] = [];
  let client: Client;

  const call = async (args: Json): Promise<Json> => {
    const res = await client.callTool({ name: 'list_files', arguments: { type: 'file', ...args } });
    assert.ok(!res.isError, JSON.stringify(res.content));
    return res.structuredContent as Json;
  };
  const statusOf = (answer: Json) => Object.fromEntries((answer.hosts as Json[]).map((h) => [h.host, h.status]));

  before(async () => {
    assert.equal(process.getuid?.(), 0, 'network namespaces need root; run the suite as root, as CI does');
    makeTree(
      tree,
      [1, 50, 300, 7000].map((size, i) => [`logs/app-${i}.log`, { size }]),
    );
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
        // A name-order list_files is a scan too: its hosts get the call's budget, so a cut link
        // times out within the call rather than staying pending for the scan's.
        'defaults: { connect_timeout_ms: 1500, deadline_ms: 4000, scan_host_deadline_ms: 4000 }',
        '',
      ].join('\n'),
    );
    ({ client } = await stdioClient('netns-test', {}, { args: ['--inventory', inventory] }));
  });

  after(async () => {
    await client?.close();
    for (const h of hosts) removeHost(h);
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
    await web2.agent?.stop('SIGKILL');
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
