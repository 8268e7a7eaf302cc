// A real OpenSSH sshd on a free loopback port, with throwaway host and user keys and an
// unprivileged login user whose shell is /bin/sh. Needs root (to start sshd and create
// the user); without it, it throws, so the tests fail loudly instead of skipping.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@fleetls/testkit';

export interface Sshd {
  host: '127.0.0.1';
  port: number;
  user: string;
  uid: number;
  gid: number;
  identityFile: string;
  knownHostsFile: string;
  hostKeyFingerprint: string;
  /** A directory the tests may use (world-readable, outside any private tmp dir). */
  dir: string;
  acceptedConnections(): number;
  stop(): Promise<void>;
}

/** The SSH backend's target for `sshd`: its login and key, trusting its host key (or `knownHosts`). */
export function sshTarget(sshd: Sshd, knownHosts = sshd.knownHostsFile) {
  return { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts };
}

/** The same as an inventory's `ssh:` value (YAML flow mapping); `port` for another (dead) port. */
export function sshInventory(sshd: Sshd, over: { port?: number; knownHosts?: string } = {}): string {
  return `{ host: 127.0.0.1, port: ${over.port ?? sshd.port}, user: ${sshd.user}, identity_file: ${sshd.identityFile}, known_hosts: ${over.knownHosts ?? sshd.knownHostsFile} }`;
}

const SSHD = '/usr/sbin/sshd';

/** Creates the system user (shell /bin/sh, a home) unless it exists; key logins only. */
export function ensureUser(user: string): { uid: number; gid: number; home: string } {
  const lookup = () => {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${user}:`));
    if (!line) return undefined;
    const f = line.split(':');
    return { uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
  };
  let u = lookup();
  if (!u) {
    try {
      execFileSync('useradd', ['--system', '--shell', '/bin/sh', '--create-home', user], { stdio: 'pipe' });
    } catch (err) {
      // Another test file may have created it at the same moment.
      if (!lookup()) throw err;
    }
    u = lookup()!;
  }
  // useradd leaves the password '!' (locked), and sshd without PAM refuses locked accounts;
  // '*' means no password but not locked: key logins only.
  execFileSync('usermod', ['-p', '*', user], { stdio: 'pipe' });
  return u;
}

export interface SshdOptions {
  user?: string;
  /** sshd_config lines appended after the defaults (e.g. `SetEnv PATH=...`); checked with `sshd -t`. */
  extraConfig?: string[];
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      'startSshd needs root (it starts sshd and creates a login user); run the SSH tests as root, as CI does',
    );
  }
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: apt-get install -y openssh-server`);
  const user = opts.user ?? 'fleetls-ssh';
  const { uid, gid } = ensureUser(user);
  // Keys and config in a root-owned 0755 dir under the (world-writable) tmp dir.
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-sshd-'));
  chmodSync(dir, 0o755);
  const hostKey = join(dir, 'host_ed25519');
  const userKey = join(dir, 'user_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  const authDir = join(dir, 'auth');
  mkdirSync(authDir, { mode: 0o755 });
  const authorizedKeys = join(authDir, `${user}.keys`);
  writeFileSync(authorizedKeys, readFileSync(`${userKey}.pub`), { mode: 0o644 });
  const work = join(dir, 'work');
  mkdirSync(work, { mode: 0o755 });
  chownSync(work, uid, gid);
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });

  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(authDir, '%u.keys')}`,
      `AllowUsers ${user}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'UsePAM no',
      // The tmp dir is world-writable (1777), which StrictModes rejects on the authorized_keys path.
      'StrictModes no',
      'MaxSessions 10',
      'LogLevel VERBOSE',
      'PrintMotd no',
      'Subsystem sftp internal-sftp',
      ...(opts.extraConfig ?? []),
      '',
    ].join('\n'),
  );
  if (opts.extraConfig) execFileSync(SSHD, ['-t', '-f', config], { stdio: 'pipe' });
  const hostPub = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/);
  const knownHostsFile = join(dir, 'known_hosts');
  writeFileSync(knownHostsFile, `[127.0.0.1]:${port} ${hostPub[0]} ${hostPub[1]}\n`);
  const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`], { encoding: 'utf8' }).split(
    ' ',
  )[1];

  const proc: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let accepted = 0;
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (d: string) => {
    log += d;
    const lines = log.split('\n');
    log = lines.pop()!;
    for (const l of lines) if (l.includes('Accepted publickey')) accepted++;
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  // Ready once the port accepts a TCP connection.
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      if (proc.exitCode !== null) throw new Error(`sshd exited at start (${proc.exitCode})`);
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
  await waitFor(accepts, { everyMs: 50, what: `sshd on ${port}` }).catch((e: Error) => {
    proc.kill('SIGKILL');
    throw new Error(`${e.message}: ${log}`);
  });
  return {
    host: '127.0.0.1',
    port,
    user,
    uid,
    gid,
    identityFile: userKey,
    knownHostsFile,
    hostKeyFingerprint: fp,
    dir: work,
    acceptedConnections: () => accepted,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A PATH with sh and head but a `find` that is not GNU's (as on BusyBox hosts). */
export function shimPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-nofind-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'find'), '#!/bin/sh\necho "BusyBox v1.36.1 multi-call binary."\nexit 1\n', { mode: 0o755 });
  for (const tool of ['sh', 'head', 'timeout', 'du', 'stat', 'getent']) {
    const real = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    symlinkSync(real, join(dir, tool));
  }
  return dir;
}
