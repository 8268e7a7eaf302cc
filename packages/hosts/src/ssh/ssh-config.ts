// `~/.ssh/config` aliases: HostName, User, Port, IdentityFile, ProxyJump. Parsed with the
// ssh-config package, whose compute() would run `Match exec` commands through a shell by
// default; we never let it (matchExec: false), since the config may not be ours to trust.
import { readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import SSHConfig from 'ssh-config';

export interface SshConfigEntry {
  hostName: string;
  user?: string;
  port?: number;
  /** `~`-expanded, in the order ssh tries them. */
  identityFiles: string[];
  proxyJump?: string;
}

export function expandTilde(path: string, home = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

/** The config text at `~/.ssh/config`, or '' when there is none. */
export function readUserSshConfig(home = homedir()): string {
  try {
    return readFileSync(join(home, '.ssh', 'config'), 'utf8');
  } catch {
    return '';
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Resolves `host` against ssh config text. `Match exec` criteria count as not matching;
 * `Include` is not followed (a limitation of the parser). `%h`, `%p`, `%r` and `%u` are
 * expanded in IdentityFile as ssh does; other tokens are left as they are.
 */
export function resolveSshConfig(host: string, text: string, home = homedir()): SshConfigEntry {
  const computed =
    text.trim() === '' ? {} : SSHConfig.parse(text).compute(host, { matchExec: false, ignoreCase: true });
  // ssh expands %h in HostName to the name given on the command line.
  const hostName = (first(computed.hostname) ?? host).replace(/%([h%])/g, (_, t: string) => (t === 'h' ? host : '%'));
  // compute() fills User with the local user when the config has none; keep only explicit ones.
  const explicitUser = hasDirective(text, 'user') ? first(computed.user) : undefined;
  const portText = first(computed.port);
  const port = portText !== undefined && /^\d+$/.test(portText) ? Number(portText) : undefined;
  const idRaw = computed.identityfile;
  const ids = idRaw === undefined ? [] : Array.isArray(idRaw) ? idRaw : [idRaw];
  const user = explicitUser ?? localUser();
  const identityFiles = ids.map((p) =>
    expandTilde(
      p.replace(/%([hpru%])/g, (_, t: string) =>
        t === 'h' ? hostName : t === 'p' ? String(port ?? 22) : t === 'r' ? user : t === 'u' ? localUser() : '%',
      ),
      home,
    ),
  );
  const proxyJump = first(computed.proxyjump);
  return {
    hostName,
    user: explicitUser,
    port,
    identityFiles,
    proxyJump: proxyJump && proxyJump.toLowerCase() !== 'none' ? proxyJump : undefined,
  };
}

function hasDirective(text: string, name: string): boolean {
  return new RegExp(`^\\s*${name}[\\s=]`, 'im').test(text);
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? '';
  }
}

/** `[user@]host[:port]`, the first hop of a ProxyJump value (later hops are not supported). */
export function parseJump(spec: string): { host: string; user?: string; port?: number } {
  const hop = spec.split(',')[0].trim();
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hop);
  if (!m) return { host: hop };
  return { user: m[1], host: m[2].replace(/^\[|\]$/g, ''), port: m[3] ? Number(m[3]) : undefined };
}
