// NATS with the shipped permissions (deploy/nats/nats-server.conf's accounts block, the keys
// replaced by this test's own nkeys) and TLS with client-certificate verification: agents and
// a gateway work through them, and one agent's credentials can neither take another host's
// requests, read other hosts' answers, nor overwrite another host's registration; nor, with
// its own key, make itself a member of another group (issue 35 F3).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree, waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import { type AgentProcess, REPO_ROOT, startAgent } from '../helpers/agent-process.js';
import { makePki, type TestPki } from '../helpers/certs.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { accountsFor, type Key, type NatsNode, newKey, startNatsCluster } from '../helpers/nats-server.js';

const HEARTBEAT_MS = 500;

function tlsOpts(pki: TestPki) {
  return { caFile: pki.ca, certFile: pki.clientCert, keyFile: pki.clientKey };
}

describe('NATS with per-host permissions and verified TLS', () => {
  let dir: string;
  let tree: string;
  let pki: TestPki;
  let nodes: NatsNode[];
  let url: string;
  let keys: { web: Key; db: Key; gw: Key };
  let agents: AgentProcess[] = [];
  let client: Client;
  let gwNc: NatsConnection;

  const tlsFlags = () => ['--nats-tls-ca', pki.ca, '--nats-tls-cert', pki.clientCert, '--nats-tls-key', pki.clientKey];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-sec-'));
    tree = join(dir, 'tree');
    makeTree(tree, { 'a.txt': 'aaa', 'sub/b.txt': 'b' });
    // nats.js names a loopback server `localhost` when it checks the certificate.
    pki = makePki(dir, ['127.0.0.1', 'localhost']);
    keys = { web: newKey(dir, 'web-1'), db: newKey(dir, 'db-1'), gw: newKey(dir, 'gateway') };
    const tls = `tls { cert_file: "${pki.serverCert}", key_file: "${pki.serverKey}", ca_file: "${pki.ca}", verify: true }`;
    nodes = await startNatsCluster({
      dir: join(dir, 'nats'),
      extra: `${tls}\n${accountsFor({ 'web-1': keys.web, 'db-1': keys.db }, keys.gw)}`,
    });
    url = `tls://127.0.0.1:${nodes[0].port}`;
    gwNc = await connect({
      servers: [url],
      tls: tlsOpts(pki),
      authenticator: nkeyAuthenticator(keys.gw.seed),
    });
    // The gateway makes the registry bucket (an agent's key may write only its own entry).
    const { openRegistryBucket } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
    await openRegistryBucket(gwNc);
    agents = await Promise.all(
      (['web-1', 'db-1'] as const).map((name) =>
        startAgent({
          natsOnly: true,
          allow: [tree],
          args: ['--connect', url, '--name', name, '--heartbeat-ms', String(HEARTBEAT_MS)]
            .concat(['--nats-creds', (name === 'web-1' ? keys.web : keys.db).seedFile])
            .concat(tlsFlags()),
        }),
      ),
    );
    ({ client } = await stdioClient(
      'nats-sec',
      { FLEETLS_INVENTORY: '' },
      { args: ['--nats', url, '--nats-creds', keys.gw.seedFile, ...tlsFlags()] },
    ));
  });

  after(async () => {
    await client?.close();
    await gwNc?.close();
    await Promise.all(agents.map((a) => a.stop()));
    for (const n of nodes ?? []) await n.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('agents register and answer through the shipped permissions, over TLS', async () => {
    const answer = async () => {
      const r = await client.callTool({
        name: 'list_files',
        arguments: { host: 'all', path: tree, max_depth: 1, type: 'file' },
      });
      assert.ok(!r.isError, JSON.stringify(r.content));
      return r.structuredContent as {
        hosts: { host: string; status: string }[];
        items: { host: string; path: string }[];
      };
    };
    // Both agents' first heartbeats may land after the gateway read the registry.
    await waitFor(async () => (await answer()).hosts.length === 2, {
      timeoutMs: 60_000,
      everyMs: 500,
      what: 'both hosts registered',
    });
    const s = await answer();
    assert.deepEqual(s.hosts.map((h) => [h.host, h.status]).sort(), [
      ['db-1', 'ok'],
      ['web-1', 'ok'],
    ]);
    assert.deepEqual(s.items.map((i) => `${i.host}:${i.path}`).sort(), [
      'db-1:a.txt',
      'db-1:sub/b.txt',
      'web-1:a.txt',
      'web-1:sub/b.txt',
    ]);
    // Denied nowhere on the way: the agents logged no permission violation.
    for (const a of agents) assert.ok(!/[Pp]ermissions? [Vv]iolation/.test(a.stderr()), a.stderr());
  });

  it("web-1's credentials cannot subscribe to db-1's requests, to other inboxes, nor to every agent", async () => {
    const nc = await connect({ servers: [url], tls: tlsOpts(pki), authenticator: nkeyAuthenticator(keys.web.seed) });
    try {
      for (const subject of ['fleetls.agent.db-1.walk', 'fleetls.agent.db-1.ctl.*', 'fleetls.agent.>', '_INBOX.>']) {
        const refused = new Promise<string>((resolve) => {
          nc.subscribe(subject, {
            callback: (err) => {
              if (err) resolve(err.message);
            },
          });
        });
        const why = await Promise.race([refused, new Promise<string>((r) => setTimeout(() => r('allowed'), 10_000))]);
        assert.match(why, /permissions? violation/i, `subscribe ${subject}: ${why}`);
      }
    } finally {
      await nc.close();
    }
    // db-1 still answers for itself, alone.
    const r = await client.callTool({ name: 'stat', arguments: { host: 'db-1', path: tree } });
    assert.ok(!r.isError, JSON.stringify(r.content));
  });

  it("web-1's credentials cannot overwrite db-1's registration, nor publish as a gateway", async () => {
    const nc = await connect({ servers: [url], tls: tlsOpts(pki), authenticator: nkeyAuthenticator(keys.web.seed) });
    const errors: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String((s as { error?: unknown }).error));
    })();
    try {
      const forged = JSON.stringify({
        name: 'db-1',
        labels: { forged: 'yes' },
        groups: [],
        version: '0',
        capabilities: [],
      });
      nc.publish('$KV.fleetls-hosts.db-1', forged);
      nc.publish('fleetls.agent.db-1.walk', 'x');
      await nc.flush();
      await waitFor(() => errors.length >= 2, { timeoutMs: 20_000, what: 'both publishes refused' });
      assert.match(errors.join('\n'), /publish to "\$KV\.fleetls-hosts\.db-1"/i);
      assert.match(errors.join('\n'), /publish to "fleetls\.agent\.db-1\.walk"/i);
    } finally {
      await nc.close();
    }
    // The registry still holds db-1's own registration.
    const hosts = await client.callTool({ name: 'list_hosts', arguments: { host: 'db-1' } });
    const [row] = (hosts.structuredContent as { hosts: Record<string, unknown>[] }).hosts;
    assert.deepEqual(row.labels ?? {}, {});
  });

  it("gateways' credentials talk to each other on fleetls.gateway.>; an agent's may not", async () => {
    // The serving gateway answers a hello asked on the shipped gateway permissions.
    const gw = await connect({ servers: [url], tls: tlsOpts(pki), authenticator: nkeyAuthenticator(keys.gw.seed) });
    try {
      const id = '00112233aabbccdd';
      const answered = new Promise<string>((resolve) => {
        gw.subscribe(`fleetls.gateway.${id}.hello`, {
          callback: (err, m) => resolve(err ? `refused: ${err.message}` : m.string()),
        });
      });
      await gw.flush();
      gw.publish('fleetls.gateway.hello', JSON.stringify({ id }), { reply: `fleetls.gateway.${id}.hello` });
      const hello = await Promise.race([
        answered,
        new Promise<string>((r) => setTimeout(() => r('no answer'), 20_000)),
      ]);
      assert.match(hello, /"serves":true/, hello);
    } finally {
      await gw.close();
    }
    // web-1's key can neither listen to the gateways nor send them a shard.
    const nc = await connect({ servers: [url], tls: tlsOpts(pki), authenticator: nkeyAuthenticator(keys.web.seed) });
    const errors: string[] = [];
    void (async () => {
      for await (const st of nc.status())
        if (st.type === 'error') errors.push(String((st as { error?: unknown }).error));
    })();
    try {
      const refused = new Promise<string>((resolve) => {
        nc.subscribe('fleetls.gateway.>', {
          callback: (err) => {
            if (err) resolve(err.message);
          },
        });
      });
      const why = await Promise.race([refused, new Promise<string>((r) => setTimeout(() => r('allowed'), 10_000))]);
      assert.match(why, /permissions? violation/i, `subscribe fleetls.gateway.>: ${why}`);
      nc.publish('fleetls.gateway.hello', JSON.stringify({ id: 'ffeeddccbbaa9988', serves: true }));
      await nc.flush();
      await waitFor(() => /publish to "fleetls\.gateway\.hello"/i.test(errors.join('\n')), {
        timeoutMs: 20_000,
        what: 'the hello refused',
      });
    } finally {
      await nc.close();
    }
  });

  // After the tests that need web-1's agent: this one stops it, so that web-1's own key speaks for web-1.
  it("web-1's own registration claiming db's group and label selects it nowhere; its heartbeat is held to the gateway's bound", async () => {
    const inventory = join(dir, 'fleet.yaml');
    writeFileSync(
      inventory,
      [
        'hosts_from: nats',
        'nats:',
        `  servers: ["${url}"]`,
        `  creds: ${keys.gw.seedFile}`,
        `  tls: { ca: ${pki.ca}, cert: ${pki.clientCert}, key: ${pki.clientKey} }`,
        '  max_heartbeat_ms: 1000',
        '  hosts:',
        '    db-1: { groups: [db], labels: { role: db } }',
        '    web-1: { groups: [web], labels: { role: web } }',
        '',
      ].join('\n'),
    );
    await agents[0].stop();
    // A compromised web-1: its own key, its own registry key, another host's identity, a heartbeat of 24 days.
    const nc = await connect({ servers: [url], tls: tlsOpts(pki), authenticator: nkeyAuthenticator(keys.web.seed) });
    let asked = 0;
    nc.subscribe('fleetls.agent.web-1.>', { callback: () => void asked++ });
    const forged = {
      name: 'web-1',
      labels: { role: 'db' },
      groups: ['db'],
      version: '0',
      capabilities: ['walk', 'stat'],
      heartbeatMs: 2147483647,
      startedAt: new Date().toISOString(),
    };
    nc.publish('$KV.fleetls-hosts.web-1', JSON.stringify(forged));
    await nc.flush();
    let log = '';
    const { client: g2 } = await stdioClient(
      'nats-sec-identity',
      { FLEETLS_INVENTORY: inventory },
      {
        stderr: (chunk) => {
          log += chunk;
        },
      },
    );
    try {
      await waitFor(() => /host web-1 registers claiming groups db and labels role=db/.test(log), {
        timeoutMs: 20_000,
        what: 'the gateway warning of the claim, naming web-1',
      });
      assert.match(log, /host web-1 announces a heartbeat of 2147483647 ms: held to 1000 ms/);
      for (const selector of ['@db', 'label:role=db']) {
        const r = await g2.callTool({
          name: 'list_files',
          arguments: { host: selector, path: tree, max_depth: 1, type: 'file' },
        });
        assert.ok(!r.isError, JSON.stringify(r.content));
        const hosts = (r.structuredContent as { hosts: { host: string }[] }).hosts.map((h) => h.host);
        assert.deepEqual(hosts, ['db-1'], selector);
      }
      assert.equal(asked, 0, 'web-1 was sent no request meant for db');
      const listed = await g2.callTool({ name: 'list_hosts', arguments: { host: 'web-1' } });
      const [row] = (listed.structuredContent as { hosts: Record<string, unknown>[] }).hosts;
      assert.deepEqual({ labels: row.labels, groups: row.groups }, { labels: { role: 'web' }, groups: ['web'] });
      // It announced 24 days between heartbeats; the gateway believes 1 s, so silence makes it stale.
      await waitFor(
        async () => {
          const s = await g2.callTool({ name: 'list_hosts', arguments: { host: 'web-1' } });
          return /last seen/.test(String((s.structuredContent as { hosts: { address: string }[] }).hosts[0].address));
        },
        { timeoutMs: 30_000, everyMs: 250, what: 'web-1 stale once its bounded heartbeats are missed' },
      );
    } finally {
      await g2.close();
      await nc.close();
    }
  });

  it('TLS is verified both ways: a server certificate of another CA, or no client certificate, is refused', async () => {
    await assert.rejects(
      connect({
        servers: [url],
        tls: { caFile: pki.otherCa, certFile: pki.clientCert, keyFile: pki.clientKey },
        authenticator: nkeyAuthenticator(keys.web.seed),
        reconnect: false,
      }),
    );
    await assert.rejects(
      connect({
        servers: [url],
        tls: { caFile: pki.ca },
        authenticator: nkeyAuthenticator(keys.web.seed),
        reconnect: false,
      }),
    );
    await assert.rejects(
      connect({
        servers: [`nats://127.0.0.1:${nodes[0].port}`],
        authenticator: nkeyAuthenticator(keys.web.seed),
        reconnect: false,
      }),
    );
  });
});

