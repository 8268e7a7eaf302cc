import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, mock } from 'node:test';
import { FleetError } from '@fleetls/core';
import { pino } from 'pino';
import { loadFleet } from '../fleet/fleet.js';
import { parseInventory } from './inventory.js';
import {
  agentHostName,
  agentHosts,
  discoverKubernetesAgents,
  KUBERNETES_REFRESH_MS,
  KubernetesDiscovery,
  type Resolver,
} from './kubernetes.js';

const noData = () => Promise.reject(Object.assign(new Error('queryA ENODATA'), { code: 'ENODATA' }));

/** A resolver over fixed records. */
function fakeDns(a: string[], aaaa: string[], ptr: Record<string, string[]>): Resolver {
  return {
    resolve4: async () => a,
    resolve6: () => (aaaa.length > 0 ? Promise.resolve(aaaa) : noData()),
    reverse: (address) => (ptr[address] ? Promise.resolve(ptr[address]) : noData()),
  };
}

describe('Kubernetes agents from DNS', () => {
  it('names an address by its PTR name, else by the address', () => {
    assert.equal(agentHostName('10.0.1.5', ['node-a.eu-west-1.compute.internal']), 'node-a');
    assert.equal(agentHostName('10.0.1.5', []), '10-0-1-5');
    assert.equal(agentHostName('fd00::5', ['']), 'fd00--5');
  });

  it('one host per address, sorted, IPv6 in brackets, clashing names kept apart', () => {
    const hosts = agentHosts(
      [
        { address: '10.0.0.2', ptr: ['node-b.cluster.local'] },
        { address: 'fd00::1', ptr: ['node-a.cluster.local'] },
        { address: '10.0.0.3', ptr: ['node-b.cluster.local'] },
      ],
      7443,
    );
    assert.deepEqual(
      hosts.map((h) => [h.name, h.agent]),
      [
        ['node-a', '[fd00::1]:7443'],
        ['node-b-10-0-0-2', '10.0.0.2:7443'],
        ['node-b-10-0-0-3', '10.0.0.3:7443'],
      ],
    );
  });

  it('resolves A and AAAA, a missing record family or PTR being no error', async () => {
    const dns = fakeDns(['10.0.0.1', '10.0.0.2'], [], { '10.0.0.1': ['worker-1.example'] });
    const hosts = await discoverKubernetesAgents({ service: 'fleetls-agent.fleetls.svc', port: 7443 }, dns);
    assert.deepEqual(
      hosts.map((h) => [h.name, h.agent, h.labels]),
      [
        ['10-0-0-2', '10.0.0.2:7443', { discovered: 'kubernetes' }],
        ['worker-1', '10.0.0.1:7443', { discovered: 'kubernetes' }],
      ],
    );
  });

  it('a failing lookup names the Service', async () => {
    const dns: Resolver = { ...fakeDns([], [], {}), resolve4: () => Promise.reject(new Error('ESERVFAIL')) };
    await assert.rejects(
      discoverKubernetesAgents({ service: 'x.svc', port: 1 }, dns),
      /kubernetes\.service x\.svc: DNS lookup failed/,
    );
  });
});

