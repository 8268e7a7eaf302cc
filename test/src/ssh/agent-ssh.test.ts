// The agent behind the host's sshd, end to end: a real OpenSSH sshd, a real agent on a
// Unix socket (its own user, the SSH login's group, no TCP port), the gateway's fleet
// with `agent: "ssh:PATH"`. One SSH connection carries the agent's calls and the `find`
// fallback; each way the socket can be refused (no socket, no permission, sshd's
// AllowStreamLocalForwarding no) falls back to find with a note that names the problem.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type HostBackend, resolveWalkRequest } from '@fleetls/core';
import { createLogger, type LoadedFleet, loadFleet, viaOf } from '@fleetls/gateway';
import { makeTree } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { ensureUser, type Sshd, sshInventory, startSshd } from '../helpers/sshd.js';
import { drain } from '../helpers/walks.js';

const AGENT_USER = 'fleetls-agent-t';
const logger = createLogger({ name: 'agent-ssh-test', level: 'silent' });
const signal = () => AbortSignal.timeout(20_000);

interface Host {
  sshd: Sshd;
  run: string;
  fleet: LoadedFleet;
  close(): Promise<void>;
}

/** An sshd, a socket directory the agent user owns, and a fleet with one agent+ssh host per socket name. */
async function host(base: string, sockets: Record<string, string>, extraConfig?: string[]): Promise<Host> {
  const sshd = await startSshd({ extraConfig });
  const agentUser = ensureUser(AGENT_USER);
  const run = mkdtempSync(join(base, 'run-'));
  chownSync(run, agentUser.uid, sshd.gid);
  chmodSync(run, 0o750);
  const ssh = sshInventory(sshd);
  const inventory = join(run, 'fleetls.yaml');
  writeFileSync(
    inventory,
    [
      'hosts:',
      ...Object.entries(sockets).map(([name, sock]) => `  ${name}: { ssh: ${ssh}, agent: "ssh:${join(run, sock)}" }`),
      '',
    ].join('\n'),
  );
  const fleet = await loadFleet({ inventoryPath: inventory, logger, env: {} });
  return {
    sshd,
    run,
    fleet,
    async close() {
      await fleet.close();
      await sshd.stop();
    },
  };
}

/** The agent as its own user, with the SSH login's group (or `group`) as its primary group. */
function unixAgent(h: Host, tree: string, sock: string, group?: { name: string; gid: number }): Promise<AgentProcess> {
  const u = ensureUser(AGENT_USER);
  return startAgent({
    allow: [tree],
    socket: join(h.run, sock),
    uid: u.uid,
    gid: group?.gid ?? h.sshd.gid,
    args: ['--socket-group', group?.name ?? String(h.sshd.gid)],
  });
}

async function listing(b: HostBackend, path: string) {
  const { rows, summary } = await drain(b.walk(resolveWalkRequest({ path, maxDepth: 2 }), signal()));
  return {
    names: rows.flatMap((r) => (r.kind === 'entry' ? [r.entry.path.toString()] : [])),
    via: viaOf(summary, b),
    notes: summary.notes ?? [],
  };
}

