// The agent's .deb and .rpm on this machine, for real. They carry a self-contained
// executable and depend on no nodejs. The .deb: dpkg -i creates the fleetls user and
// installs the unit and /etc/fleetls/agent.yaml; the installed agent (the unit's
// ExecStart, run as its User: systemd is not PID 1 here, in a mount namespace where this
// machine's node is hidden) answers a Walk with an edited config; an upgrade keeps the edit; remove stops and disables, purge removes user and
// config. The systemd branches of the maintainer scripts run against a fake systemctl in
// a mount namespace where /run/systemd/system exists, so what they would ask systemd for
// is checked; real systemd as PID 1 is not exercised. The .rpm: its metadata and
// scriptlets with rpm -qp, then installed, upgraded and erased with rpm itself (its own
// database, --nodeps: this Debian machine's rpm database knows no packages). The Ansible
// role: the example playbook run with -i localhost, -c local, installing the .deb with
// certificates and agent.yaml from variables; the unit's ExecStart started by the test as
// the unit's user; a second run changes nothing and its health check passes; removal
// cleans up. One file, so nothing else installs the package at the same time. Needs root.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentClient, REPO_ROOT, walkAll } from './helpers/agent-process.js';
import { makePki, type TestPki } from './helpers/certs.js';
import { SYSTEM_PATH, startAsUnit, UNIT_FILE, unitSetting, userIds, withoutNode } from './helpers/installed-agent.js';
import { buildPackage, sh } from './helpers/packages.js';

const CONFIG = '/etc/fleetls/agent.yaml';

/** Writes a systemctl that only logs its arguments to `log`; returns its directory. */
function fakeSystemctl(dir: string, log: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'systemctl'), `#!/bin/sh\necho "$*" >> ${log}\n`, { mode: 0o755 });
  return dir;
}

/**
 * Runs a package manager as if systemd were running: in a mount namespace where
 * /run/systemd/system exists, with the fake systemctl first on PATH. Returns its calls.
 */
