// Real hosts on one machine: each host is a network namespace with its own address, joined
// to the root namespace by a veth pair on its own /30, running fleetls-agent over mTLS.
// Needs root; the fleet and fault tests use it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { AGENT_MAIN } from './agent-process.js';
import type { makePki } from './certs.js';

const tag = String(process.pid % 100_000);

export interface TestHost {
  name: string;
  ns: string;
  hostIf: string;
  address: string;
  agent?: ChildProcess;
  /** The agent's stderr so far (its JSON log). */
  log: string;
}

export function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** A namespace joined to the root namespace by a veth pair on 10.<net>.<index>.0/30. */
export function makeHost(name: string, index: number, net = 213): TestHost {
  const ns = `fl${tag}${name}`;
  const hostIf = `flh${tag}${index}`;
  const nsIf = `fln${tag}${index}`;
  const prefix = `10.${net}.${index}`;
  ip('netns', 'add', ns);
  ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf, 'netns', ns);
  ip('addr', 'add', `${prefix}.1/30`, 'dev', hostIf);
  ip('link', 'set', hostIf, 'up');
  ip('-n', ns, 'addr', 'add', `${prefix}.2/30`, 'dev', nsIf);
  ip('-n', ns, 'link', 'set', nsIf, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  return { name, ns, hostIf, address: `${prefix}.2`, log: '' };
}

/** Starts fleetls-agent inside the host's namespace (mTLS on :7443) and waits until it listens. */
export function startAgentIn(
  host: TestHost,
  dir: string,
  pki: ReturnType<typeof makePki>,
  extra: string[] = [],
): Promise<void> {
  // Never this machine's /etc/fleetls/agent.yaml: the package tests install one meanwhile.
  const args = ['netns', 'exec', host.ns, process.execPath, AGENT_MAIN, '--config', '/dev/null'];
  args.push('--listen', `${host.address}:7443`);
  args.push('--allow', dir, '--tls-cert', pki.serverCert, '--tls-key', pki.serverKey, '--tls-ca', pki.ca, ...extra);
  const child = spawn('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  host.agent = child;
  host.log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent in ${host.ns} did not start: ${host.log}`)), 15_000);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      host.log += chunk;
      if (host.log.includes('"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent in ${host.ns} exited ${code}: ${host.log}`));
    });
  });
}

/** Kills what runs in the host and deletes its link and namespace. */
export function removeHost(host: TestHost): void {
  host.agent?.kill('SIGKILL');
  // Deleting one end of the veth pair deletes both; the namespace goes with its last user.
  for (const args of [
    ['link', 'del', host.hostIf],
    ['netns', 'del', host.ns],
  ]) {
    try {
      ip(...args);
    } catch {
      // already gone
    }
  }
}
