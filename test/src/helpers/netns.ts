// Real hosts on one machine: each host is a network namespace with its own address, joined
// to the root namespace by a veth pair on its own /30, running fleetls-agent over mTLS.
// Needs root; the fleet and fault tests use it.
import { execFileSync } from 'node:child_process';
import { type AgentProcess, startAgent } from './agent-process.js';
import { agentTlsArgs, type makePki } from './certs.js';

const tag = String(process.pid % 100_000);

export interface TestHost {
  name: string;
  ns: string;
  hostIf: string;
  address: string;
  agent?: AgentProcess;
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
  return { name, ns, hostIf, address: `${prefix}.2` };
}

/** Starts fleetls-agent inside the host's namespace (mTLS on :7443) and waits until it listens. */
export async function startAgentIn(
  host: TestHost,
  dir: string,
  pki: ReturnType<typeof makePki>,
  extra: string[] = [],
): Promise<void> {
  host.agent = await startAgent({
    allow: [dir],
    tls: true,
    listen: `${host.address}:7443`,
    wrap: ['ip', 'netns', 'exec', host.ns],
    args: [...agentTlsArgs(pki), ...extra],
  });
}

/** Kills what runs in the host and deletes its link and namespace. */
export function removeHost(host: TestHost): void {
  host.agent?.child.kill('SIGKILL');
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
