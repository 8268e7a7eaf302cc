// Agent first, SSH when the agent is unreachable, end to end: a real agent, a real sshd
// and a port where nothing listens, asked in one `fleetls ls --json` call. Each status
// row must name the transport that answered (or failed last).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { fleetls } from '../helpers/cli.js';
import { type Sshd, sshInventory, startSshd } from '../helpers/sshd.js';
import { suiteFixture } from '../helpers/suite-fixture.js';

/**
 * A real sshd, an agent serving a tree of two files in its directory, and an inventory of
 * three hosts: the agent up; the agent down, SSH up; both down (nothing listens on either port).
 */
async function startFallbackFleet(): Promise<{ sshd: Sshd; agent: AgentProcess; tree: string; inventory: string }> {
  const sshd = await startSshd();
  const tree = join(sshd.dir, 'fallback-tree');
  mkdirSync(tree, { recursive: true, mode: 0o755 });
  writeFileSync(join(tree, 'one.txt'), '1');
  writeFileSync(join(tree, 'two.txt'), '22');
  const agent = await startAgent({ allow: [tree] }).catch(async (err) => {
    await sshd.stop();
    throw err;
  });
  const dead = await freePort();
  const deadSsh = await freePort();
  const ssh = sshInventory(sshd);
  const inventory = join(sshd.dir, 'fallback.yaml');
  writeFileSync(
    inventory,
    [
      'hosts:',
      `  agent-up: { agent: "${agent.address}", ssh: ${ssh} }`,
      `  agent-down: { agent: "127.0.0.1:${dead}", ssh: ${ssh} }`,
      `  both-down: { agent: "127.0.0.1:${dead}", ssh: ${sshInventory(sshd, { port: deadSsh })} }`,
      'agent_tls: insecure',
      '',
    ].join('\n'),
  );
  return { sshd, agent, tree, inventory };
}

describe('agent → SSH fallback through the CLI', () => {
  const fleet = suiteFixture(startFallbackFleet, async ({ agent, sshd }) => {
    await agent.stop();
    await sshd.stop();
  });

  it('answers over the agent when it is up, over SSH when it is not, and says which', async () => {
    const { sshd, tree, inventory } = fleet();
    const r = await fleetls(['--inventory', inventory, 'ls', `all:${tree}`, '--json'], { cwd: sshd.dir });
    assert.equal(r.code, 1, r.stderr);
    const a = JSON.parse(r.stdout);
    const rows = a.hosts.map((h: { host: string; status: string; via: string }) => [h.host, h.status, h.via]);
    assert.deepEqual(rows, [
      ['agent-up', 'ok', 'agent'],
      ['agent-down', 'ok', 'ssh'],
      ['both-down', 'unreachable', 'ssh'],
    ]);
    const failed = a.hosts.find((h: { host: string }) => h.host === 'both-down');
    assert.match(failed.message, /\(agent: agent 127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    const items = a.items.map((i: { host: string; path: string }) => `${i.host} ${i.path}`).sort();
    assert.deepEqual(items, ['agent-down one.txt', 'agent-down two.txt', 'agent-up one.txt', 'agent-up two.txt']);
  });
});
