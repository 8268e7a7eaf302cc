// Trust boundaries of the real agent: an unprivileged agent meets an unreadable directory,
// mTLS with throwaway certificates, and the bearer token.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { agentClient, healthCheck, startAgent, walkAll } from './helpers/agent-process.js';
import { agentTlsArgs, makePki, type TestPki } from './helpers/certs.js';

let root: string;
let tree: string;
const _NOBODY = 65534;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-sec-')));
  fs.chmodSync(root, 0o755);
  tree = path.join(root, 'tree');
  makeTree(tree, {
    'open/a.txt': 'a',
    'open/inner/b.txt': 'bb',
    'locked/hidden.txt': 'secret',
    'top.txt': 'top',
    open: { dir: true, mode: 0o755 },
    'open/inner': { dir: true, mode: 0o755 },
    locked: { dir: true, mode: 0o000 },
  });
  fs.chmodSync(tree, 0o755);
});

after(() => {
  fs.chmodSync(path.join(tree, 'locked'), 0o755);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('mTLS', () => {
  let certs: string;
  let pki: TestPki;
  before(() => {
    certs = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-certs-'));
    pki = makePki(certs, ['127.0.0.1', 'localhost']);
  });
  after(() => fs.rmSync(certs, { recursive: true, force: true }));

  const read = (f: string) => fs.readFileSync(f);
  // The certificate names 127.0.0.1 too, but TLS SNI takes host names only.
  const sni = { 'grpc.ssl_target_name_override': 'localhost' };

  it('accepts a client signed by the CA and refuses one without a certificate or from another CA', async () => {
    const agent = await startAgent({
      allow: [tree],
      tls: true,
      args: agentTlsArgs(pki),
    });
    try {
      const good = agentClient(
        agent.address,
        grpc.credentials.createSsl(read(pki.ca), read(pki.clientKey), read(pki.clientCert)),
        sni,
      );
      const { rows } = await walkAll(good, { path: tree, maxDepth: 1 });
      assert.ok(rows.length >= 3);
      good.close();

      for (const creds of [
        grpc.credentials.createSsl(read(pki.ca)),
        grpc.credentials.createSsl(read(pki.ca), read(pki.strangerKey), read(pki.strangerCert)),
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
