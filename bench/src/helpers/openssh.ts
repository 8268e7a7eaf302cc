// The OpenSSH side of the SSH sections: a throwaway sshd (the tests' helper), the ssh client
// spawned directly (no shell, so no login-shell cost on our side), and a ControlMaster for
// warm calls, so both sections time OpenSSH the same way.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, sh, withTimeout } from './proc.js';

export interface SshdLike {
  host: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
  gid: number;
  /** A directory owned by the login user (0755). */
  dir: string;
  stop(): Promise<void>;
}

/** test/src/helpers/sshd.ts's throwaway sshd on 127.0.0.1 (needs root and a built test/). */
export async function startBenchSshd(): Promise<SshdLike> {
  if (process.getuid?.() !== 0) throw new Error('needs root to start a throwaway sshd and its login user');
  const helper = path.join(REPO_ROOT, 'test', 'dist', 'helpers', 'sshd.js');
  if (!fs.existsSync(helper)) throw new Error('test/dist/helpers/sshd.js is not built (npm run build)');
  const { startSshd } = (await import(helper)) as { startSshd: () => Promise<SshdLike> };
  return withTimeout(startSshd(), 30_000, 'startSshd');
}

/** Runs the OpenSSH client with these arguments (no shell); its wall time and stdout. */
export function ssh(args: string[], timeoutMs = 120_000): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile('ssh', args, { timeout: timeoutMs, maxBuffer: 1 << 26, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`ssh ${args.at(-1)?.slice(0, 80)}: ${err.message} ${stderr.slice(0, 300)}`));
      else resolve({ ms: performance.now() - t0, stdout });
    });
  });
}

/** The ssh client's view of one sshd: a new connection per command, or one ControlMaster for all. */
export class OpenSsh {
  /** Arguments that reach the sshd with its throwaway key, host key verified, no config. */
  readonly base: string[];
  readonly dest: string;
  private master: Promise<unknown> | undefined;

  constructor(
    sshd: SshdLike,
    private readonly ctl: string,
  ) {
    this.base = [
      ...['-F', '/dev/null', '-i', sshd.identityFile, '-o', `UserKnownHostsFile=${sshd.knownHostsFile}`],
      ...['-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-p', String(sshd.port)],
    ];
    this.dest = `${sshd.user}@127.0.0.1`;
  }

  /** A command over a new connection (a cold call). */
  cold(command: string): Promise<{ ms: number; stdout: string }> {
    return ssh([...this.base, this.dest, command]);
  }

  /** A command over the ControlMaster (a warm call); startMaster() first. */
  warm(command: string): Promise<{ ms: number; stdout: string }> {
    return ssh([...this.base, '-S', this.ctl, '-o', 'ControlMaster=no', this.dest, command]);
  }

  async startMaster(): Promise<void> {
    this.master = sh(`ssh ${this.base.map((a) => `'${a}'`).join(' ')} -M -N -S '${this.ctl}' ${this.dest}`, {
      timeoutMs: 900_000,
    }).catch(() => {});
    for (let i = 0; i < 100 && !fs.existsSync(this.ctl); i++) await new Promise((r) => setTimeout(r, 100));
  }

  async close(): Promise<void> {
    if (!this.master) return;
    await ssh([...this.base, '-S', this.ctl, '-O', 'exit', this.dest], 5000).catch(() => {});
    await withTimeout(this.master, 5000, 'ssh master exit').catch(() => {});
  }
}
