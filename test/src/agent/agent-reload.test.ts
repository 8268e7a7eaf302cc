// SIGHUP on a real mTLS agent: certificate, key, CA and token rotated on disk, then SIGHUP.
// New connections must present the new credentials and old ones are refused, while a walk
// that started before the reload (its connection already open) completes.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FleetError, type Row, resolveWalkRequest } from '@fleetls/core';
import { createAgentBackend, createLogger } from '@fleetls/gateway';
import { makeTree, range } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { makePki, type TestPki } from '../helpers/certs.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const FILES = 20_000;
// Long names make the walk some 3 MB on the wire, far more than the HTTP/2 window and the
// gateway's read-ahead hold, so the agent is still writing it when the reload comes.
const NAME = 'f'.repeat(120);

describe('agent credentials reload on SIGHUP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-reload-'));
  const tree = join(dir, 'tree');
  // The files the agent is started with; the test rotates what is in them.
  const live = {
    cert: join(dir, 'agent.crt'),
    key: join(dir, 'agent.key'),
    ca: join(dir, 'ca.crt'),
    token: join(dir, 'token'),
  };
  let oldPki: TestPki;
  let newPki: TestPki;
  let agent: AgentProcess;

  const install = (pki: TestPki, token: string) => {
    copyFileSync(pki.serverCert, live.cert);
    copyFileSync(pki.serverKey, live.key);
    copyFileSync(pki.ca, live.ca);
    writeFileSync(live.token, `${token}\n`);
  };
  const backend = (pki: TestPki, token: string) => {
    const tokenFile = join(dir, `client-${token}`);
    writeFileSync(tokenFile, token);
    return createAgentBackend(agent.address, {
      tls: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey },
      tokenFile,
      connectTimeoutMs: 5000,
      logger,
    });
  };
  const statCode = async (pki: TestPki, token: string): Promise<string> => {
    const b = backend(pki, token);
    try {
      await b.stat(tree, false, new AbortController().signal);
      return 'ok';
    } catch (err) {
      assert.ok(err instanceof FleetError, String(err));
      return `${err.code}: ${err.message}`;
    } finally {
      b.close();
    }
  };
  const reload = async (what: RegExp) => {
    const seen = agent.logs().length;
    process.kill(agent.pid, 'SIGHUP');
    await agent.waitForLog((l) => agent.logs().indexOf(l) >= seen && what.test(String(l.msg)));
  };

  before(async () => {
    makeTree(
      tree,
      range(
        FILES,
        (i) => `many/${NAME}${i}`,
        () => '',
      ),
    );
    for (const name of ['old', 'new']) mkdirSync(join(dir, name));
    oldPki = makePki(join(dir, 'old'), ['127.0.0.1']);
    newPki = makePki(join(dir, 'new'), ['127.0.0.1']);
    install(oldPki, 'old-token');
    agent = await startAgent({
      allow: [tree],
      tls: true,
      args: ['--tls-cert', live.cert, '--tls-key', live.key, '--tls-ca', live.ca, '--token-file', live.token],
    });
  });
  after(async () => {
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the old credentials, accepts the new, and a walk spanning the reload completes', async () => {
    assert.equal(await statCode(oldPki, 'old-token'), 'ok');

    // A walk on the old connection, held after its first batch (the agent waits on back-pressure).
    const walker = backend(oldPki, 'old-token');
    const walk = walker.walk(
      resolveWalkRequest({
        path: join(tree, 'many'),
        maxDepth: 1,
        maxItemsPerDir: 100_000,
        capRoot: true,
        maxEntries: 100_000,
      }),
      new AbortController().signal,
    );
    const first = await walk.next();
    assert.equal(first.done, false);
    let rows = (first.value as Row[]).length;

    install(newPki, 'new-token');
    await reload(/credentials reloaded/);

    assert.match(await statCode(oldPki, 'old-token'), /^unauthenticated: .*certificate/);
    assert.match(await statCode(newPki, 'old-token'), /^unauthenticated: .*bad bearer token/);
    assert.equal(await statCode(newPki, 'new-token'), 'ok');

    let next = await walk.next();
    while (!next.done) {
      rows += next.value.length;
      next = await walk.next();
    }
    walker.close();
    assert.deepEqual(next.value.truncations, []);
    assert.equal(rows, FILES, 'every entry of the walk that spanned the reload');
    // 'walk end' is written once the walk has settled, after its summary reached us: wait for it.
    await agent.waitForLog((l) => l.msg === 'walk end');
    const order = agent.logs().map((l) => l.msg);
    assert.ok(order.lastIndexOf('walk end') > order.indexOf('credentials reloaded'), 'the walk was still running');
  });

  it('keeps the credentials in use when the new files are bad', async () => {
    writeFileSync(live.cert, 'not a certificate');
    await reload(/reload failed/);
    assert.equal(await statCode(newPki, 'new-token'), 'ok');
  });
});
