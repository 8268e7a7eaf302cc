// The agent's Unix socket: the path made ready before the bind (a stale socket replaced
// only when it is one and nothing answers on it), then the mode and group that decide who
// may connect, and the path removed at exit. File permissions are this listener's boundary.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as nodePath from 'node:path';
import type { UnixListen } from '../config/config.js';
import { formatMode } from '../config/values.js';

/** Resolves a group name (or number) to its gid through NSS (getent), then /etc/group. */
export function resolveGroup(group: string): number {
  if (/^\d+$/.test(group)) return Number(group);
  let line: string | undefined;
  try {
    line = execFileSync('getent', ['group', group], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (err) {
    // getent exits 2 for "no such group"; a missing getent falls back to the file.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      line = readGroupFile().find((l) => l.startsWith(`${group}:`));
    }
  }
  const gid = line === undefined ? Number.NaN : Number(line.split(':')[2]);
  if (!Number.isInteger(gid)) {
    throw new Error(
      `socket_group: no group named '${group}' on this host (create it with \`groupadd --system ${group}\`, or set socket_group)`,
    );
  }
  return gid;
}

function readGroupFile(): string[] {
  try {
    return fs.readFileSync('/etc/group', 'utf8').split('\n');
  } catch {
    return [];
  }
}

/** Whether something accepts connections on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(path);
    const done = (v: boolean) => {
      s.destroy();
      resolve(v);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    s.setTimeout(1000, () => done(true));
  });
}

/**
 * Makes `path` free for a bind: nothing there, or a stale socket of ours, which is removed.
 * Anything else (a file, a live socket, someone else's socket, no directory) is an error
 * that names the path.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== 'ENOENT') throw new Error(`listen: ${path}: ${e.message}`);
    const dir = nodePath.dirname(path);
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new Error(`listen: directory ${dir} does not exist (create it first, e.g. systemd's RuntimeDirectory=)`);
    }
    return;
  }
  if (!st.isSocket()) throw new Error(`listen: ${path} exists and is not a socket; refusing to replace it`);
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && st.uid !== uid) {
    throw new Error(
      `listen: ${path} is a socket owned by uid ${st.uid}, not this agent (uid ${uid}); not replacing it`,
    );
  }
  if (await answers(path)) throw new Error(`listen: another process is listening on ${path}`);
  fs.unlinkSync(path);
}

/** Sets the bound socket's group and mode; the identity of the file is kept for removal at exit. */
export function secureSocket(listen: UnixListen, gid: number): { ino: number } {
  try {
    fs.chownSync(listen.path, -1, gid);
  } catch (err) {
    throw new Error(
      `socket_group: cannot give ${listen.path} to group ${listen.group} (gid ${gid}): ${(err as Error).message}; ` +
        'the agent must run as root or as a member of that group',
    );
  }
  fs.chmodSync(listen.path, listen.mode);
  return { ino: fs.statSync(listen.path).ino };
}

/** Removes the socket at exit, unless another process has put its own at the path since. */
export function removeSocket(path: string, ino: number): void {
  try {
    if (fs.lstatSync(path).ino === ino) fs.unlinkSync(path);
  } catch {
    // Already gone (grpc-js's listener close unlinks it).
  }
}

export function describeSocket(listen: UnixListen): string {
  return `unix:${listen.path} (mode ${formatMode(listen.mode)}, group ${listen.group})`;
}