describe('an agent started before any gateway, with the shipped permissions', () => {
  it('says which permission it lacks, and registers soon after a gateway makes the bucket', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-early-'));
    const key = newKey(dir, 'web-9');
    const gw = newKey(dir, 'gateway');
    const [node] = await startNatsCluster({ dir: join(dir, 'nats'), extra: accountsFor({ 'web-9': key }, gw) });
    const agent = await startAgent({
      natsOnly: true,
      allow: [dir],
      args: ['--connect', node.url, '--name', 'web-9', '--heartbeat-ms', '60000', '--nats-creds', key.seedFile],
    });
    try {
      const line = await agent.waitForLog((l) => /cannot register in the NATS registry/.test(String(l.msg)), 20_000);
      assert.match(
        String(line.msg),
        /no JetStream stream stores \$KV\.fleetls-hosts\.web-9: the registry bucket fleetls-hosts is not made yet/,
      );
      assert.match(
        String(line.msg),
        /making the bucket: the server's permissions deny these credentials to (publish to \$JS\.API\.|subscribe to _INBOX)/,
      );
      const nc = await connect({ servers: [node.url], authenticator: nkeyAuthenticator(gw.seed) });
      try {
        const { openRegistryBucket } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
        const kv = await openRegistryBucket(nc);
        // Its next heartbeat is a minute away: it is registered well before.
        await waitFor(async () => (await kv.get('web-9'))?.operation === 'PUT', {
          timeoutMs: 20_000,
          everyMs: 200,
          what: 'web-9 stored in the registry before its next heartbeat',
        });
      } finally {
        await nc.close();
      }
    } finally {
      await agent.stop();
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
