// The SSH backend against a real sshd: hostile names listed and stat'ed with nothing run
// remotely, one reused connection, host key and reachability failures classified, and the
// same answers as core's walk over the agent's fs source (run as the same login user).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Row, WalkRequest } from '@fleetls/core';
import { FleetError } from '@fleetls/core';
import { HOSTILE_NAMES as HOSTILE } from '@fleetls/core/testing';
import { createSshBackend, type SshBackend } from '@fleetls/gateway';
import { freePort, makeTree, range, type TreeNode, type TreeSpec, waitFor } from '@fleetls/testkit';
import pino from 'pino';
import { type Sshd, sshTarget, startSshd } from '../helpers/sshd.js';
import { agentWalksAsUser, assertEdgeStats, drain, parityRequests, REMOTE_EDGES, walkReq } from '../helpers/walks.js';

const logger = pino({ level: 'silent' });

const req = walkReq;

const paths = (rows: Row[]) =>
  rows.flatMap((r) => (r.kind === 'entry' ? [r.entry.path.toString('latin1')] : [])).sort();

/** The tree: hostile names, nesting, a big dir, symlinks (loop, dir), an unreadable dir, sparse file. */
function sshTree(): TreeSpec {
  return [
    ...HOSTILE.map((n): [string, TreeNode] => [`hostile/${n}`, n]),
    ['hostile/$(touch PWNED) dir/inner', 'x'],
    [Buffer.from([0xff, 0xfe, 0x0a, 0x41]), 'bytes'],
    ['a/b/c/d/deep', 'deep'],
    ...range(
      5000,
      (i) => `big/f${String(i).padStart(4, '0')}`,
      () => '',
    ),
    ...REMOTE_EDGES,
  ];
}

