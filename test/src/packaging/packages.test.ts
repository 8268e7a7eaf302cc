// The agent's .deb and .rpm on this machine, for real. They carry a self-contained
// executable and its native module (/usr/lib/fleetls-agent/fsat.node) and depend on no
// nodejs. The .deb: dpkg -i creates the fleetls user and installs the unit and
// /etc/fleetls/agent.yaml; the installed agent (the unit's ExecStart, run as its User:
// systemd is not PID 1 here, in a mount namespace where this machine's node is hidden)
// stats entries by fstatat through the installed module and answers a Walk with an edited
// config; an upgrade keeps the edit; remove stops and disables, purge removes user and
// config. The systemd branches of the maintainer scripts run against a fake systemctl in a
// mount namespace where /run/systemd/system exists, so what they would ask systemd for is
// checked; real systemd as PID 1 is not exercised. The .rpm: its metadata and scriptlets
// with rpm -qp, then installed, upgraded and erased with rpm itself (its own database,
// --nodeps: this Debian machine's rpm database knows no packages). The executable npm run
// package writes finds the module beside it. gateway-package.test.ts and
// ansible-role.test.ts install packages too: each file holds holdPackageLock while it
// runs, so no two install at once. Needs root.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launch } from '@fleetls/testkit';
import { agentClient, healthCheck, walkAll } from '../helpers/agent-process.js';
import { startAsUnit, UNIT_FILE, unitSetting, userIds } from '../helpers/installed-agent.js';
import { buildPackage, builtExecutables, holdPackageLock, sh } from '../helpers/packages.js';
import { tcpListenersOf } from '../helpers/proc-sockets.js';
import { entryPaths } from '../helpers/walks.js';

const CONFIG = '/etc/fleetls/agent.yaml';
const MODULE = '/usr/lib/fleetls-agent/fsat.node';
/** The installed module loaded: the start line names it (fsat.ts's statRoute). */
const BY_INSTALLED_MODULE = `fstatat (${MODULE})`;

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

if (process.getuid?.() !== 0) throw new Error('the package tests install packages: run them as root, as CI does');
before(holdPackageLock);

