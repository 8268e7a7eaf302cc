import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FleetError } from '@fleetls/core';
import { pino } from 'pino';
import { loadFleet } from './fleet.js';
import { parseInventory } from './inventory.js';
import { agentHostName, agentHosts, discoverKubernetesAgents, type Resolver } from './inventory-kubernetes.js';

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
});