describe('agent through the host sshd (agent+ssh)', () => {
  let base: string;
  let tree: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'fleetls-agent-ssh-'));
    chmodSync(base, 0o755);
    tree = join(base, 'tree');
    makeTree(tree, { 'sub/a.txt': 'a', 'b.txt': 'bb' });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('answers through the socket over one SSH connection, and falls back to find on it when the socket goes', async () => {
    const h = await host(base, { tunnel: 'agent.sock', stale: 'stale.sock' });
    let agent: AgentProcess | undefined;
    try {
      agent = await unixAgent(h, tree, 'agent.sock');
      assert.deepEqual(
        h.fleet.hosts().map((x) => [x.name, x.via]),
        [
          ['tunnel', 'agent+ssh'],
          ['stale', 'agent+ssh'],
        ],
      );
      const b = h.fleet.backend('tunnel');
      const up = await listing(b, tree);
      assert.deepEqual(up, { names: ['b.txt', 'sub', 'sub/a.txt'], via: 'agent+ssh', notes: [] });
      const st = await b.stat(join(tree, 'b.txt'), false, signal());
      assert.equal(st.entry.size, 2);
      assert.equal(viaOf(st, b), 'agent+ssh');
      const probe = await b.probe(signal());
      assert.match(probe.version, /^\d+\.\d+\.\d+/);
      assert.equal(b.via, 'agent+ssh');

      assert.equal(await agent.stop(), 0);
      const down = await listing(b, tree);
      assert.deepEqual(down.names, ['b.txt', 'sub', 'sub/a.txt']);
      assert.equal(down.via, 'ssh');
      assert.equal(down.notes.length, 1);
      assert.match(
        down.notes[0],
        /^agent\+ssh not used \(.*agent socket .*agent\.sock: no such socket visible to SSH user fleetls-ssh/,
      );
      assert.equal(h.sshd.acceptedConnections(), 1, 'agent calls, diagnosis and find share one SSH connection');

      // A killed agent leaves its socket behind, with nothing listening.
      const killed = await unixAgent(h, tree, 'stale.sock');
      await killed.stop('SIGKILL');
      const stale = await listing(h.fleet.backend('stale'), tree);
      assert.equal(stale.via, 'ssh');
      assert.match(stale.notes[0], /stale\.sock: nothing listens on it \(a stale socket: is fleetls-agent running\?\)/);
    } finally {
      await agent?.stop();
      await h.close();
    }
  });

  it("answers from an agent in a network namespace of its own (the unit drop-in's PrivateNetwork=yes)", async () => {
    const h = await host(base, { isolated: 'iso.sock' });
    const u = ensureUser(AGENT_USER);
    let agent: AgentProcess | undefined;
    try {
      // A new network namespace holds only a downed loopback: no address, no TCP, from anywhere.
      agent = await startAgent({
        allow: [tree],
        socket: join(h.run, 'iso.sock'),
        wrap: ['unshare', '--net', '--', 'setpriv', `--reuid=${u.uid}`, `--regid=${h.sshd.gid}`, '--clear-groups'],
        args: ['--socket-group', String(h.sshd.gid)],
      });
      assert.notEqual(readlinkSync(`/proc/${agent.pid}/ns/net`), readlinkSync('/proc/self/ns/net'));
      const r = await listing(h.fleet.backend('isolated'), tree);
      assert.deepEqual(r, { names: ['b.txt', 'sub', 'sub/a.txt'], via: 'agent+ssh', notes: [] });
    } finally {
      await agent?.stop();
      await h.close();
    }
  });

  it('names the group the SSH user lacks, and sshd refusing stream forwarding, and still answers with find', async () => {
    const h = await host(base, { locked: 'locked.sock' });
    // The socket's group is one the SSH login is not in.
    let agent: AgentProcess | undefined;
    try {
      agent = await unixAgent(h, tree, 'locked.sock', { name: 'daemon', gid: 1 });
      const r = await listing(h.fleet.backend('locked'), tree);
      assert.equal(r.via, 'ssh');
      assert.deepEqual(r.names, ['b.txt', 'sub', 'sub/a.txt']);
      assert.match(
        r.notes[0],
        /owned by fleetls-agent-t:daemon \(srw-rw----\), and SSH user fleetls-ssh .* add fleetls-ssh to group daemon/,
      );
    } finally {
      await agent?.stop();
      await h.close();
    }

    const n = await host(base, { noforward: 'nf.sock' }, ['AllowStreamLocalForwarding no']);
    let agent2: AgentProcess | undefined;
    try {
      agent2 = await unixAgent(n, tree, 'nf.sock');
      const r = await listing(n.fleet.backend('noforward'), tree);
      assert.equal(r.via, 'ssh');
      assert.deepEqual(r.names, ['b.txt', 'sub', 'sub/a.txt']);
      assert.match(
        r.notes[0],
        /the agent listens, but sshd refuses stream forwarding: set AllowStreamLocalForwarding yes \(or local\) in sshd_config/,
      );
    } finally {
      await agent2?.stop();
      await n.close();
    }
  });
});