function underSystemd(fakeDir: string, log: string, cmd: string, args: string[]): string[] {
  writeFileSync(log, '');
  execFileSync(
    'unshare',
    [
      '-m',
      'sh',
      '-c',
      'mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && PATH="$0:$PATH" exec "$@"',
      fakeDir,
      cmd,
      ...args,
    ],
    { stdio: 'pipe' },
  );
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

if (process.getuid?.() !== 0) throw new Error('the package tests install packages: run them as root, as CI does');

describe('fleetls-agent .deb', { concurrency: false }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-deb-'));
  const calls = join(tmp, 'systemctl.log');
  const fake = fakeSystemctl(join(tmp, 'fake-bin'), calls);
  const dpkgUnderSystemd = (args: string[]) => underSystemd(fake, calls, 'dpkg', args);
  const tree = join(tmp, 'tree');
  let v1: string;
  let v2: string;

  before(() => {
    buildPackage(join(tmp, 'v1'), 'deb', '0.0.1~test1');
    buildPackage(join(tmp, 'v2'), 'deb', '0.0.1~test2');
    v1 = join(tmp, 'v1', 'fleetls-agent_0.0.1~test1_amd64.deb');
    v2 = join(tmp, 'v2', 'fleetls-agent_0.0.1~test2_amd64.deb');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    writeFileSync(join(tree, 'sub', 'f.txt'), 'x');
    chmodSync(tmp, 0o755);
    // A leftover from an interrupted run would hide what this install does.
    execFileSync('dpkg', ['--purge', 'fleetls-agent'], { stdio: 'pipe' });
  });
  after(() => {
    execFileSync('dpkg', ['--purge', 'fleetls-agent'], { stdio: 'pipe' });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('holds the executable, the unit and the config, no node_modules, and depends on no nodejs', () => {
    const files = sh('dpkg-deb', ['--contents', v1]);
    assert.match(files, /\.\/usr\/bin\/fleetls-agent\n/);
    assert.match(files, /\.\/usr\/lib\/systemd\/system\/fleetls-agent\.service\n/);
    assert.doesNotMatch(files, /node_modules|\.mjs/);
    assert.equal(
      sh('dpkg-deb', ['--field', v1, 'Depends']).trim(),
      'libc6 (>= 2.28), libstdc++6 (>= 5.2), libgcc-s1 | libgcc1, passwd',
    );
    assert.equal(sh('dpkg-deb', ['--info', v1, 'conffiles']), '/etc/fleetls/agent.yaml\n');
  });

  it('installs without systemd: a system user, the config readable by it, nothing enabled', () => {
    sh('dpkg', ['--force-unsafe-io', '-i', v1]);
    const ids = userIds('fleetls');
    assert.ok(ids, 'user fleetls created');
    assert.ok(ids.uid < 1000, `a system uid (${ids.uid})`);
    assert.match(sh('getent', ['passwd', 'fleetls']), /:\/usr\/sbin\/nologin\n$/);
    const st = statSync(CONFIG);
    assert.equal(st.mode & 0o777, 0o640);
    assert.equal(st.gid, ids.gid);
    assert.ok(existsSync(UNIT_FILE));
    assert.equal(existsSync('/etc/systemd/system/multi-user.target.wants/fleetls-agent.service'), false);
  });

  it('the installed agent, as its user with the edited config, on a host without node, answers a Walk', async () => {
    writeFileSync(CONFIG, `# edited by the .deb test\nlisten: 127.0.0.1:0\ninsecure: true\nallow: [${tree}]\n`);
    const agent = await startAsUnit(UNIT_FILE, 15_000, true);
    const client = agentClient(`127.0.0.1:${agent.port}`);
    try {
      const { rows } = await walkAll(client, { path: tree, maxDepth: 2 });
      const paths = rows.flatMap((r) => (r.kind === 'entry' ? [r.entry.path.toString()] : [])).sort();
      assert.deepEqual(paths, ['sub', 'sub/f.txt']);
    } finally {
      client.close();
      await agent.stop();
    }
  });

  it('a bad key in agent.yaml fails the start with one line naming it', () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'listen: 127.0.0.1:0\nallow_dirs: [/srv]\n');
    chmodSync(bad, 0o644);
    const ids = userIds('fleetls')!;
    let stderr = '';
    let status: number | null = 0;
    try {
      execFileSync('/usr/bin/fleetls-agent', ['--config', bad], {
        uid: ids.uid,
        gid: ids.gid,
        stdio: 'pipe',
      });
    } catch (err) {
      ({ status } = err as { status: number });
      stderr = String((err as { stderr: Buffer }).stderr);
    }
    assert.equal(status, 2);
    const plain = stderr.split('\n').filter((l) => l.startsWith('fleetls-agent: '));
    assert.equal(plain.length, 1, stderr);
    assert.match(plain[0] as string, /allow_dirs/);
  });

  it('an upgrade (systemd running) keeps the edited agent.yaml and restarts the enabled unit', () => {
    const before = readFileSync(CONFIG, 'utf8');
    const systemctl = dpkgUnderSystemd(['--force-unsafe-io', '-i', v2]);
    assert.equal(readFileSync(CONFIG, 'utf8'), before);
    assert.equal(sh('dpkg-query', ['--show', 'fleetls-agent']), 'fleetls-agent\t0.0.1~test2\n');
    // An upgrade keeps the operator's enable/disable choice: no enable.
    assert.deepEqual(systemctl, [
      'daemon-reload',
      'is-enabled --quiet fleetls-agent.service',
      'restart fleetls-agent.service',
    ]);
  });

  it('remove (systemd running) stops and disables the unit and keeps config and user', () => {
    const systemctl = dpkgUnderSystemd(['-r', 'fleetls-agent']);
    assert.deepEqual(systemctl, ['stop fleetls-agent.service', 'disable fleetls-agent.service', 'daemon-reload']);
    assert.equal(existsSync(UNIT_FILE), false);
    assert.equal(existsSync('/usr/bin/fleetls-agent'), false);
    assert.match(readFileSync(CONFIG, 'utf8'), /edited by the \.deb test/);
    assert.ok(userIds('fleetls'));
  });

  it('purge removes the user and /etc/fleetls', () => {
    sh('dpkg', ['--purge', 'fleetls-agent']);
    assert.equal(existsSync('/etc/fleetls'), false);
    assert.equal(userIds('fleetls'), undefined);
    assert.throws(() => sh('getent', ['group', 'fleetls']));
  });

  it('a first install where systemd runs enables and starts the unit', () => {
    const systemctl = dpkgUnderSystemd(['--force-unsafe-io', '-i', v1]);
    assert.deepEqual(systemctl, [
      'daemon-reload',
      'enable fleetls-agent.service',
      'is-enabled --quiet fleetls-agent.service',
      'restart fleetls-agent.service',
    ]);
  });
});

