// A refusal tells nothing about the outside (issue 35, F1): a path that leads out of the
// allowed roots is refused naming the path asked for, never where it led, and a lookup
// never goes past the first outside name, so `X/..` through an outside X answers the same
// whether X exists or not. On the three routes a path meets: real agents with the native
// module and with node:fs (FLEETLS_NATIVE=0), and the gateway's embedded backend, asked
// through the gateway CLI; and on the agents' walks that follow symlinks.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Entry } from '@fleetls/core';
import { makeTree } from '@fleetls/testkit';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { fleetls } from '../helpers/cli.js';

let work: string;
let root: string;
let out: string;
let inventory: string;
const agents: { host: string; agent: AgentProcess }[] = [];

before(async () => {
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-outside-')));
  root = path.join(work, 'root');
  out = path.join(work, 'out');
  makeTree(out, [
    ['SECRET', 'the outside'],
    ['present', { dir: true }],
    // The first probe: a link inside to an outside link, whose target is the secret.
    ['hop', { link: path.join(out, 'SECRET') }],
  ]);
  makeTree(root, [
    ['chain', { link: path.join(out, 'hop') }],
    // The second: `X/..` through an outside name, with X present and absent.
    // (Written out: path.join would take the '..' away.)
    ['p-present', { link: `${out}/present/..` }],
    ['p-absent', { link: `${out}/absent/..` }],
  ]);
  for (const [host, env] of [
    ['native', {}],
    ['procfd', { FLEETLS_NATIVE: '0' }],
  ] as const) {
    agents.push({ host, agent: await startAgent({ allow: [root], env }) });
  }
  inventory = path.join(work, 'fleet.yaml');
  fs.writeFileSync(
    inventory,
    'hosts:\n' +
      agents.map(({ host, agent }) => `  ${host}: { agent: "${agent.address}" }\n`).join('') +
      `  localhost: { embedded: { allow: ["${root}"] } }\n` +
      'agent_tls: insecure\n',
  );
});

after(async () => {
  for (const { agent } of agents) await agent.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const HOSTS = ['native', 'procfd', 'localhost'];

/** `fleetls tree HOST:PATH --json`: the host's status and message (its elapsed time left out). */
async function treeAnswer(host: string, p: string): Promise<{ status: unknown; message: unknown; text: string }> {
  const r = await fleetls(['tree', `${host}:${p}`, '--json'], { cwd: work, env: { FLEETLS_INVENTORY: inventory } });
  const answer = JSON.parse(r.stdout) as { hosts: { status: unknown; message: unknown }[] };
  const [h] = answer.hosts;
  return { status: h.status, message: h.message, text: r.stdout + r.stderr };
}

describe('a path leading outside the allowed roots', () => {
  for (const host of HOSTS) {
    it(`is refused on ${host} naming the path asked for, never the outside one`, async () => {
      const a = await treeAnswer(host, path.join(root, 'chain'));
      assert.equal(a.status, 'denied', a.text);
      // An agent's message comes prefixed with its address.
      assert.ok(
        (a.message as string).endsWith(`path: ${path.join(root, 'chain')} leads outside the allowed roots`),
        a.text,
      );
      assert.ok(!a.text.includes(out), `the answer names the outside: ${a.text}`);
    });

    it(`answers the same on ${host} whether the outside name before '..' exists or not`, async () => {
      const present = await treeAnswer(host, path.join(root, 'p-present'));
      const absent = await treeAnswer(host, path.join(root, 'p-absent'));
      assert.equal(present.status, 'denied', present.text);
      assert.deepEqual(
        { status: absent.status, message: absent.message },
        {
          status: present.status,
          message: (present.message as string).replace('p-present', 'p-absent'),
        },
      );
    });
  }

  it('is one DENIED row whether it exists or not, in an agent walk that follows symlinks', async () => {
    for (const { host, agent } of agents) {
      const client = agentClient(agent.address);
      try {
        const { rows } = await walkAll(client, { path: root, maxDepth: 1, followSymlinks: true });
        const entries = rows.flatMap((r): Entry[] => (r.kind === 'entry' ? [r.entry] : []));
        const error = (name: string) => entries.find((e) => e.path.toString() === name)?.error;
        assert.deepEqual(error('p-present'), { code: 'DENIED', detail: 'symlink target outside allowed roots' }, host);
        assert.deepEqual(error('p-absent'), error('p-present'), host);
        assert.deepEqual(error('chain'), error('p-present'), host);
      } finally {
        client.close();
      }
    }
  });
});
