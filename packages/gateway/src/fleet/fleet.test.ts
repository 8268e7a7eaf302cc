import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FleetError, type HostBackend, type Row, resolveWalkRequest, type WalkSummary } from '@fleetls/core';
import { createFallbackBackend, viaOf } from '@fleetls/hosts';
import { parseInventory } from '../inventory/inventory.js';
import { createLogger } from '../logger.js';
import { DeadBackend, dir, file, MemoryBackend } from '../testing/fake-fleet.js';
import { createFleet, loadFleet, type TransportFactories } from './fleet.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const signal = () => new AbortController().signal;
const TREE = dir({ srv: dir({ a: file(1), b: file(2) }) });

async function drain(gen: AsyncGenerator<Row[], WalkSummary, void>): Promise<{ rows: Row[]; summary: WalkSummary }> {
  const rows: Row[] = [];
  for (;;) {
    const r = await gen.next();
    if (r.done) return { rows, summary: r.value };
    rows.push(...r.value);
  }
}

function failing(code: FleetError['code'], message: string): HostBackend {
  const fail = () => Promise.reject(new FleetError(code, message));
  return {
    via: 'agent',
    // biome-ignore lint/correctness/useYield: it fails before any row
    async *walk() {
      throw new FleetError(code, message);
    },
    stat: fail,
    probe: fail,
    close() {},
  };
}

/** Factories that count what they built, and the roots each embedded backend was allowed. */
function counting() {
  const made: string[] = [];
  const roots: (string[] | undefined)[] = [];
  const f: TransportFactories = {
    embedded: (spec) => {
      made.push('local');
      roots.push(spec.embedded?.allow);
      return new MemoryBackend(TREE, { via: 'embedded' });
    },
    agent: (spec) => {
      made.push(`agent ${spec.agent}`);
      return spec.agent?.startsWith('dead') ? new DeadBackend() : new MemoryBackend(TREE);
    },
    ssh: (spec) => {
      made.push(`ssh ${spec.ssh?.host}`);
      return new MemoryBackend(TREE, { via: 'ssh' });
    },
    'agent+ssh': (spec) => {
      made.push(`agent+ssh ${spec.ssh?.host} ${spec.agentSocket}`);
      const agent = spec.agentSocket?.includes('dead')
        ? failing('unavailable', 'agent socket /run/dead.sock: no such socket')
        : new MemoryBackend(TREE, { via: 'agent+ssh' });
      return { agent, find: new MemoryBackend(TREE, { via: 'ssh' }) };
    },
  };
  return { made, roots, f };
}

const INVENTORY = `
hosts:
  web-1: { agent: "web1:7443", labels: { role: web } }
  db-1: { ssh: { host: db1.example.com, user: fleet, port: 2222 } }
  edge: { agent: "dead:7443", ssh: edge.example.com }
groups: { prod: [web-1, db-1] }
agent_tls: insecure
`;

