// The `hosts` and `groups` sections of an inventory: each host's agent address or socket,
// SSH settings and labels; groups naming hosts.

import type { SshHostConfig } from '@fleetls/hosts';
import { EMBEDDED_EXAMPLE, EMBEDDED_KEYS, type EmbeddedSettings, parseEmbeddedAllow } from './localhost.js';
import { describe, isObject, type Json, keyPath, type Problems, unknownKeys } from './problems.js';
import type { Inventory, InventoryHost } from './types.js';

export const HOST_NAME_RE = /^[A-Za-z0-9._-]+$/;
/** The name the embedded agent answers to: always without an inventory, else where the inventory names it. */
export const LOCALHOST = 'localhost';
const HOST_KEYS = ['agent', 'ssh', 'embedded', 'labels'] as const;
const LOCALHOST_NEEDS = `needs \`embedded: { allow: [DIR, …] }\` (this machine, listed by the gateway's own agent under those roots only), or \`agent\` / \`ssh\`, as ${EMBEDDED_EXAMPLE}`;
const SSH_KEYS = [
  'host',
  'port',
  'user',
  'identity_file',
  'known_hosts',
  'strict_host_key_checking',
  'passphrase_file',
  'passphrase_env',
  'proxy_jump',
] as const;

const AGENT_ADDRESS_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** "host:port" with a port in 1..65535 (IPv6 in brackets). */
export function isAgentAddress(address: string): boolean {
  const m = AGENT_ADDRESS_RE.exec(address);
  if (!m) return false;
  const port = Number(m[2]);
  return port >= 1 && port <= 65535;
}

/** Absolute, of characters that need no quoting in a remote shell, and fitting sun_path (107 bytes). */
const SOCKET_PATH_RE = /^\/[A-Za-z0-9._+@/-]{1,106}$/;

/** The problem with `ssh:PATH` as an agent address, or undefined when PATH is fine. */
export function agentSocketProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return `the socket path must be absolute, got ${JSON.stringify(path)}`;
  if (!SOCKET_PATH_RE.test(path) || path.split('/').some((c) => c === '..' || c === '.')) {
    return `the socket path may hold only letters, digits and . _ + @ / - (no . or .. parts, at most 107 bytes), got ${JSON.stringify(path)}`;
  }
  return undefined;
}

/** Resolves a path the inventory names (relative to its directory, `~` expanded). */
export type FilePath = (s: string) => string;

/** `hosts`: a mapping of host names to { agent, ssh, labels } (localhost may be bare). */
export function parseHosts(problems: Problems, hosts: Json, file: FilePath): InventoryHost[] {
  const out: InventoryHost[] = [];
  if (!isObject(hosts)) {
    problems.add('hosts', `expected a mapping of host names, got ${describe(hosts)}`);
    return out;
  }
  for (const [name, spec] of Object.entries(hosts)) {
    const at = keyPath('hosts', name);
    if (!HOST_NAME_RE.test(name)) problems.add(at, 'host names use only letters, digits, ".", "_" and "-"');
    const host: InventoryHost = { name, labels: {}, groups: [] };
    if (spec === null && name === LOCALHOST) {
      problems.add(at, LOCALHOST_NEEDS);
      continue;
    }
    if (!isObject(spec)) {
      problems.add(at, `expected a mapping with \`agent\` and/or \`ssh\`, got ${describe(spec)}`);
      continue;
    }
    unknownKeys(problems, at, spec, HOST_KEYS);
    parseAgent(problems, at, spec, host);
    if (spec.ssh !== undefined) host.ssh = parseSsh(problems, `${at}.ssh`, spec.ssh, name, file);
    if (spec.labels !== undefined) host.labels = parseLabels(problems, `${at}.labels`, spec.labels);
    if (spec.embedded !== undefined) host.embedded = parseEmbedded(problems, at, name, spec);
    else if (spec.agent === undefined && spec.ssh === undefined) {
      problems.add(
        at,
        name === LOCALHOST
          ? LOCALHOST_NEEDS
          : 'needs `agent` ("host:port") or `ssh` (a mapping or an ~/.ssh/config alias)',
      );
    }
    out.push(host);
  }
  return out;
}

/** A host's `agent`: "host:port", or "ssh:PATH" (its socket, through the host's SSH connection). */
function parseAgent(p: Problems, at: string, spec: { [k: string]: Json }, host: InventoryHost): void {
  if (typeof spec.agent === 'string' && spec.agent.startsWith('ssh:')) {
    const socket = spec.agent.slice('ssh:'.length);
    const problem = agentSocketProblem(socket);
    if (problem) p.add(`${at}.agent`, `"ssh:PATH": ${problem}`);
    else if (spec.ssh === undefined) {
      p.add(`${at}.agent`, '"ssh:PATH" reaches the agent through this host\'s SSH connection: add `ssh` settings');
    } else host.agentSocket = socket;
  } else if (spec.agent !== undefined) {
    if (typeof spec.agent === 'string' && isAgentAddress(spec.agent)) host.agent = spec.agent;
    else p.add(`${at}.agent`, `expected "host:port" or "ssh:/path/to/agent.sock", got ${describe(spec.agent)}`);
  }
}

