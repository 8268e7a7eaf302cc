// The gateway's agent client against a real fleetls-agent process: plaintext, mTLS with
// throwaway certificates, bearer token, a refused port, a port that never speaks, cancel.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AGENT_VERSION } from '@fleetls/agent';
import { FILTER_FEATURES, FleetError, type Row, resolveWalkRequest } from '@fleetls/core';
import { createAgentBackend, createLogger } from '@fleetls/gateway';
import { freePort, makeTree, range } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { agentTlsArgs, makePki } from '../helpers/certs.js';
import { drain } from '../helpers/walks.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const signal = () => new AbortController().signal;

function names(rows: Row[]): string[] {
  return rows.flatMap((r) => (r.kind === 'entry' ? [r.entry.path.toString()] : []));
}

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp): Promise<FleetError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof FleetError, `expected a FleetError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (re) assert.match(err.message, re);
    return err;
  }
  assert.fail(`expected ${code}`);
}

describe('agent client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-agent-client-'));
  const tree = join(dir, 'tree');
  const agents: AgentProcess[] = [];
  let plain: AgentProcess;
  // Made while the suite is defined: the nested suites build their options from these paths.
  const certs = join(dir, 'certs');
  mkdirSync(certs, { recursive: true });
  const pki = makePki(certs, ['127.0.0.1', 'localhost']);

  before(async () => {
    makeTree(tree, [
      ['a.txt', 'hello'],
      ['sub/b.txt', 'hello world'],
      ...range(
        3000,
        (i) => `many/f${i}`,
        () => '',
      ),
    ]);
    writeFileSync(join(dir, 'token'), 's3cret\n');
    writeFileSync(join(dir, 'wrong-token'), 'nope\n');
    plain = await startAgent({ allow: [tree] });
    agents.push(plain);
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('walks, stats and probes over one reused plaintext channel', async () => {
    const b = createAgentBackend(plain.address, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      const req = resolveWalkRequest({ path: tree, maxDepth: 2, capRoot: false });
      const { rows, summary } = await drain(b.walk(req, signal()));
      const got = names(rows);
      assert.ok(
        got.includes('a.txt') && got.includes('sub') && got.includes('sub/b.txt') && got.includes('many'),
        got.join(','),
      );
      assert.ok(summary.entriesSent >= 4);
      const info = await b.stat(join(tree, 'sub', 'b.txt'), false, signal());
      assert.equal(info.entry.type, 'file');
      assert.equal(info.entry.size, 11);
      assert.equal('agentVersion' in info, false);
      // The agent serves only `tree`, so '/' is refused; its version still comes in the response metadata.
      assert.deepEqual(await b.probe(signal()), { version: AGENT_VERSION, features: [...FILTER_FEATURES] });
      // A second walk on the same backend reuses its channel.
      const again = await drain(b.walk(resolveWalkRequest({ path: join(tree, 'sub') }), signal()));
      assert.deepEqual(names(again.rows), ['b.txt']);
    } finally {
      b.close();
    }
  });

  it("keeps the agent's message on its errors", async () => {
    const b = createAgentBackend(plain.address, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      await rejectsWith(b.stat(join(dir, 'token'), false, signal()), 'permission_denied', /^agent 127\.0\.0\.1:\d+: /);
      await rejectsWith(b.stat(join(tree, 'missing'), false, signal()), 'not_found');
    } finally {
      b.close();
    }
  });

  it('reports the version when the agent serves /', async () => {
    const root = await startAgent({ allow: ['/'] });
    agents.push(root);
    const b = createAgentBackend(root.address, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      const { version } = await b.probe(signal());
      assert.match(version, /^\d+\.\d+\.\d+/);
    } finally {
      b.close();
    }
  });

  it('fails fast with unavailable on a refused port', async () => {
    const port = await freePort();
    // A connect timeout far beyond the test's own: only a fast failure can pass.
    const b = createAgentBackend(`127.0.0.1:${port}`, { tls: 'insecure', connectTimeoutMs: 600_000, logger });
    try {
      await rejectsWith(b.probe(signal()), 'unavailable', /ECONNREFUSED|No connection/);
      await rejectsWith(drain(b.walk(resolveWalkRequest({ path: tree }), signal())), 'unavailable');
    } finally {
      b.close();
    }
  });

  it('gives up connecting after connectTimeoutMs when the port accepts but never answers: a stall, not unreachable', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const b = createAgentBackend(`127.0.0.1:${port}`, { tls: 'insecure', connectTimeoutMs: 300, logger });
    try {
      await rejectsWith(
        b.stat('/x', false, signal()),
        'deadline_exceeded',
        /accepts connections but did not answer within 300 ms/,
      );
    } finally {
      b.close();
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('cancels the walk when the signal aborts', async () => {
    const b = createAgentBackend(plain.address, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      const ctrl = new AbortController();
      const gen = b.walk(resolveWalkRequest({ path: join(tree, 'many'), maxDepth: 1 }), ctrl.signal);
      const first = await gen.next();
      assert.equal(first.done, false);
      ctrl.abort(new FleetError('cancelled', 'cancelled by the client'));
      await rejectsWith(drain(gen), 'cancelled', /cancelled by the client/);
      // Aborted before it starts: no call at all.
      await rejectsWith(b.stat(tree, false, ctrl.signal), 'cancelled');
    } finally {
      b.close();
    }
  });

  it('sends the token in call metadata on a plaintext channel', async () => {
    const tokenAgent = await startAgent({ allow: [tree], args: ['--token-file', join(dir, 'token')] });
    agents.push(tokenAgent);
    const withToken = createAgentBackend(tokenAgent.address, {
      tls: 'insecure',
      tokenFile: join(dir, 'token'),
      connectTimeoutMs: 5000,
      logger,
    });
    const without = createAgentBackend(tokenAgent.address, { tls: 'insecure', connectTimeoutMs: 5000, logger });
    try {
      assert.equal((await withToken.stat(tree, false, signal())).entry.type, 'dir');
      await rejectsWith(without.stat(tree, false, signal()), 'unauthenticated');
    } finally {
      withToken.close();
      without.close();
    }
  });

  describe('mTLS and token', () => {
    let tlsAgent: AgentProcess;
    const tlsArgs = () => [...agentTlsArgs(pki), '--token-file', join(dir, 'token')];
    before(async () => {
      tlsAgent = await startAgent({ allow: [tree], tls: true, args: tlsArgs() });
      agents.push(tlsAgent);
    });
    const tls = { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey };

    it('lists with the CA, a client certificate and the token', async () => {
      const b = createAgentBackend(tlsAgent.address, {
        tls,
        tokenFile: join(dir, 'token'),
        connectTimeoutMs: 5000,
        logger,
      });
      try {
        const { rows } = await drain(b.walk(resolveWalkRequest({ path: join(tree, 'sub') }), signal()));
        assert.deepEqual(names(rows), ['b.txt']);
        const { certNotAfter, ...probe } = await b.probe(signal());
        assert.deepEqual(probe, { version: AGENT_VERSION, features: [...FILTER_FEATURES] });
        // Over TLS the probe also carries when the agent's certificate expires.
        assert.ok(certNotAfter instanceof Date && certNotAfter.getTime() > Date.now());
      } finally {
        b.close();
      }
    });

    it('is unauthenticated without the token or with a wrong one', async () => {
      for (const tokenFile of [undefined, join(dir, 'wrong-token')]) {
        const b = createAgentBackend(tlsAgent.address, { tls, tokenFile, connectTimeoutMs: 5000, logger });
        try {
          await rejectsWith(b.stat(tree, false, signal()), 'unauthenticated');
          await rejectsWith(b.probe(signal()), 'unauthenticated');
        } finally {
          b.close();
        }
      }
    });

    it('refuses an agent whose certificate another CA signed: a trust fault, not unreachable', async () => {
      const b = createAgentBackend(tlsAgent.address, {
        tls: { ...tls, ca: pki.otherCa },
        tokenFile: join(dir, 'token'),
        connectTimeoutMs: 5000,
        logger,
      });
      try {
        await rejectsWith(b.stat(tree, false, signal()), 'unauthenticated', /not signed by the inventory CA/);
      } finally {
        b.close();
      }
    });

    it('is refused by the agent without a client certificate', async () => {
      const b = createAgentBackend(tlsAgent.address, {
        tls: { ca: pki.ca },
        tokenFile: join(dir, 'token'),
        connectTimeoutMs: 5000,
        logger,
      });
      try {
        await rejectsWith(b.stat(tree, false, signal()), 'unauthenticated', /requires a client certificate/);
      } finally {
        b.close();
      }
    });

    it('names the unreadable file of a bad TLS configuration', () => {
      assert.throws(
        () =>
          createAgentBackend(tlsAgent.address, {
            tls: { ca: join(certs, 'nope.crt') },
            connectTimeoutMs: 5000,
            logger,
          }),
        (e: unknown) =>
          e instanceof FleetError &&
          e.code === 'invalid_argument' &&
          /agent_tls\.ca: cannot read .*nope\.crt/.test(e.message),
      );
    });
  });
});