describe('createFleet', () => {
  it('without an inventory has one host, localhost, embedded', async () => {
    const { made, f } = counting();
    const fleet = createFleet(undefined, { logger, factories: f });
    assert.deepEqual(fleet.hosts(), [
      { name: 'localhost', via: 'embedded', address: 'embedded', labels: {}, groups: [], sshFallback: false },
    ]);
    assert.deepEqual(
      fleet.select('all').map((h) => h.name),
      ['localhost'],
    );
    const b = fleet.backend('localhost');
    assert.equal(b, fleet.backend('localhost'));
    assert.deepEqual(made, ['local']);
    assert.throws(() => fleet.select('web-1'), /unknown host 'web-1'; known hosts: localhost/);
    await fleet.close();
    assert.equal((b as MemoryBackend).closed, true);
  });

  it('maps inventory hosts to transports and reuses one backend per host', async () => {
    const { made, f } = counting();
    const fleet = createFleet(parseInventory(INVENTORY, { source: '/inv/fleetls.yaml' }), { logger, factories: f });
    assert.deepEqual(
      fleet.hosts().map((h) => [h.name, h.via, h.address, h.sshFallback]),
      [
        ['web-1', 'agent', 'web1:7443', false],
        ['db-1', 'ssh', 'fleet@db1.example.com:2222', false],
        ['edge', 'agent', 'dead:7443', true],
      ],
    );
    assert.deepEqual(made, [], 'backends are created lazily');
    for (const h of ['web-1', 'db-1', 'edge', 'web-1', 'db-1', 'edge']) fleet.backend(h);
    assert.deepEqual(made, ['agent web1:7443', 'ssh db1.example.com', 'agent dead:7443']);
    assert.deepEqual(
      fleet.select('@prod').map((h) => h.name),
      ['web-1', 'db-1'],
    );
    await fleet.close();
    assert.throws(() => fleet.backend('web-1'), /closed/);
  });

  it('reaches an agent+ssh host through its agent, and through find with a note when its socket is refused', async () => {
    const { made, f } = counting();
    const inv = parseInventory(
      `hosts:
  tunnel: { ssh: { host: t1, user: ops }, agent: "ssh:/run/fleetls/agent.sock" }
  shut: { ssh: { host: t2 }, agent: "ssh:/run/dead.sock" }
`,
      { source: '/inv/fleetls.yaml' },
    );
    const fleet = createFleet(inv, { logger, factories: f });
    assert.deepEqual(
      fleet.hosts().map((h) => [h.name, h.via, h.address, h.sshFallback]),
      [
        ['tunnel', 'agent+ssh', 'ops@t1:/run/fleetls/agent.sock', true],
        ['shut', 'agent+ssh', 't2:/run/dead.sock', true],
      ],
    );
    const tunnel = fleet.backend('tunnel');
    assert.equal(tunnel.via, 'agent+ssh');
    const up = await drain(tunnel.walk(resolveWalkRequest({ path: '/srv' }), signal()));
    assert.equal(viaOf(up.summary, tunnel), 'agent+ssh');
    assert.equal(up.summary.notes, undefined);

    const shut = fleet.backend('shut');
    const down = await drain(shut.walk(resolveWalkRequest({ path: '/srv' }), signal()));
    assert.equal(down.rows.length, 2);
    assert.equal(viaOf(down.summary, shut), 'ssh');
    assert.deepEqual(down.summary.notes, [
      'agent+ssh not used (agent socket /run/dead.sock: no such socket); listed with find over SSH',
    ]);
    const st = await shut.stat('/srv', false, signal());
    assert.deepEqual(st.notes, [
      'agent+ssh not used (agent socket /run/dead.sock: no such socket); listed with find over SSH',
    ]);
    assert.deepEqual(made, ['agent+ssh t1 /run/fleetls/agent.sock', 'agent+ssh t2 /run/dead.sock']);
    await fleet.close();
  });

  it('has no localhost unless the inventory names it, and names only selectable hosts in errors', async () => {
    const { made, f } = counting();
    const fleet = createFleet(parseInventory(INVENTORY, { source: '/inv/fleetls.yaml' }), { logger, factories: f });
    assert.throws(
      () => fleet.select('localhost'),
      /^FleetError: unknown host 'localhost'; known hosts: web-1, db-1, edge$/,
    );
    assert.throws(() => fleet.select('localhost,web-1'), /known hosts: web-1, db-1, edge$/);
    assert.throws(() => fleet.backend('localhost'), /unknown host 'localhost'/);
    assert.equal(
      fleet.select('all').some((h) => h.name === 'localhost'),
      false,
    );
    assert.deepEqual(made, [], 'no embedded backend was made');
    await fleet.close();
  });

  it('serves the localhost of the inventory under its own roots, in all and list_hosts like any host', async () => {
    const { roots, f: factories } = counting();
    const inv = parseInventory(
      `${INVENTORY}\n`.replace(
        'hosts:\n',
        'hosts:\n  localhost: { embedded: { allow: [/var/log, /srv] }, labels: { role: web } }\n',
      ),
      { source: '/inv/fleetls.yaml' },
    );
    const fleet = createFleet(inv, { logger, factories, localAllow: ['/ignored'] });
    assert.deepEqual(
      fleet.hosts().map((h) => [h.name, h.via]),
      [
        ['localhost', 'embedded'],
        ['web-1', 'agent'],
        ['db-1', 'ssh'],
        ['edge', 'agent'],
      ],
    );
    assert.deepEqual(
      fleet.select('label:role=web').map((h) => h.name),
      ['localhost', 'web-1'],
    );
    assert.equal(fleet.backend('localhost').via, 'embedded');
    assert.deepEqual(roots, [['/var/log', '/srv']]);
    await fleet.close();
  });

  it('without an inventory, localhost is embedded under --allow roots, or / when none are given', async () => {
    const { roots, f: factories } = counting();
    for (const localAllow of [['/var/log'], undefined]) {
      const fleet = createFleet(undefined, { logger, factories, localAllow });
      fleet.backend('localhost');
      await fleet.close();
    }
    assert.deepEqual(roots, [['/var/log'], undefined]);
  });

  it('falls back to SSH for a host whose agent is unreachable, and says so in via', async () => {
    const { made, f } = counting();
    const fleet = createFleet(parseInventory(INVENTORY, { source: '/inv/fleetls.yaml' }), { logger, factories: f });
    const edge = fleet.backend('edge');
    assert.equal(edge.via, 'agent');
    const { rows, summary } = await drain(edge.walk(resolveWalkRequest({ path: '/srv' }), signal()));
    assert.equal(rows.length, 2);
    assert.equal(viaOf(summary, edge), 'ssh');
    assert.equal(edge.via, 'ssh');
    assert.deepEqual(made, ['agent dead:7443', 'ssh edge.example.com']);
    await fleet.close();
  });
});

