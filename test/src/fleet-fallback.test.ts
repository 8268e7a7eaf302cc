// Agent first, SSH when the agent is unreachable, end to end: a real agent, a real sshd
// and a port where nothing listens, asked in one `fleetls ls --json` call. Each status
// row must name the transport that answered (or failed last).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from './helpers/agent-process.js';
import { fleetls } from './helpers/cli.js';
import { type Sshd, sshInventory, startSshd } from './helpers/sshd.js';

describe('agent → SSH fallback through the CLI', () => {
  let sshd: Sshd;
  let agent: AgentProcess;
  let inventory: string;
  let tree: string;

  before(async () => {
    sshd = await startSshd();
    tree = join(sshd.dir, 'fallback-tree');
    mkdirSync(tree, { recursive: true, mode: 0o755 });
    writeFileSync(join(tree, 'one.txt'), '1');
    writeFileSync(join(tree, 'two.txt'), '22');
    agent = await startAgent({ allow: [tree] });
    const dead = await freePort();
    const deadSsh = await freePort();
    const ssh = sshInventory(sshd);
    inventory = join(sshd.dir, 'fallback.yaml');
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
  });
  after(async () => {
    await agent?.stop();
    await sshd?.stop();
  });

  it('answers over the agent when it is up, over SSH when it is not, and says which', async () => {
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
