// The Ansible role fleetls_agent, for real: the example playbook run with -i localhost,
// -c local, installing the .deb with certificates and agent.yaml from variables; the
// unit's ExecStart started by the test as the unit's user; a second run changes nothing
// and its health check (fleetls-agent health-check: the host needs no node) passes;
// removal cleans up. Holds holdPackageLock (packages.test.ts). Needs root.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { agentClient, REPO_ROOT, walkAll } from '../helpers/agent-process.js';
import { makePki, type TestPki } from '../helpers/certs.js';
import { startAsUnit, userIds } from '../helpers/installed-agent.js';
import { buildPackage, holdPackageLock, sh } from '../helpers/packages.js';
import { entryPaths } from '../helpers/walks.js';

const CONFIG = '/etc/fleetls/agent.yaml';

if (process.getuid?.() !== 0) throw new Error('the package tests install packages: run them as root, as CI does');

before(holdPackageLock);

describe('Ansible role fleetls_agent (deploy/ansible)', { concurrency: false }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-ansible-'));
  const tree = join(tmp, 'tree');
  const playbook = join(REPO_ROOT, 'deploy/ansible/playbook.yml');
  let pki: TestPki;
  let vars: Record<string, unknown>;

  /** ansible-playbook on this machine (-i localhost, -c local) with the test's variables; returns the recap. */
  function play(extra: Record<string, unknown>): { ok: number; changed: number; failed: number; out: string } {
    const file = join(tmp, 'vars.json');
    writeFileSync(file, JSON.stringify({ ...vars, ...extra }));
    let out: string;
    try {
      out = execFileSync('ansible-playbook', ['-i', 'localhost,', '-c', 'local', playbook, '-e', `@${file}`], {
        encoding: 'utf8',
        env: { ...process.env, ANSIBLE_NOCOLOR: '1', ANSIBLE_RETRY_FILES_ENABLED: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`ansible-playbook failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    }
    const recap = /localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)/.exec(out);
    assert.ok(recap, out);
    return { ok: Number(recap[1]), changed: Number(recap[2]), failed: Number(recap[3]), out };
  }

  before(async () => {
    buildPackage(join(tmp, 'dist'), 'deb', '0.0.1~test1');
    mkdirSync(join(tmp, 'pki'));
    pki = makePki(join(tmp, 'pki'), ['localhost']);
    mkdirSync(join(tree, 'logs'), { recursive: true });
    writeFileSync(join(tree, 'logs', 'a.log'), 'aaa');
    chmodSync(tmp, 0o755);
    const port = await freePort();
    vars = {
      fleetls_agent_hosts: 'localhost',
      fleetls_agent_package_file: join(tmp, 'dist', 'fleetls-agent_0.0.1~test1_amd64.deb'),
      fleetls_agent_listen: `127.0.0.1:${port}`,
      fleetls_agent_allow: [tree],
      fleetls_agent_tls_ca_file: pki.ca,
      fleetls_agent_tls_cert_file: pki.serverCert,
      fleetls_agent_tls_key_file: pki.serverKey,
      fleetls_agent_check_cert_file: pki.clientCert,
      fleetls_agent_check_key_file: pki.clientKey,
      fleetls_agent_settings: { max_concurrent_walks: 4 },
      // systemd is not PID 1 here: the role installs and configures; the test starts the agent.
      fleetls_agent_manage_service: false,
    };
    execFileSync('dpkg', ['--purge', 'fleetls-agent'], { stdio: 'pipe' });
  });
  after(() => {
    execFileSync('dpkg', ['--purge', 'fleetls-agent'], { stdio: 'pipe' });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('installs the .deb, the certificates and agent.yaml from variables', () => {
    const r = play({ fleetls_agent_check: false });
    assert.equal(r.failed, 0);
    assert.ok(r.changed >= 4, r.out);
    assert.match(sh('dpkg-query', ['--show', 'fleetls-agent']), /^fleetls-agent\t0\.0\.1~test1\n$/);
    const config = readFileSync(CONFIG, 'utf8');
    assert.match(config, new RegExp(`listen: 127\\.0\\.0\\.1:${String(vars.fleetls_agent_listen).split(':')[1]}`));
    assert.match(config, /tls_key: \/etc\/fleetls\/tls\/agent\.key/);
    assert.match(config, /max_concurrent_walks: 4/);
    const key = statSync('/etc/fleetls/tls/agent.key');
    assert.equal(key.mode & 0o777, 0o640);
    assert.equal(key.gid, userIds('fleetls')?.gid);
  });

  it('the agent, started as the unit would (its ExecStart as its user: systemd is not PID 1 here), passes the role check; a second run changes nothing', async () => {
    const agent = await startAsUnit();
    try {
      const r = play({});
      assert.equal(r.failed, 0);
      assert.equal(r.changed, 0, r.out);
      assert.match(r.out, /SERVING/);
      // A Walk over mTLS with the gateway's certificate, as a gateway would.
      const creds = grpc.credentials.createSsl(
        readFileSync(pki.ca),
        readFileSync(pki.clientKey),
        readFileSync(pki.clientCert),
      );
      const client = agentClient(`localhost:${agent.port}`, creds);
      try {
        const { rows } = await walkAll(client, { path: tree, maxDepth: 2 });
        const paths = entryPaths(rows);
        assert.deepEqual(paths, ['logs', 'logs/a.log']);
      } finally {
        client.close();
      }
    } finally {
      await agent.stop();
    }
  });

  it('the check fails when the agent does not answer', () => {
    assert.throws(() => play({ fleetls_agent_check_timeout_s: 1 }), /did not answer SERVING/);
  });

  it('with fleetls_agent_connect, agent.yaml dials out to NATS with the host key and TLS files, and the agent accepts it', async () => {
    const seed = join(tmp, 'host.nk');
    writeFileSync(seed, `SU${'A'.repeat(56)}\n`);
    const r = play({
      fleetls_agent_check: false,
      fleetls_agent_connect: ['tls://nats-1.example:4222', 'tls://nats-2.example:4222'],
      fleetls_agent_nats_creds_file: seed,
      fleetls_agent_nats_tls_ca_file: pki.ca,
      fleetls_agent_nats_tls_cert_file: pki.clientCert,
      fleetls_agent_nats_tls_key_file: pki.clientKey,
    });
    assert.equal(r.failed, 0);
    const { parse } = await import('yaml');
    const config = parse(readFileSync(CONFIG, 'utf8'));
    assert.deepEqual(
      { connect: config.connect, name: config.name, nats_creds: config.nats_creds, nats_tls: config.nats_tls },
      {
        connect: 'tls://nats-1.example:4222,tls://nats-2.example:4222',
        name: 'localhost',
        nats_creds: '/etc/fleetls/nats/agent.creds',
        nats_tls: {
          ca: '/etc/fleetls/nats/ca.crt',
          cert: '/etc/fleetls/nats/client.crt',
          key: '/etc/fleetls/nats/client.key',
        },
      },
    );
    for (const [f, mode] of [
      ['agent.creds', 0o640],
      ['client.key', 0o640],
      ['ca.crt', 0o644],
    ] as const) {
      const st = statSync(join('/etc/fleetls/nats', f));
      assert.equal(st.mode & 0o777, mode, f);
      assert.equal(st.gid, userIds('fleetls')?.gid, f);
    }
    // The agent's own parser takes the file as written (servers, TLS off loopback, the key file).
    const { parseAgentConfig } = await import(join(REPO_ROOT, 'packages/agent/dist/config/config.js'));
    const parsed = parseAgentConfig(['--config', CONFIG], {});
    assert.deepEqual(parsed.nats?.servers, ['tls://nats-1.example:4222', 'tls://nats-2.example:4222']);
    assert.equal(parsed.nats?.tls?.ca, '/etc/fleetls/nats/ca.crt');
    // Without NATS again: the keys go.
    play({ fleetls_agent_check: false });
    assert.doesNotMatch(readFileSync(CONFIG, 'utf8'), /connect|nats_/);
  });

  it('fleetls_agent_state=absent removes the package, its user and /etc/fleetls', () => {
    const r = play({ fleetls_agent_state: 'absent' });
    assert.equal(r.failed, 0);
    assert.ok(r.changed >= 1, r.out);
    assert.equal(existsSync('/etc/fleetls'), false);
    assert.equal(existsSync('/var/cache/fleetls-agent'), false);
    assert.equal(userIds('fleetls'), undefined);
    assert.equal(play({ fleetls_agent_state: 'absent' }).changed, 0);
  });
});