/** `groups`: group names to host lists; each member host learns its groups, in the file's order. */
export function parseGroups(problems: Problems, groups: Json, hosts: InventoryHost[]): Inventory['groups'] {
  const out: Inventory['groups'] = {};
  if (!isObject(groups)) {
    problems.add('groups', `expected a mapping of group names to host lists, got ${describe(groups)}`);
    return out;
  }
  const byName = new Map(hosts.map((h) => [h.name, h]));
  for (const [group, members] of Object.entries(groups)) {
    const at = keyPath('groups', group);
    if (!HOST_NAME_RE.test(group)) problems.add(at, 'group names use only letters, digits, ".", "_" and "-"');
    if (!Array.isArray(members)) {
      problems.add(at, `expected a list of host names, got ${describe(members)}`);
      continue;
    }
    const names: string[] = [];
    members.forEach((m, i) => {
      if (typeof m !== 'string') problems.add(`${at}[${i}]`, `expected a host name, got ${describe(m)}`);
      else if (!byName.has(m)) problems.add(`${at}[${i}]`, `unknown host '${m}'`);
      else if (!names.includes(m)) {
        names.push(m);
        byName.get(m)!.groups.push(group);
      }
    });
    out[group] = names;
  }
  return out;
}

/** `localhost: { embedded: { allow: [...] } }`: the host named localhost only, on its own. */
function parseEmbedded(
  p: Problems,
  hostAt: string,
  name: string,
  spec: { [k: string]: Json },
): EmbeddedSettings | undefined {
  const at = `${hostAt}.embedded`;
  if (name !== LOCALHOST) {
    p.add(at, 'only the host named localhost is this machine, served by the embedded agent');
    return undefined;
  }
  if (spec.agent !== undefined || spec.ssh !== undefined) {
    p.add(at, 'goes without `agent` and `ssh`: the embedded agent lists this machine itself');
    return undefined;
  }
  const v = spec.embedded;
  if (!isObject(v)) {
    p.add(at, `expected { allow: [DIR, …] }, got ${describe(v)}`);
    return undefined;
  }
  unknownKeys(p, at, v, EMBEDDED_KEYS);
  const r = parseEmbeddedAllow(v.allow, `${at}.allow`);
  for (const [where, why] of r.problems) p.add(where, why);
  return r.allow ? { allow: r.allow } : undefined;
}

function parseLabels(p: Problems, at: string, v: Json): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(v)) {
    p.add(at, `expected a mapping of label names to values, got ${describe(v)}`);
    return out;
  }
  for (const [k, val] of Object.entries(v)) {
    if (!/^[A-Za-z0-9._/-]+$/.test(k))
      p.add(keyPath(at, k), 'label names use only letters, digits, ".", "_", "/" and "-"');
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
    else p.add(keyPath(at, k), `expected a string, got ${describe(val)}`);
  }
  return out;
}

function parseSsh(p: Problems, at: string, v: Json, hostName: string, file: FilePath): SshHostConfig | undefined {
  // A bare string is an address or an ~/.ssh/config alias; the SSH backend resolves it.
  if (typeof v === 'string') {
    if (v === '' || /[\s\0]/.test(v) || v.startsWith('-')) {
      p.add(at, `expected an address or ~/.ssh/config alias, got ${describe(v)}`);
      return undefined;
    }
    return { host: v };
  }
  if (!isObject(v)) {
    p.add(at, `expected a mapping { host, port, user, ... } or an ~/.ssh/config alias, got ${describe(v)}`);
    return undefined;
  }
  unknownKeys(p, at, v, SSH_KEYS);
  const cfg: SshHostConfig = { host: hostName };
  const str = (k: string): string | undefined => {
    const val = v[k];
    if (val === undefined) return undefined;
    if (typeof val !== 'string' || val === '' || /[\0\n]/.test(val)) {
      p.add(`${at}.${k}`, `expected a non-empty string, got ${describe(val)}`);
      return undefined;
    }
    return val;
  };
  const host = str('host');
  if (host !== undefined) {
    if (host.startsWith('-') || /\s/.test(host))
      p.add(`${at}.host`, `expected an address or alias, got ${describe(host)}`);
    else cfg.host = host;
  }
  if (v.port !== undefined) {
    const port = v.port;
    if (typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535) cfg.port = port;
    else p.add(`${at}.port`, `expected an integer in 1..65535, got ${describe(port)}`);
  }
  const user = str('user');
  if (user !== undefined) cfg.user = user;
  const identity = str('identity_file');
  if (identity !== undefined) cfg.identityFile = file(identity);
  const knownHosts = str('known_hosts');
  if (knownHosts !== undefined) cfg.knownHosts = file(knownHosts);
  if (v.strict_host_key_checking !== undefined) {
    if (typeof v.strict_host_key_checking === 'boolean') cfg.strictHostKeyChecking = v.strict_host_key_checking;
    else p.add(`${at}.strict_host_key_checking`, `expected true or false, got ${describe(v.strict_host_key_checking)}`);
  }
  const passFile = str('passphrase_file');
  if (passFile !== undefined) cfg.passphraseFile = file(passFile);
  const passEnv = str('passphrase_env');
  if (passEnv !== undefined) {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(passEnv)) cfg.passphraseEnv = passEnv;
    else p.add(`${at}.passphrase_env`, `expected an environment variable name, got ${describe(passEnv)}`);
  }
  const jump = str('proxy_jump');
  if (jump !== undefined) cfg.proxyJump = jump;
  return cfg;
}