describe('fleetls-agent .rpm', { concurrency: false }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-rpm-'));
  const calls = join(tmp, 'systemctl.log');
  const fake = fakeSystemctl(join(tmp, 'fake-bin'), calls);
  const db = join(tmp, 'rpmdb');
  let v1: string;
  let v2: string;
  const rpm = (args: string[]) => sh('rpm', ['--dbpath', db, ...args]);
  // rpm runs scriptlets with its own PATH, so the fake systemctl goes in there too.
  const rpmUnderSystemd = (args: string[]) =>
    underSystemd(fake, calls, 'rpm', [
      '--dbpath',
      db,
      '--nodeps',
      '--define',
      `_install_script_path ${fake}:/usr/sbin:/usr/bin:/sbin:/bin`,
      ...args,
    ]);

  before(() => {
    buildPackage(join(tmp, 'v1'), 'rpm', '0.0.1~test1');
    buildPackage(join(tmp, 'v2'), 'rpm', '0.0.1~test2');
    v1 = join(tmp, 'v1', 'fleetls-agent-0.0.1~test1.x86_64.rpm');
    v2 = join(tmp, 'v2', 'fleetls-agent-0.0.1~test2.x86_64.rpm');
    mkdirSync(db);
    rpm(['--initdb']);
  });
  after(() => {
    rmSync('/etc/fleetls', { recursive: true, force: true });
    if (userIds('fleetls')) sh('userdel', ['fleetls']);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('requires no nodejs, holds the executable, the unit and a noreplace config, no node_modules', () => {
    const requires = rpm(['-qp', '--requires', v1]).split('\n');
    assert.deepEqual(
      requires.filter((r) => /node/i.test(r)),
      [],
    );
    assert.ok(requires.includes('shadow-utils'), requires.join(', '));
    const files = rpm(['-qp', '--list', v1]);
    assert.deepEqual(files.trim().split('\n'), [
      '/etc/fleetls',
      '/etc/fleetls/agent.yaml',
      '/usr/bin/fleetls-agent',
      '/usr/lib/systemd/system/fleetls-agent.service',
      '/usr/share/doc/fleetls-agent/README',
    ]);
    assert.equal(rpm(['-qp', '--configfiles', v1]).trim(), '/etc/fleetls/agent.yaml');
    const scripts = rpm(['-qp', '--scripts', v1]);
    for (const part of ['preinstall', 'postinstall', 'preuninstall', 'postuninstall']) {
      assert.match(scripts, new RegExp(`${part} scriptlet`));
    }
    assert.match(scripts, /useradd --system/);
  });

  it('installs with rpm where systemd runs: the user first, the config its group, the unit enabled and started', () => {
    const systemctl = rpmUnderSystemd(['-i', v1]);
    assert.deepEqual(systemctl, [
      'daemon-reload',
      'enable fleetls-agent.service',
      'is-enabled --quiet fleetls-agent.service',
      'restart fleetls-agent.service',
    ]);
    const ids = userIds('fleetls');
    assert.ok(ids && ids.uid < 1000);
    const st = statSync(CONFIG);
    assert.equal(st.mode & 0o777, 0o640);
    assert.equal(st.gid, ids.gid);
    assert.ok(existsSync('/usr/bin/fleetls-agent'));
  });

  it('an upgrade keeps the edited agent.yaml and restarts the unit', async () => {
    writeFileSync(CONFIG, '# edited by the .rpm test\nlisten: 127.0.0.1:0\ninsecure: true\nallow: []\n');
    const systemctl = rpmUnderSystemd(['-U', v2]);
    assert.match(readFileSync(CONFIG, 'utf8'), /edited by the \.rpm test/);
    assert.equal(rpm(['-q', 'fleetls-agent']).trim(), 'fleetls-agent-0.0.1~test2-1.x86_64');
    assert.deepEqual(systemctl, [
      'daemon-reload',
      'is-enabled --quiet fleetls-agent.service',
      'restart fleetls-agent.service',
    ]);
    // The upgraded files still start, as the unit's user, with the kept config.
    const agent = await startAsUnit();
    await agent.stop();
  });

  it('erase stops and disables the unit, removes the files and keeps the edit as .rpmsave', () => {
    const systemctl = rpmUnderSystemd(['-e', 'fleetls-agent']);
    assert.deepEqual(systemctl, ['stop fleetls-agent.service', 'disable fleetls-agent.service', 'daemon-reload']);
    assert.equal(existsSync(UNIT_FILE), false);
    assert.equal(existsSync('/usr/bin/fleetls-agent'), false);
    assert.equal(existsSync(CONFIG), false);
    assert.match(readFileSync(`${CONFIG}.rpmsave`, 'utf8'), /edited by the \.rpm test/);
  });
});

/** Runs `command args` as `ids` in withoutNode's namespace; resolves with its output or rejects with it. */
function runWithoutNode(command: string, args: string[], ids: { uid: number; gid: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(...withoutNode(command, args, ids), {
      env: { PATH: SYSTEM_PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}:\n${err}`)),
    );
  });
}

describe('fleetls (gateway) .deb beside the agent, on a host without node', { concurrency: false }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-gw-deb-'));
  const tree = join(tmp, 'tree');
  const GATEWAY_YAML = '/etc/fleetls/gateway.yaml';
  const TOKEN = '/etc/fleetls/gateway/token';
  let gwDeb: string;
  let agent: Awaited<ReturnType<typeof startAsUnit>> | undefined;

  before(async () => {
    gwDeb = buildPackage(join(tmp, 'dist'), 'deb', '0.0.1~test1', 'fleetls');
    const agentDeb = buildPackage(join(tmp, 'dist'), 'deb', '0.0.1~test1');
    mkdirSync(join(tree, 'logs'), { recursive: true });
    writeFileSync(join(tree, 'logs', 'a.log'), 'aaa');
    chmodSync(tmp, 0o755);
    for (const p of ['fleetls', 'fleetls-agent']) execFileSync('dpkg', ['--purge', p], { stdio: 'pipe' });
    sh('dpkg', ['--force-unsafe-io', '-i', gwDeb, agentDeb]);
    writeFileSync(CONFIG, `listen: 127.0.0.1:0\ninsecure: true\nallow: [${tree}]\n`);
    agent = await startAsUnit(UNIT_FILE, 15_000, true);
    // The operator's edit: the one host, through the agent the other package installed.
    writeFileSync(GATEWAY_YAML, `hosts:\n  here:\n    agent: 127.0.0.1:${agent.port}\nagent_tls: insecure\n`);
  });
  after(async () => {
    await agent?.stop();
    for (const p of ['fleetls', 'fleetls-agent']) execFileSync('dpkg', ['--purge', p], { stdio: 'pipe' });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('holds the executable, fleetls.service and gateway.yaml, and depends on no nodejs', () => {
    const files = sh('dpkg-deb', ['--contents', gwDeb]);
    for (const f of ['usr/bin/fleetls', 'usr/lib/systemd/system/fleetls.service', 'etc/fleetls/gateway.yaml']) {
      assert.match(files, new RegExp(`\\./${f.replace(/\./g, '\\.')}\\n`));
    }
    assert.doesNotMatch(sh('dpkg-deb', ['--field', gwDeb, 'Depends']), /node/);
  });

  it('installs its own user, gateway.yaml readable by it, and a bearer token only it can read', () => {
    const ids = userIds('fleetls-gateway');
    assert.ok(ids && ids.uid < 1000, 'system user fleetls-gateway');
    const token = statSync(TOKEN);
    assert.equal(token.mode & 0o777, 0o640);
    assert.equal(token.gid, ids.gid);
    assert.match(readFileSync(TOKEN, 'utf8'), /^[0-9a-f]{64}$/);
    assert.equal(statSync(GATEWAY_YAML).gid, ids.gid);
  });

  it('the installed fleetls CLI, as its user without node, lists through the installed agent', async () => {
    const ids = userIds('fleetls-gateway')!;
    const out = await runWithoutNode(
      '/usr/bin/fleetls',
      ['--inventory', GATEWAY_YAML, 'ls', `here:${tree}/logs`, '--json'],
      ids,
    );
    const answer = JSON.parse(out) as { items: { path: string }[] };
    assert.deepEqual(
      answer.items.map((i) => i.path),
      ['a.log'],
    );
  });

  it("the unit's ExecStart (serve --http, the token) without node answers list_directory over MCP through the agent", async () => {
    const unit = readFileSync('/usr/lib/systemd/system/fleetls.service', 'utf8');
    // systemd's own expansion of ${FLEETLS_HTTP}, with a free port for the test.
    assert.match(unitSetting(unit, 'Environment'), /^FLEETLS_HTTP=127\.0\.0\.1:8765$/);
    const [command, ...args] = unitSetting(unit, 'ExecStart')
      .replace(/\$\{FLEETLS_HTTP\}/, '127.0.0.1:0')
      .split(/\s+/);
    const ids = userIds(unitSetting(unit, 'User'))!;
    const child = spawn(...withoutNode(command as string, args, ids), {
      env: { PATH: SYSTEM_PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        const m = /MCP over HTTP at (http:\/\/\S+)/.exec(stderr);
        if (m) resolve(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`fleetls serve exited ${code}:\n${stderr}`)));
    });
    const client = new Client({ name: 'packages-test', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${readFileSync(TOKEN, 'utf8').trim()}` } },
        }),
      );
      const result = (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'here', path: tree, depth: 2 },
      })) as { isError?: boolean; content: { type: string; text: string }[] };
      assert.ok(!result.isError, JSON.stringify(result));
      assert.match(result.content[0]?.text ?? '', /a\.log/);
    } finally {
      await client.close();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it("purge of the gateway removes its user, gateway.yaml and token, and leaves the agent's config", () => {
    sh('dpkg', ['--purge', 'fleetls']);
    assert.equal(userIds('fleetls-gateway'), undefined);
    assert.equal(existsSync(GATEWAY_YAML), false);
    assert.equal(existsSync('/etc/fleetls/gateway'), false);
    assert.ok(existsSync(CONFIG));
    assert.ok(userIds('fleetls'));
  });
});

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
        const paths = rows.flatMap((row) => (row.kind === 'entry' ? [row.entry.path.toString()] : [])).sort();
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