describe('inventory kubernetes:', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-k8s-inv-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('needs no hosts, but agent_tls; refuses bad keys with their place', () => {
    const inv = parseInventory('kubernetes: { service: a.b.svc, port: 7443 }\nagent_tls: insecure\n', {
      source: '/x.yaml',
    });
    assert.deepEqual(inv.kubernetes, { service: 'a.b.svc', port: 7443 });
    assert.throws(
      () => parseInventory('kubernetes: { service: "a b", port: 0, extra: 1 }\n', { source: '/x.yaml' }),
      (err) =>
        err instanceof FleetError &&
        /kubernetes\.extra: unknown key/.test(err.message) &&
        /kubernetes\.service: expected the headless Service's DNS name/.test(err.message) &&
        /kubernetes\.port: expected an integer in 1\.\.65535, got 0/.test(err.message) &&
        /hosts: required \(or `kubernetes`\)/.test(err.message),
    );
  });

  it('loadFleet adds the discovered agents beside the file hosts', async () => {
    const file = join(tmp, 'fleetls.yaml');
    writeFileSync(
      file,
      'hosts:\n  bastion: { ssh: bastion }\nkubernetes: { service: agents.svc, port: 7443 }\nagent_tls: insecure\n',
    );
    const fleet = await loadFleet({
      inventoryPath: file,
      env: {},
      logger: pino({ level: 'silent' }),
      resolver: fakeDns(['10.1.0.7'], ['fd00::7'], { '10.1.0.7': ['node-7.internal'] }),
    });
    try {
      assert.deepEqual(
        fleet.hosts().map((h) => [h.name, h.via, h.address]),
        [
          ['bastion', 'ssh', 'bastion'],
          ['fd00--7', 'agent', '[fd00::7]:7443'],
          ['node-7', 'agent', '10.1.0.7:7443'],
        ],
      );
    } finally {
      await fleet.close();
    }
  });

  it('re-lists the agents every KUBERNETES_REFRESH_MS: a new pod joins, a gone one leaves, a moved one is dialled anew', async () => {
    const file = join(tmp, 'relist.yaml');
    writeFileSync(
      file,
      'hosts:\n  bastion: { ssh: bastion }\nkubernetes: { service: agents.svc, port: 7443 }\nagent_tls: insecure\n',
    );
    // The cluster's DNS as the test changes it: A records and PTR names.
    let a = ['10.1.0.1', '10.1.0.2'];
    const ptr: Record<string, string[]> = { '10.1.0.1': ['node-1.internal'], '10.1.0.2': ['node-2.internal'] };
    const dns: Resolver = { ...fakeDns([], [], {}), resolve4: async () => a, reverse: async (ip) => ptr[ip] ?? [] };
    const dialled: string[] = [];
    const agent = ({ agent: address }: { agent?: string }) => {
      dialled.push(address ?? '');
      return { via: 'agent' as const, close() {} } as never;
    };
    mock.timers.enable({ apis: ['setInterval'] });
    const fleet = await loadFleet({
      inventoryPath: file,
      env: {},
      logger: pino({ level: 'silent' }),
      resolver: dns,
      factories: { agent },
    });
    try {
      const names = () => fleet.hosts().map((h) => `${h.name}=${h.address}`);
      assert.deepEqual(names(), ['bastion=bastion', 'node-1=10.1.0.1:7443', 'node-2=10.1.0.2:7443']);
      fleet.backend('node-1');
      // node-2's pod is gone, node-1's was replaced (a new IP), node-3 joined.
      a = ['10.1.0.11', '10.1.0.3'];
      ptr['10.1.0.11'] = ['node-1.internal'];
      ptr['10.1.0.3'] = ['node-3.internal'];
      mock.timers.tick(KUBERNETES_REFRESH_MS - 1);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        names(),
        ['bastion=bastion', 'node-1=10.1.0.1:7443', 'node-2=10.1.0.2:7443'],
        'not before the interval',
      );
      mock.timers.tick(1);
      // The re-listing's DNS answers are promises: let them settle.
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      assert.deepEqual(names(), ['bastion=bastion', 'node-1=10.1.0.11:7443', 'node-3=10.1.0.3:7443']);
      assert.throws(() => fleet.backend('node-2'), /unknown host 'node-2'/);
      fleet.backend('node-1');
      assert.deepEqual(dialled, ['10.1.0.1:7443', '10.1.0.11:7443']);
    } finally {
      await fleet.close();
      mock.timers.reset();
    }
  });

  it('a failed re-listing keeps the last list', async () => {
    let fail = false;
    const dns: Resolver = {
      ...fakeDns(['10.2.0.1'], [], {}),
      resolve4: () => (fail ? Promise.reject(new Error('ESERVFAIL')) : Promise.resolve(['10.2.0.1'])),
    };
    const discovery = new KubernetesDiscovery({ service: 'agents.svc', port: 1 }, dns);
    const first = await discovery.refresh();
    fail = true;
    await assert.rejects(discovery.refresh(), /DNS lookup failed/);
    assert.equal(discovery.hosts(), first);
    assert.deepEqual(
      discovery.hosts().map((h) => h.agent),
      ['10.2.0.1:1'],
    );
  });
});
