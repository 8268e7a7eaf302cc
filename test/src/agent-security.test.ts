// Trust boundaries of the real agent: an unprivileged agent meets an unreadable directory,
// mTLS with throwaway certificates, and the bearer token.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { agentClient, healthCheck, startAgent, walkAll } from './helpers/agent-process.js';

let root: string;
let tree: string;
const NOBODY = 65534;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-sec-')));
  fs.chmodSync(root, 0o755);
  tree = path.join(root, 'tree');
  fs.mkdirSync(path.join(tree, 'open', 'inner'), { recursive: true });
  fs.mkdirSync(path.join(tree, 'locked'));
  fs.writeFileSync(path.join(tree, 'open', 'a.txt'), 'a');
  fs.writeFileSync(path.join(tree, 'open', 'inner', 'b.txt'), 'bb');
  fs.writeFileSync(path.join(tree, 'locked', 'hidden.txt'), 'secret');
  fs.writeFileSync(path.join(tree, 'top.txt'), 'top');
  for (const p of [tree, path.join(tree, 'open'), path.join(tree, 'open', 'inner')]) fs.chmodSync(p, 0o755);
  fs.chmodSync(path.join(tree, 'locked'), 0o000);
});

after(() => {
  fs.chmodSync(path.join(tree, 'locked'), 0o755);
  fs.rmSync(root, { recursive: true, force: true });
});

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
}

/** A throwaway CA, a server cert for 127.0.0.1/localhost, a client cert, and a stranger's cert. */
function makeCerts(dir: string): void {
  const ext = path.join(dir, 'san.ext');
  fs.writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=fleetls-test-ca',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
    ],
    dir,
  );
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=other-ca',
      '-keyout',
      'other-ca.key',
      '-out',
      'other-ca.pem',
    ],
    dir,
  );
  for (const [name, ca] of [
    ['server', 'ca'],
    ['client', 'ca'],
    ['stranger', 'other-ca'],
  ]) {
    openssl(
      ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${ca}.pem`,
        '-CAkey',
        `${ca}.key`,
        '-CAcreateserial',
        '-days',
        '1',
        '-out',
        `${name}.pem`,
        '-extfile',
        ext,
      ],
      dir,
    );
  }
}

describe('unprivileged agent', () => {
  it('lists an unreadable directory as DENIED and the rest of the tree', async () => {
    const agent = await startAgent({ allow: [tree], uid: NOBODY, gid: NOBODY });
    const client = agentClient(agent.address);
    try {
      const { rows } = await walkAll(client, { path: tree, maxDepth: 3 });
      const entries = rows.flatMap((r) => (r.kind === 'entry' ? [r.entry] : []));
      const denied = entries.filter((e) => e.error?.code === 'DENIED');
      assert.deepEqual(
        denied.map((e) => e.path.toString()),
        ['locked'],
      );
      const names = new Set(entries.map((e) => e.path.toString()));
      for (const p of ['top.txt', 'open', 'open/a.txt', 'open/inner', 'open/inner/b.txt', 'locked']) {
        assert.ok(names.has(p), `${p} listed`);
      }
      assert.ok(!names.has('locked/hidden.txt'));
      // Stat of the unreadable directory itself works (lstat needs only the parent).
      const st = await new Promise<unknown>((resolve, reject) =>
        client.Stat(
          { path: path.join(tree, 'locked') },
          new grpc.Metadata(),
          { deadline: Date.now() + 5000 },
          (err, res) => (err ? reject(err) : resolve(res)),
        ),
      );
      assert.ok(st);
      // Walking the unreadable directory itself: the root row carries DENIED.
      const inner = await walkAll(client, { path: path.join(tree, 'locked'), maxDepth: 1 });
      const innerEntries = inner.rows.flatMap((r) => (r.kind === 'entry' ? [r.entry] : []));
      assert.ok(innerEntries.every((e) => e.error?.code === 'DENIED'));
      assert.ok(innerEntries.length >= 1);
    } finally {
      client.close();
      await agent.stop();
    }
  });
});

describe('mTLS', () => {
  let certs: string;
  before(() => {
    certs = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-certs-'));
    makeCerts(certs);
  });
  after(() => fs.rmSync(certs, { recursive: true, force: true }));

  const read = (f: string) => fs.readFileSync(path.join(certs, f));
  // The certificate names 127.0.0.1 too, but TLS SNI takes host names only.
  const sni = { 'grpc.ssl_target_name_override': 'localhost' };

  it('accepts a client signed by the CA and refuses one without a certificate or from another CA', async () => {
    const agent = await startAgent({
      allow: [tree],
      tls: true,
      args: [
        '--tls-cert',
        path.join(certs, 'server.pem'),
        '--tls-key',
        path.join(certs, 'server.key'),
        '--tls-ca',
        path.join(certs, 'ca.pem'),
      ],
    });
    try {
      const good = agentClient(
        agent.address,
        grpc.credentials.createSsl(read('ca.pem'), read('client.key'), read('client.pem')),
        sni,
      );
      const { rows } = await walkAll(good, { path: tree, maxDepth: 1 });
      assert.ok(rows.length >= 3);
      good.close();

      for (const creds of [
        grpc.credentials.createSsl(read('ca.pem')),
        grpc.credentials.createSsl(read('ca.pem'), read('stranger.key'), read('stranger.pem')),
      ]) {
        const bad = agentClient(agent.address, creds, sni);
        await assert.rejects(walkAll(bad, { path: tree, maxDepth: 1 }, undefined, 5000), (err) => {
          assert.equal((err as grpc.ServiceError).code, grpc.status.UNAVAILABLE);
          return true;
        });
        bad.close();
      }
      const plain = agentClient(agent.address);
      await assert.rejects(walkAll(plain, { path: tree, maxDepth: 1 }, undefined, 5000));
      plain.close();
    } finally {
      await agent.stop();
    }
  });
});

describe('bearer token', () => {
  it('is required when configured; health is exempt', async () => {
    const tokenFile = path.join(root, 'token');
    fs.writeFileSync(tokenFile, 's3cret-token\n', { mode: 0o600 });
    const agent = await startAgent({ allow: [tree], args: ['--token-file', tokenFile] });
    const client = agentClient(agent.address);
    try {
      const none = new grpc.Metadata();
      await assert.rejects(walkAll(client, { path: tree, maxDepth: 1 }, none), (err) => {
        assert.equal((err as grpc.ServiceError).code, grpc.status.UNAUTHENTICATED);
        return true;
      });
      const wrong = new grpc.Metadata();
      wrong.set('authorization', 'Bearer s3cret-tokeX');
      await assert.rejects(walkAll(client, { path: tree, maxDepth: 1 }, wrong), (err) => {
        assert.equal((err as grpc.ServiceError).code, grpc.status.UNAUTHENTICATED);
        return true;
      });
      const right = new grpc.Metadata();
      right.set('authorization', 'Bearer s3cret-token');
      const { rows } = await walkAll(client, { path: tree, maxDepth: 1 }, right);
      assert.ok(rows.length >= 3);
      assert.equal(await healthCheck(agent.address), 'SERVING');
      assert.ok(!agent.stderr().includes('s3cret-token'), 'the token never reaches the logs');
    } finally {
      client.close();
      await agent.stop();
    }
  });
});