describe('the executables npm run package writes', () => {
  it('fleetls-agent, run from beside its fsat.node (a downloaded copy), stats entries by fstatat through it', async () => {
    const dir = builtExecutables();
    const agent = launch(
      join(dir, 'fleetls-agent'),
      ['--listen', '127.0.0.1:0', '--insecure-loopback', '--allow', dir],
      {
        name: 'agent',
      },
    );
    try {
      const line = await agent.waitFor(/^(\{.*"msg":"listening".*)\n/m, 15_000);
      assert.equal((JSON.parse(line) as { statRoute: string }).statRoute, `fstatat (${join(dir, 'fsat.node')})`);
    } finally {
      await agent.stop();
    }
  });
});

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
    assert.match(files, /^-rw-r--r-- root\/root .* \.\/usr\/lib\/fleetls-agent\/fsat\.node$/m);
    assert.match(files, /\.\/usr\/lib\/systemd\/system\/fleetls-agent\.service\n/);
    assert.doesNotMatch(files, /node_modules|\.mjs/);
    assert.equal(
      sh('dpkg-deb', ['--field', v1, 'Depends']).trim(),
      'libc6 (>= 2.28), libstdc++6 (>= 5.2), libgcc-s1 | libgcc1, passwd',
    );
    assert.equal(sh('dpkg-deb', ['--info', v1, 'conffiles']), '/etc/fleetls/agent.yaml\n');
  });

  it('installs without systemd: a system user, the config readable by it, nothing enabled, and says so', () => {
    const install = spawnSync('dpkg', ['--force-unsafe-io', '-i', v1], { encoding: 'utf8' });
    assert.equal(install.status, 0, install.stderr);
    // Issue 40: not silent. It names what it did not start and where the way without systemd is.
    assert.match(
      install.stderr,
      /fleetls-agent: systemd is not running here, so fleetls-agent\.service was not started; to run it without systemd: \/usr\/share\/doc\/fleetls-agent\/README \("Without systemd"\)/,
    );
    const ids = userIds('fleetls');
    assert.ok(ids, 'user fleetls created');
    assert.ok(ids.uid < 1000, `a system uid (${ids.uid})`);
    assert.match(sh('getent', ['passwd', 'fleetls']), /:\/usr\/sbin\/nologin\n$/);
    const st = statSync(CONFIG);
    assert.equal(st.mode & 0o777, 0o640);
    assert.equal(st.gid, ids.gid);
    assert.ok(existsSync(UNIT_FILE));
    assert.equal(statSync(MODULE).mode & 0o777, 0o644);
    assert.equal(existsSync('/etc/systemd/system/multi-user.target.wants/fleetls-agent.service'), false);
  });

  it('ships a README that says what it installed, how to configure and start it, and where the docs are', () => {
    const readme = readFileSync('/usr/share/doc/fleetls-agent/README', 'utf8');
    assert.match(readme, /^fleetls-agent 0\.0\.1~test1: /);
    for (const heading of [
      'What this package installs',
      'Configure',
      'Start, check, stop',
      'Without systemd',
      'Remove',
      'Documentation',
    ]) {
      assert.match(readme, new RegExp(`^${heading}`, 'm'), heading);
    }
    // Every file it names is one the package installed.
    const installed = new Set(sh('dpkg', ['-L', 'fleetls-agent']).trim().split('\n'));
    const named = [...readme.matchAll(/^ {2}(\/\S+)/gm)].map((m) => m[1] as string);
    assert.ok(named.length >= 4, named.join(' '));
    assert.deepEqual(
      named.filter((f) => !installed.has(f)),
      [],
    );
    assert.match(readme, /man 8 fleetls-agent/);
  });

  it("the README's commands without systemd, pasted, start the agent on its socket as fleetls", async () => {
    const readme = readFileSync('/usr/share/doc/fleetls-agent/README', 'utf8');
    const section = readme.split(/^Without systemd.*$/m)[1]?.split(/^\S/m)[0] ?? '';
    const script = section
      .split('\n')
      .filter((l) => l.startsWith('    '))
      .join('\n');
    assert.match(script, /fleetls-agent --config \/etc\/fleetls\/agent\.yaml/);
    rmSync('/run/fleetls', { recursive: true, force: true });
    const shell = launch('sh', ['-ec', script], { name: 'agent' });
    // The agent is the shell's child (setpriv execs it): stopped itself, as a terminal's ^C would.
    const agentPid = () => Number(readFileSync(`/proc/${shell.child.pid}/task/${shell.child.pid}/children`, 'utf8'));
    let pid: number | undefined;
    try {
      const line = await shell.waitFor(/^(\{.*"msg":"listening".*)\n/m, 15_000);
      pid = agentPid();
      assert.equal((JSON.parse(line) as { socket?: string }).socket, '/run/fleetls/agent.sock');
      assert.equal(await healthCheck('unix:/run/fleetls/agent.sock'), 'SERVING');
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      assert.match(status, new RegExp(`^Uid:\\s+${userIds('fleetls')?.uid}\\s`, 'm'));
      // CAP_DAC_READ_SEARCH (bit 2) and nothing else, as the unit gives it.
      assert.equal(/^CapEff:\s+(\S+)$/m.exec(status)?.[1], '0000000000000004');
    } finally {
      if (pid) process.kill(pid, 'SIGTERM');
      await shell.stop();
      rmSync('/run/fleetls', { recursive: true, force: true });
    }
  });

  it('as installed, only group fleetls reaches the agent: a Unix socket, no TCP port (issue 35, F7)', async () => {
    const unit = readFileSync(UNIT_FILE, 'utf8');
    const ids = userIds('fleetls')!;
    // What systemd makes before ExecStart: the unit's RuntimeDirectory, its mode, the unit's user and group.
    const runDir = join('/run', unitSetting(unit, 'RuntimeDirectory'));
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir);
    chownSync(runDir, ids.uid, ids.gid);
    chmodSync(runDir, Number.parseInt(unitSetting(unit, 'RuntimeDirectoryMode'), 8));
    const agent = await startAsUnit(UNIT_FILE, 15_000);
    try {
      const sock = (agent.listening as { socket?: string }).socket;
      assert.equal(sock, '/run/fleetls/agent.sock', 'the packaged agent.yaml as shipped');
      assert.deepEqual(tcpListenersOf(agent.child.pid as number), [], 'no TCP port at all');
      const st = statSync(sock);
      assert.equal(st.mode & 0o777, 0o660);
      assert.equal(st.gid, ids.gid);
      assert.equal(await healthCheck(`unix:${sock}`), 'SERVING');
      // A local user outside the group (nobody) is refused by the kernel, before any gRPC.
      const nobody = spawnSync(
        process.execPath,
        [
          '-e',
          `require('net').connect(${JSON.stringify(sock)}).on('connect',()=>process.exit(0)).on('error',e=>{console.log(e.code);process.exit(3)})`,
        ],
        { uid: 65534, gid: 65534, encoding: 'utf8' },
      );
      assert.equal(nobody.stdout.trim(), 'EACCES');
      assert.equal(nobody.status, 3);
    } finally {
      await agent.stop();
      rmSync(runDir, { recursive: true, force: true });
    }
  });

  it('the installed agent, as its user with the edited config, on a host without node, stats by fstatat through the installed module and answers a Walk', async () => {
    writeFileSync(
      CONFIG,
      `# edited by the .deb test\nlisten: 127.0.0.1:0\ninsecure_loopback: true\nallow: [${tree}]\n`,
    );
    const agent = await startAsUnit(UNIT_FILE, 15_000, true);
    const client = agentClient(`127.0.0.1:${agent.port}`);
    try {
      assert.equal(agent.listening.statRoute, BY_INSTALLED_MODULE);
      const { rows } = await walkAll(client, { path: tree, maxDepth: 2 });
      const paths = entryPaths(rows);
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
    assert.equal(existsSync('/usr/lib/fleetls-agent'), false);
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

  it("requires no nodejs and no glibc past the .deb's 2.28, holds the executable, its module, the unit and a noreplace config, no node_modules", () => {
    const requires = rpm(['-qp', '--requires', v1]).split('\n');
    assert.deepEqual(
      requires.filter((r) => /node/i.test(r)),
      [],
    );
    assert.ok(requires.includes('shadow-utils'), requires.join(', '));
    // What the executable links (RHEL 8's glibc), not what fsat.node was built against.
    assert.ok(requires.includes('libc.so.6(GLIBC_2.28)(64bit)'), requires.join(', '));
    assert.deepEqual(
      requires.filter((r) => Number(/\(GLIBC_2\.(\d+)/.exec(r)?.[1] ?? 0) > 28),
      [],
    );
    const files = rpm(['-qp', '--list', v1]);
    assert.deepEqual(files.trim().split('\n'), [
      '/etc/fleetls',
      '/etc/fleetls/agent.yaml',
      '/usr/bin/fleetls-agent',
      '/usr/lib/fleetls-agent',
      MODULE,
      '/usr/lib/systemd/system/fleetls-agent.service',
      '/usr/share/bash-completion/completions/fleetls-agent',
      '/usr/share/doc/fleetls-agent/README',
      '/usr/share/fish/vendor_completions.d/fleetls-agent.fish',
      '/usr/share/man/man8/fleetls-agent.8.gz',
      '/usr/share/zsh/site-functions/_fleetls-agent',
    ]);
    assert.equal(rpm(['-qp', '--configfiles', v1]).trim(), '/etc/fleetls/agent.yaml');
    const scripts = rpm(['-qp', '--scripts', v1]);
    for (const part of ['preinstall', 'postinstall', 'preuninstall', 'postuninstall']) {
      assert.match(scripts, new RegExp(`${part} scriptlet`));
    }
    assert.match(scripts, /useradd --system/);
    assert.match(scripts, /systemd is not running here, so fleetls-agent\.service was not started/);
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
    assert.equal(statSync(MODULE).mode & 0o777, 0o644);
  });

  it('an upgrade keeps the edited agent.yaml and restarts the unit', async () => {
    writeFileSync(CONFIG, '# edited by the .rpm test\nlisten: 127.0.0.1:0\ninsecure_loopback: true\nallow: []\n');
    const systemctl = rpmUnderSystemd(['-U', v2]);
    assert.match(readFileSync(CONFIG, 'utf8'), /edited by the \.rpm test/);
    assert.equal(rpm(['-q', 'fleetls-agent']).trim(), 'fleetls-agent-0.0.1~test2-1.x86_64');
    assert.deepEqual(systemctl, [
      'daemon-reload',
      'is-enabled --quiet fleetls-agent.service',
      'restart fleetls-agent.service',
    ]);
    // The upgraded files still start, as the unit's user, with the kept config, and load the module.
    const agent = await startAsUnit();
    await agent.stop();
    assert.equal(agent.listening.statRoute, BY_INSTALLED_MODULE);
  });

  it('erase stops and disables the unit, removes the files and keeps the edit as .rpmsave', () => {
    const systemctl = rpmUnderSystemd(['-e', 'fleetls-agent']);
    assert.deepEqual(systemctl, ['stop fleetls-agent.service', 'disable fleetls-agent.service', 'daemon-reload']);
    assert.equal(existsSync(UNIT_FILE), false);
    assert.equal(existsSync('/usr/bin/fleetls-agent'), false);
    assert.equal(existsSync('/usr/lib/fleetls-agent'), false);
    assert.equal(existsSync(CONFIG), false);
    assert.match(readFileSync(`${CONFIG}.rpmsave`, 'utf8'), /edited by the \.rpm test/);
  });
});