describe('createFallbackBackend', () => {
  const ssh = () => new MemoryBackend(TREE, { via: 'ssh' });

  it('uses the agent while it answers', async () => {
    const agent = new MemoryBackend(TREE);
    let sshMade = 0;
    const b = createFallbackBackend(
      agent,
      () => {
        sshMade++;
        return ssh();
      },
      logger,
    );
    const { summary } = await drain(b.walk(resolveWalkRequest({ path: '/srv' }), signal()));
    assert.equal(viaOf(summary, b), 'agent');
    const info = await b.stat('/srv/a', false, signal());
    assert.equal(viaOf(info, b), 'agent');
    assert.deepEqual(await b.probe(signal()), { version: 'fake-1.0', via: 'agent' });
    assert.equal(sshMade, 0);
  });

  it('goes to SSH on unavailable, stays there for a while, then tries the agent again', async () => {
    let t = 0;
    let agentCalls = 0;
    const dead = new DeadBackend();
    const agent: HostBackend = {
      via: 'agent',
      walk: () => {
        agentCalls++;
        return dead.walk();
      },
      stat: () => {
        agentCalls++;
        return dead.stat();
      },
      probe: () => {
        agentCalls++;
        return dead.probe();
      },
      close() {},
    };
    const b = createFallbackBackend(agent, ssh, logger, () => t);
    assert.equal(viaOf(await b.stat('/srv/a', false, signal()), b), 'ssh');
    assert.equal(agentCalls, 1);
    assert.deepEqual(await b.probe(signal()), { version: 'fake-1.0', via: 'ssh' });
    assert.equal(agentCalls, 1, 'SSH directly while the agent is believed down');
    t = 60_000;
    await b.stat('/srv/a', false, signal());
    assert.equal(agentCalls, 2, 'the agent is tried again later');
  });

  it('does not fall back on other agent errors', async () => {
    for (const code of ['unauthenticated', 'not_found', 'deadline_exceeded', 'permission_denied'] as const) {
      let sshMade = 0;
      const b = createFallbackBackend(
        failing(code, `agent said ${code}`),
        () => {
          sshMade++;
          return ssh();
        },
        logger,
      );
      await assert.rejects(b.stat('/x', false, signal()), (e: unknown) => {
        assert.ok(e instanceof FleetError);
        assert.equal(e.code, code);
        assert.equal(viaOf(e, b), 'agent');
        return true;
      });
      await assert.rejects(drain(b.walk(resolveWalkRequest({ path: '/x' }), signal())), { code });
      assert.equal(sshMade, 0);
    }
  });

  it('reports both failures when SSH fails too, with via ssh', async () => {
    const b = createFallbackBackend(new DeadBackend(), () => failing('unauthenticated', 'host key mismatch'), logger);
    await assert.rejects(drain(b.walk(resolveWalkRequest({ path: '/x' }), signal())), (e: unknown) => {
      assert.ok(e instanceof FleetError);
      assert.equal(e.code, 'unauthenticated');
      assert.equal(e.message, 'host key mismatch (agent: connect ECONNREFUSED 127.0.0.1:9)');
      assert.equal(viaOf(e, b), 'ssh');
      assert.equal(b.via, 'ssh');
      return true;
    });
  });

  it('stops the agent walk when the consumer stops early', async () => {
    const agent = new MemoryBackend(
      dir({ d: dir(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, file(i)]))) }),
      { batch: 10 },
    );
    let finished = false;
    const wrapped: HostBackend = {
      ...agent,
      via: 'agent',
      walk: async function* (req, s) {
        try {
          return yield* agent.walk(req, s);
        } finally {
          finished = true;
        }
      },
      stat: agent.stat.bind(agent),
      probe: agent.probe.bind(agent),
      close() {},
    };
    const b = createFallbackBackend(wrapped, ssh, logger);
    const gen = b.walk(resolveWalkRequest({ path: '/d' }), signal());
    assert.equal((await gen.next()).done, false);
    await gen.return(undefined as never);
    assert.equal(finished, true);
  });
});

describe('loadFleet', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-fleet-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('reads ./fleetls.yaml, and none when FLEETLS_INVENTORY is empty', async () => {
    writeFileSync(join(tmp, 'fleetls.yaml'), 'hosts:\n  box: { ssh: box }\n');
    const withInv = await loadFleet({ env: {}, cwd: tmp, logger });
    assert.deepEqual(
      withInv.hosts().map((h) => h.name),
      ['box'],
    );
    assert.equal(withInv.inventory?.source, join(tmp, 'fleetls.yaml'));
    await withInv.close();
    const none = await loadFleet({ env: { FLEETLS_INVENTORY: '' }, cwd: tmp, logger });
    assert.deepEqual(
      none.hosts().map((h) => h.name),
      ['localhost'],
    );
    assert.equal(none.inventory, undefined);
    await none.close();
  });
});