describe('SSH backend against a real sshd', () => {
  let sshd: Sshd;
  let backend: SshBackend;
  let root: string;
  const signal = new AbortController().signal;

  before(async () => {
    sshd = await startSshd();
    root = join(sshd.dir, 'tree');
    makeTree(root, sshTree(), { uid: sshd.uid, gid: sshd.gid });
    backend = createSshBackend(sshTarget(sshd), { logger });
  });
  after(async () => {
    backend?.close();
    await sshd?.stop();
  });

  it('lists hostile names exactly and runs nothing remotely', async () => {
    const { rows } = await drain(backend.walk(req(join(root, 'hostile')), signal));
    assert.deepEqual(paths(rows), [...HOSTILE, '$(touch PWNED) dir', '$(touch PWNED) dir/inner'].sort());
    const top = await drain(backend.walk(req(root, { maxDepth: 1 }), signal));
    assert.ok(paths(top.rows).includes(Buffer.from([0xff, 0xfe, 0x0a, 0x41]).toString('latin1')));
    for (const d of [sshd.dir, root, join(root, 'hostile'), '/', `/home/${sshd.user}`])
      assert.equal(existsSync(join(d, 'PWNED')), false, `PWNED in ${d}`);
  });

  it('lists a hostile start path', async () => {
    const { rows } = await drain(backend.walk(req(join(root, 'hostile', '$(touch PWNED) dir')), signal));
    assert.deepEqual(paths(rows), ['inner']);
    assert.equal(existsSync(join(root, 'hostile', 'PWNED')), false);
  });

  it('stats hostile names; newlines are refused before anything is sent', async () => {
    for (const n of HOSTILE) {
      const p = join(root, 'hostile', n);
      if (n.includes('\n')) {
        await assert.rejects(backend.stat(p, false, signal), { code: 'invalid_argument' });
        continue;
      }
      const info = await backend.stat(p, false, signal);
      assert.equal(info.entry.type, 'file');
      assert.equal(info.entry.size, Buffer.byteLength(n));
      assert.equal(info.owner, sshd.user);
    }
    await assertEdgeStats(backend, root, signal);
    assert.equal(existsSync(join(root, 'hostile', 'PWNED')), false);
  });

  it('an unreadable directory is a DENIED row, the rest is listed', async () => {
    const { rows } = await drain(backend.walk(req(root, { maxDepth: 2 }), signal));
    const denied = rows.find((r) => r.kind === 'entry' && r.entry.path.toString() === 'locked' && r.entry.error);
    assert.ok(denied && denied.kind === 'entry');
    assert.equal(denied.entry.error?.code, 'DENIED');
    assert.ok(rows.some((r) => r.kind === 'truncation' && r.truncation.dir.toString() === 'big'));
  });

  it('reuses one connection for every call', async () => {
    await backend.probe(signal);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 ? backend.stat(root, false, signal) : drain(backend.walk(req(root, { maxDepth: 1 }), signal)),
      ),
    );
    assert.equal(backend.connectionsOpened(), 1);
    // sshd logs asynchronously: wait for its line, then check no second connection came.
    await waitFor(() => sshd.acceptedConnections() >= 1, {
      timeoutMs: 5000,
      what: "sshd's accepted-connection log line",
    });
    assert.equal(sshd.acceptedConnections(), 1);
  });

  it('sizes a path before its first ranked walk: a small one is listed by one pipeline', async () => {
    // Its debug lines, to read which listing each walk took; sized against a low bar so the
    // 5000-file directory counts as big.
    const lines: { msg?: string; path?: string; stubs?: boolean; restat?: string; halves?: boolean }[] = [];
    const capture = pino({ level: 'debug' }, { write: (l: string) => lines.push(JSON.parse(l)) });
    const b = createSshBackend(sshTarget(sshd), { logger: capture, smallListing: 100, fullRecords: 10 });
    try {
      const ranked: Partial<WalkRequest> = {
        shape: 'ranked',
        order: 'size',
        direction: 'descending',
        topN: 3,
        types: ['file'],
      };
      const plan = (path: string) => lines.find((l) => l.msg === 'listing plan' && l.path === path);
      const small = join(root, 'a');
      const { rows } = await drain(b.walk(req(small, { ...ranked, maxDepth: 10 }), signal));
      assert.deepEqual(paths(rows), ['b/c/d/deep']);
      assert.equal(plan(small)?.stubs, false, 'a small path not walked before is listed by one pipeline');
      // Between the bars: one pipeline whose kept candidates are stat'ed again in its own exec,
      // hostile names included; the same rows as full records give.
      const medium = join(root, 'hostile');
      const mid = await drain(b.walk(req(medium, { ...ranked, topN: 100 }), signal));
      assert.deepEqual(plan(medium), { ...plan(medium), stubs: true, restat: 'files0', halves: false });
      const full = createSshBackend(sshTarget(sshd), { logger, fullRecords: 1000 });
      try {
        assert.deepEqual(mid.rows, (await drain(full.walk(req(medium, { ...ranked, topN: 100 }), signal))).rows);
      } finally {
        full.close();
      }
      assert.deepEqual(paths(mid.rows), [...HOSTILE, '$(touch PWNED) dir/inner'].sort());
      const big = join(root, 'big');
      const top = await drain(b.walk(req(big, { ...ranked, maxDepth: 1 }), signal));
      assert.equal(paths(top.rows).length, 3);
      // One pipeline still: two halves cost the host more CPU than the stubs of one.
      assert.deepEqual(plan(big), { ...plan(big), stubs: true, restat: 'files0', halves: false }, 'a big one');
    } finally {
      b.close();
    }
  });

  it('a wrong host key is auth, with the SHA256 fingerprint', async () => {
    const kh = join(sshd.dir, 'wrong_known_hosts');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshd.dir, 'other')]);
    const other = execFileSync('cat', [join(sshd.dir, 'other.pub')], { encoding: 'utf8' }).split(' ');
    writeFileSync(kh, `[127.0.0.1]:${sshd.port} ${other[0]} ${other[1]}\n`);
    const b = createSshBackend(sshTarget(sshd, kh), { logger });
    try {
      const err = await backend_err(() => b.probe(signal));
      assert.equal(err.code, 'unauthenticated');
      assert.match(err.message, /host key for 127\.0\.0\.1 is changed/);
      assert.ok(err.message.includes(`ssh-keygen -R '[127.0.0.1]:${sshd.port}' -f ${kh}`), err.message);
      assert.ok(err.message.includes(sshd.hostKeyFingerprint), err.message);
      // Unknown host: empty known_hosts.
      writeFileSync(kh, '');
      const b2 = createSshBackend(sshTarget(sshd, kh), { logger });
      const err2 = await backend_err(() => b2.stat(root, false, signal));
      assert.equal(err2.code, 'unauthenticated');
      assert.ok(err2.message.includes(`is unknown (${sshd.hostKeyFingerprint})`), err2.message);
      b2.close();
      // Off port 22 the message names known_hosts' own [host]:port, the file read, the exact line
      // to add, and a keyscan command; running that command is what makes the host known.
      const name = `[127.0.0.1]:${sshd.port}`;
      assert.ok(err2.message.includes(`no line for ${name} in ${kh}`), err2.message);
      const line = /add the line "([^"]+)"/.exec(err2.message)?.[1] ?? '';
      assert.equal(line, readFileSync(sshd.knownHostsFile, 'utf8').trim());
      const scan = /e\.g\. with: (ssh-keyscan .*)$/.exec(err2.message)?.[1] ?? '';
      assert.equal(scan, `ssh-keyscan -p ${sshd.port} -t ed25519 127.0.0.1 >> ${kh}`);
      execFileSync('sh', ['-c', scan], { stdio: 'ignore' });
      assert.match(readFileSync(kh, 'utf8'), new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port} ssh-ed25519 `));
      const b3 = createSshBackend(sshTarget(sshd, kh), { logger });
      try {
        assert.equal((await b3.stat(root, false, signal)).entry.type, 'dir');
      } finally {
        b3.close();
      }
    } finally {
      b.close();
    }
  });

  it('a refused port is unavailable; a wrong user key is unauthenticated', async () => {
    const b = createSshBackend({ ...sshTarget(sshd), port: await freePort() }, { logger });
    assert.equal((await backend_err(() => b.probe(signal))).code, 'unavailable');
    b.close();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshd.dir, 'stranger')]);
    const c = createSshBackend(
      {
        host: sshd.host,
        port: sshd.port,
        user: sshd.user,
        identityFile: join(sshd.dir, 'stranger'),
        knownHosts: sshd.knownHostsFile,
      },
      { logger },
    );
    assert.equal((await backend_err(() => c.probe(signal))).code, 'unauthenticated');
    c.close();
  });

  it('gives the same rows as core walk over the agent fs source, as the same user', async () => {
    const requests = parityRequests(root, { modifiedCap: 300 });
    const agentSide = agentWalksAsUser(sshd, requests);
    for (const [i, r] of requests.entries()) {
      const ssh = await drain(backend.walk(r, signal));
      const mine = JSON.parse(JSON.stringify({ rows: ssh.rows, summary: { ...ssh.summary, elapsedMs: 0 } }));
      assert.deepEqual(mine, agentSide[i], `request ${i}: ${JSON.stringify(r)}`);
    }
  });
});

async function backend_err(f: () => Promise<unknown>): Promise<FleetError> {
  try {
    await f();
  } catch (err) {
    assert.ok(err instanceof FleetError, String(err));
    return err;
  }
  assert.fail('expected a FleetError');
}
