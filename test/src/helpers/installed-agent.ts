// The agent as a package installed it: the unit's ExecStart run as the unit's User, the
// way systemd would start it (systemd is not PID 1 on CI, so the test starts it itself).
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { launch } from '@fleetls/testkit';

export const UNIT_FILE = '/usr/lib/systemd/system/fleetls-agent.service';

/** uid and gid of a local user, from getent. */
export function userIds(user: string): { uid: number; gid: number } | undefined {
  try {
    const f = execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).split(':');
    return { uid: Number(f[2]), gid: Number(f[3]) };
  } catch {
    return undefined;
  }
}

/** A `Key=value` of the unit's [Service] section (the last one wins, as in systemd). */
export function unitSetting(unitText: string, key: string): string {
  const lines = unitText.split('\n').filter((l) => l.startsWith(`${key}=`));
  const last = lines.at(-1);
  if (!last) throw new Error(`${key}= missing from the unit`);
  return last.slice(key.length + 1);
}

export interface Started {
  child: ChildProcess;
  port: number;
  /** The agent's "listening" line (statRoute: how it stats entries). */
  listening: { port: number; statRoute: string };
  stop: () => Promise<unknown>;
}

/** Every `node` of this machine: the one running the tests and each on PATH. */
function nodesOfThisMachine(): string[] {
  const onPath = execFileSync('sh', ['-c', 'which -a node || true'], { encoding: 'utf8' }).split('\n');
  return [...new Set([process.execPath, ...onPath].filter(Boolean).map((p) => realpathSync(p)))];
}

/**
 * `command args` as user `ids`, in a mount namespace where every node of this machine is
 * /dev/null (so nothing can run it) and PATH is the system's: a host without Node. The
 * shell refuses to start the command if a node is still found there.
 */
export function withoutNode(command: string, args: string[], ids: { uid: number; gid: number }): [string, string[]] {
  const script = [
    'while [ "$1" != -- ]; do mount --bind /dev/null "$1"; shift; done; shift',
    'if command -v node >/dev/null; then echo "node still on PATH: $(command -v node)" >&2; exit 97; fi',
    `exec setpriv --reuid=${ids.uid} --regid=${ids.gid} --clear-groups "$@"`,
  ].join('\n');
  return [
    'unshare',
    ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', ...nodesOfThisMachine(), '--', command, ...args],
  ];
}

/** The PATH of a stock host: no node anywhere on it once withoutNode hid the machine's. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Runs the installed unit's ExecStart as its User and waits for the agent's "listening"
 * line; rejects with the agent's stderr when it exits first. `noNode`: in a mount
 * namespace where this machine's node is hidden (withoutNode), with the system PATH only.
 */
export async function startAsUnit(unitFile = UNIT_FILE, timeoutMs = 15_000, noNode = false): Promise<Started> {
  const unit = readFileSync(unitFile, 'utf8');
  const [command, ...args] = unitSetting(unit, 'ExecStart').split(/\s+/);
  const ids = userIds(unitSetting(unit, 'User'));
  if (!command || !ids) throw new Error(`cannot run the unit's ExecStart as its User (${unitFile})`);
  const p = noNode
    ? launch(...withoutNode(command, args, ids), { name: 'agent', env: { PATH: SYSTEM_PATH } })
    : launch(command, args, { name: 'agent', uid: ids.uid, gid: ids.gid });
  // A whole line: JSON.parse must not meet one still being written.
  const line = await p.waitFor(/^(\{.*"msg":"listening".*)\n/m, timeoutMs);
  const listening = JSON.parse(line) as Started['listening'];
  return { child: p.child, port: Number(listening.port), listening, stop: p.stop };
}
