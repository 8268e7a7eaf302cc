// Every file an inventory names (agent TLS, the agents' token, SSH keys, known_hosts,
// passphrase files) is read when the inventory loads: a missing or unreadable one is an
// inventory error naming its key path, rather than every host failing at call time.
import { readFileSync } from 'node:fs';

/** The parts of an Inventory that name files (structural: inventory.ts calls this file). */
export interface NamesFiles {
  agentTls?: { ca: string; cert?: string; key?: string } | 'insecure';
  agentTokenFile?: string;
  hosts: { name: string; ssh?: { identityFile?: string; knownHosts?: string; passphraseFile?: string } }[];
}

/** Each named file with the key path that names it, in the file's order. */
export function namedFiles(inv: NamesFiles): { key: string; file: string }[] {
  const out: { key: string; file: string }[] = [];
  const tls = inv.agentTls;
  if (tls && tls !== 'insecure') {
    for (const k of ['ca', 'cert', 'key'] as const) {
      const file = tls[k];
      if (file !== undefined) out.push({ key: `agent_tls.${k}`, file });
    }
  }
  if (inv.agentTokenFile !== undefined) out.push({ key: 'agent_token_file', file: inv.agentTokenFile });
  for (const h of inv.hosts) {
    const ssh = h.ssh;
    if (!ssh) continue;
    const at = `hosts.${h.name}.ssh`;
    if (ssh.identityFile !== undefined) out.push({ key: `${at}.identity_file`, file: ssh.identityFile });
    if (ssh.knownHosts !== undefined) out.push({ key: `${at}.known_hosts`, file: ssh.knownHosts });
    if (ssh.passphraseFile !== undefined) out.push({ key: `${at}.passphrase_file`, file: ssh.passphraseFile });
  }
  return out;
}

/** Reads every named file once; returns a problem (key path: why) for each that cannot be read. */
export function unreadableFiles(inv: NamesFiles, read: (file: string) => unknown = readFileSync): string[] {
  const problems: string[] = [];
  for (const { key, file } of namedFiles(inv)) {
    try {
      read(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
      problems.push(`${key}: cannot read ${file} (${why})`);
    }
  }
  return problems;
}
