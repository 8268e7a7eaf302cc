// The agent on a Unix socket, as real processes: no TCP port at all, the socket's mode and
// group decide who may connect (a user outside the group is refused by the kernel), the
// token still applies, a stale socket is replaced and a live one or a plain file is not,
// and the socket is gone after a clean exit. Needs root (a second user, chgrp).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { AGENT_MAIN, agentClient, healthCheck, startAgent, walkAll } from '../helpers/agent-process.js';
import { socketInodes, tcpListenersOf } from '../helpers/proc-sockets.js';

function gidOf(group: string): number {
  return Number(execFileSync('getent', ['group', group], { encoding: 'utf8' }).split(':')[2]);
}

/** Runs the agent to its exit (it must fail) and returns its stderr. */
function failingAgent(args: string[]): { status: number | null; stderr: string } {
  // Never this machine's /etc/fleetls/agent.yaml: the package tests install one meanwhile.
  const r = spawnSync(process.execPath, [AGENT_MAIN, '--config', '/dev/null', ...args], {
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: r.status, stderr: r.stderr };
}

describe('agent on a Unix socket', () => {
  let dir: string;
  let tree: string;
  before(() => {
    assert.equal(process.getuid?.(), 0, 'this test needs root (a second user connects, the socket is chgrp-ed)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-unix-'));
    fs.chmodSync(dir, 0o755);
    tree = path.join(dir, 'tree');
    fs.mkdirSync(path.join(tree, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(tree, 'sub/file.txt'), 'hello');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves on the socket with its mode and group, holds no TCP listener, and removes the socket at exit', async () => {
    const sock = path.join(dir, 'agent.sock');
    const agent = await startAgent({ allow: [tree], socket: sock, args: ['--socket-group', 'daemon'] });
    try {
      const st = fs.statSync(sock);
      assert.ok(st.isSocket());
      assert.equal(st.mode & 0o777, 0o660);
      assert.equal(st.gid, gidOf('daemon'));
      assert.ok(socketInodes(agent.pid).length > 0, 'the agent holds its Unix socket');
      assert.deepEqual(tcpListenersOf(agent.pid), [], 'the agent listens on no TCP port');
      assert.equal(await healthCheck(agent.address), 'SERVING');
      const client = agentClient(agent.address);
      try {
        const r = await walkAll(client, { path: tree, maxDepth: 3 });
        assert.deepEqual(
          r.rows.map((row) => (row.kind === 'entry' ? row.entry.path.toString() : row.kind)),
          ['sub', 'sub/file.txt'],
        );
      } finally {
        client.close();
      }
      // A user outside the socket's group is refused by the kernel, before any gRPC.
      const other = spawnSync(
        process.execPath,
        [
          '-e',
          `require('net').connect(${JSON.stringify(sock)}).on('connect',()=>process.exit(0)).on('error',e=>{console.log(e.code);process.exit(3)})`,
        ],
        { uid: 65534, gid: 65534, encoding: 'utf8' },
      );
      assert.equal(other.status, 3);
      assert.equal(other.stdout.trim(), 'EACCES');
    } finally {
      assert.equal(await agent.stop(), 0);
    }
    assert.equal(fs.existsSync(sock), false, 'the socket is removed on exit');
  });

  it('still requires the bearer token when one is set', async () => {
    const sock = path.join(dir, 'token.sock');
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'unix-s3cret\n', { mode: 0o600 });
    const agent = await startAgent({
      allow: [tree],
      socket: sock,
      args: ['--socket-group', 'daemon', '--token-file', tokenFile],
    });
    const client = agentClient(agent.address);
    try {
      await assert.rejects(walkAll(client, { path: tree }), (e: grpc.ServiceError) => {
        return e.code === grpc.status.UNAUTHENTICATED && /missing bearer token/.test(e.details);
      });
      const md = new grpc.Metadata();
      md.set('authorization', 'Bearer unix-s3cret');
      const r = await walkAll(client, { path: tree }, md);
      assert.equal(r.summary.entriesSent, r.rows.length);
      assert.ok(r.rows.length > 0);
    } finally {
      client.close();
      await agent.stop();
    }
  });

  it('replaces a stale socket, and refuses a live one, a plain file and a missing group', async () => {
    const sock = path.join(dir, 'stale.sock');
    const first = await startAgent({ allow: [tree], socket: sock, args: ['--socket-group', 'daemon'] });
    // SIGKILL: no cleanup, the socket file stays behind with nothing listening.
    await first.stop('SIGKILL');
    assert.ok(fs.statSync(sock).isSocket(), 'a killed agent leaves its socket');
    const second = await startAgent({ allow: [tree], socket: sock, args: ['--socket-group', 'daemon'] });
    try {
      assert.equal(await healthCheck(second.address), 'SERVING');
      const live = failingAgent(['--listen', `unix:${sock}`, '--socket-group', 'daemon']);
      assert.equal(live.status, 1);
      assert.match(live.stderr, /listen: another process is listening on .*stale\.sock/);
      assert.equal(await healthCheck(second.address), 'SERVING', 'the live agent keeps its socket');
    } finally {
      await second.stop();
    }

    const file = path.join(dir, 'not-a-socket');
    fs.writeFileSync(file, 'keep me');
    const plain = failingAgent(['--listen', `unix:${file}`, '--socket-group', 'daemon']);
    assert.equal(plain.status, 1);
    assert.match(plain.stderr, /listen: .*not-a-socket exists and is not a socket; refusing to replace it/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep me');

    const noGroup = failingAgent(['--listen', `unix:${path.join(dir, 'g.sock')}`, '--socket-group', 'fleetls-nosuch']);
    assert.equal(noGroup.status, 1);
    assert.match(noGroup.stderr, /socket_group: no group named 'fleetls-nosuch'/);
    assert.equal(fs.existsSync(path.join(dir, 'g.sock')), false);

    const noDir = failingAgent(['--listen', `unix:${path.join(dir, 'nodir/a.sock')}`, '--socket-group', 'daemon']);
    assert.equal(noDir.status, 1);
    assert.match(noDir.stderr, /listen: directory .*nodir does not exist/);
  });
});
