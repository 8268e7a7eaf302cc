// The fleet inventory: one YAML file naming hosts (agent address, SSH settings or an
// ~/.ssh/config alias, labels), groups, how to reach agents (mTLS or plaintext) and
// optional gateway defaults. Parsing is pure and collects every problem with its key
// path, so a broken file is fixed in one pass rather than one error at a time.
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { FleetError } from '@fleetls/core';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { EMBEDDED_EXAMPLE, EMBEDDED_KEYS, type EmbeddedSettings, parseEmbeddedAllow } from './inventory-localhost.js';
import { type GatewayNatsSettings, parseInventoryNats } from './inventory-nats.js';
import { originProblem } from './origins.js';
import type { SshHostConfig } from './ssh/types.js';

export const DEFAULT_INVENTORY_FILE = 'fleetls.yaml';
export const HOST_NAME_RE = /^[A-Za-z0-9._-]+$/;
/** The name the embedded agent answers to: always without an inventory, else where the inventory names it. */
export const LOCALHOST = 'localhost';

export interface InventoryHost {
  name: string;
  /** "host:port" of the host's fleetls-agent. */
  agent?: string;
  /** `agent: "ssh:PATH"`: the agent's Unix socket on the host, reached through its SSH connection. */
  agentSocket?: string;
  ssh?: SshHostConfig;
  /** `localhost` only: this machine, through the agent embedded in the gateway, under these roots. */
  embedded?: EmbeddedSettings;
  labels: Record<string, string>;
  /** Groups naming this host, in the inventory's order. */
  groups: string[];
}

/** `serverName`: the name agents' certificates carry when it is not the dialled host (a pod IP). */
export type AgentTls = { ca: string; cert?: string; key?: string; serverName?: string } | 'insecure';

export interface InventoryDefaults {
  concurrency?: number;
  connectTimeoutMs?: number;
  deadlineMs?: number;
  maxAnswerBytes?: number;
  maxAnswerTokens?: number;
  scanHostDeadlineMs?: number;
  scanConcurrency?: number;
  scanTtlMs?: number;
  scansPerPrincipal?: number;
  scansTotal?: number;
}

/** The agents of a Kubernetes DaemonSet, found through their headless Service (inventory-kubernetes.ts). */
export interface KubernetesAgents {
  /** The headless Service's DNS name, e.g. fleetls-agent.fleetls.svc.cluster.local. */
  service: string;
  port: number;
}

export interface Inventory {
  /** The file it was read from (absolute). */
  source: string;
  /** In the file's order. */
  hosts: InventoryHost[];
  groups: Record<string, string[]>;
  agentTls?: AgentTls;
  agentTokenFile?: string;
  defaults: InventoryDefaults;
  /** Agents of a DaemonSet, found through their headless Service at load (inventory-kubernetes.ts). */
  kubernetes?: KubernetesAgents;
  /** `hosts_from: nats`: the agents registered on NATS are hosts too, beside these. */
  hostsFrom?: 'nats';
  /** How the gateway reaches NATS (inventory-nats.ts). */
  nats?: GatewayNatsSettings;
  /** Browser origins besides the gateway's own that may call its HTTP port (beside --cors-origin). */
  corsOrigins?: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every problem of an inventory, each with its place (key path or file:line). */
export class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(path ? `${path}: ${message}` : message);
  }
  /** The error for a file refused as a whole. */
  refuse(source: string, message: string): FleetError {
    return new FleetError('invalid_argument', `inventory ${source}: ${message}`);
  }
}

function describe(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

function isObject(v: Json): v is { [k: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function keyPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function unknownKeys(p: Problems, path: string, obj: { [k: string]: Json }, known: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) p.add(keyPath(path, k), `unknown key (expected one of: ${known.join(', ')})`);
  }
}

const AGENT_ADDRESS_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** "host:port" with a port in 1..65535 (IPv6 in brackets). */
export function isAgentAddress(s: string): boolean {
  const m = AGENT_ADDRESS_RE.exec(s);
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

/** `~` expanded, a relative path resolved against the inventory's directory. */
export function resolveFilePath(p: string, baseDir: string, home: string = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

const TOP_KEYS = [
  'hosts',
  'groups',
  'agent_tls',
  'agent_token_file',
  'defaults',
  'kubernetes',
  'hosts_from',
  'nats',
  'cors_origins',
] as const;
const KUBERNETES_KEYS = ['service', 'port'] as const;
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
const TLS_FILE_KEYS = ['ca', 'cert', 'key'] as const;
const TLS_KEYS = [...TLS_FILE_KEYS, 'server_name'] as const;
// A DNS name (letters, digits, hyphens, dots) or an IP address, as a certificate's SAN holds it.
const SERVER_NAME_RE =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$|^[0-9A-Fa-f:.]+$/;
const DEFAULT_BOUNDS: Record<string, { field: keyof InventoryDefaults; min: number; max: number }> = {
  concurrency: { field: 'concurrency', min: 1, max: 1024 },
  connect_timeout_ms: { field: 'connectTimeoutMs', min: 1, max: 600_000 },
  deadline_ms: { field: 'deadlineMs', min: 1, max: 3_600_000 },
  max_answer_bytes: { field: 'maxAnswerBytes', min: 1024, max: 10 * 1024 * 1024 },
  max_answer_tokens: { field: 'maxAnswerTokens', min: 256, max: 10_000_000 },
  // Scans (a call gone on past its deadline): a host's share, hosts at once, TTL after the last page, caps.
  scan_host_deadline_ms: { field: 'scanHostDeadlineMs', min: 1, max: 3_600_000 },
  scan_concurrency: { field: 'scanConcurrency', min: 1, max: 4096 },
  scan_ttl_ms: { field: 'scanTtlMs', min: 1000, max: 24 * 3_600_000 },
  scans_per_principal: { field: 'scansPerPrincipal', min: 1, max: 1000 },
  scans_total: { field: 'scansTotal', min: 1, max: 10_000 },
};

/**
 * Parses inventory YAML. `source` is the file's path: relative paths inside resolve
 * against its directory. Throws one FleetError('invalid_argument') listing every problem.
 */
export function parseInventory(text: string, opts: { source: string; home?: string }): Inventory {
  const source = resolve(opts.source);
  const baseDir = dirname(source);
  const home = opts.home ?? homedir();
  const p = new Problems();
  const file = (s: string) => resolveFilePath(s, baseDir, home);

  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  for (const e of doc.errors) {
    const pos = e.pos?.[0] !== undefined ? lines.linePos(e.pos[0]) : undefined;
    p.add(pos ? `line ${pos.line}` : 'yaml', e.message.split('\n')[0]);
  }
  if (doc.errors.length > 0) fail(source, p);
  // Keys must be scalars: a YAML mapping key like `? [a, b]` has no key path.
  const badKey = findNonScalarKey(doc.contents);
  if (badKey) p.add(badKey, 'keys must be plain names');
  const root = doc.toJS({ maxAliasCount: 100 }) as Json;

  const inv: Inventory = { source, hosts: [], groups: {}, defaults: {} };
  if (root === null || root === undefined) {
    p.add('', 'the inventory is empty (expected a mapping with `hosts`)');
    fail(source, p);
  }
  if (!isObject(root)) {
    p.add('', `expected a mapping with \`hosts\`, got ${describe(root)}`);
    fail(source, p);
  }
  unknownKeys(p, '', root, TOP_KEYS);

  // hosts
  const hosts = root.hosts;
  if (root.kubernetes !== undefined) inv.kubernetes = parseKubernetes(p, root.kubernetes);
  if (root.hosts_from !== undefined) {
    if (root.hosts_from === 'nats') inv.hostsFrom = 'nats';
    else p.add('hosts_from', `expected nats, got ${describe(root.hosts_from)}`);
  }
  if (root.nats !== undefined) inv.nats = parseInventoryNats(root.nats, (at, m) => p.add(at, m), file);
  if (hosts === undefined) {
    if (!inv.kubernetes && !inv.hostsFrom)
      p.add('hosts', 'required (or `kubernetes`): a mapping of host names to { agent, ssh, labels }');
  } else if (!isObject(hosts)) p.add('hosts', `expected a mapping of host names, got ${describe(hosts)}`);
  else {
    for (const [name, spec] of Object.entries(hosts)) {
      const at = keyPath('hosts', name);
      if (!HOST_NAME_RE.test(name)) p.add(at, 'host names use only letters, digits, ".", "_" and "-"');
      const host: InventoryHost = { name, labels: {}, groups: [] };
      if (spec === null && name === LOCALHOST) {
        p.add(at, LOCALHOST_NEEDS);
        continue;
      }
      if (!isObject(spec)) {
        p.add(at, `expected a mapping with \`agent\` and/or \`ssh\`, got ${describe(spec)}`);
        continue;
      }
      unknownKeys(p, at, spec, HOST_KEYS);
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
      if (spec.ssh !== undefined) host.ssh = parseSsh(p, `${at}.ssh`, spec.ssh, name, file);
      if (spec.labels !== undefined) host.labels = parseLabels(p, `${at}.labels`, spec.labels);
      if (spec.embedded !== undefined) host.embedded = parseEmbedded(p, at, name, spec);
      else if (spec.agent === undefined && spec.ssh === undefined) {
        p.add(
          at,
          name === LOCALHOST
            ? LOCALHOST_NEEDS
            : 'needs `agent` ("host:port") or `ssh` (a mapping or an ~/.ssh/config alias)',
        );
      }
      inv.hosts.push(host);
    }
  }
  const byName = new Map(inv.hosts.map((h) => [h.name, h]));

  // groups
  if (root.groups !== undefined) {
    if (!isObject(root.groups))
      p.add('groups', `expected a mapping of group names to host lists, got ${describe(root.groups)}`);
    else {
      for (const [group, members] of Object.entries(root.groups)) {
        const at = keyPath('groups', group);
        if (!HOST_NAME_RE.test(group)) p.add(at, 'group names use only letters, digits, ".", "_" and "-"');
        if (!Array.isArray(members)) {
          p.add(at, `expected a list of host names, got ${describe(members)}`);
          continue;
        }
        const names: string[] = [];
        members.forEach((m, i) => {
          if (typeof m !== 'string') p.add(`${at}[${i}]`, `expected a host name, got ${describe(m)}`);
          else if (!byName.has(m)) p.add(`${at}[${i}]`, `unknown host '${m}'`);
          else if (!names.includes(m)) {
            names.push(m);
            byName.get(m)!.groups.push(group);
          }
        });
        inv.groups[group] = names;
      }
    }
  }

  // agent_tls
  const tls = root.agent_tls;
  if (tls !== undefined) {
    if (tls === 'insecure') inv.agentTls = 'insecure';
    else if (!isObject(tls)) p.add('agent_tls', `expected { ca, cert, key } or "insecure", got ${describe(tls)}`);
    else {
      unknownKeys(p, 'agent_tls', tls, TLS_KEYS);
      const out: { ca: string; cert?: string; key?: string; serverName?: string } = { ca: '' };
      const name = tls.server_name;
      if (name !== undefined) {
        if (typeof name === 'string' && name.length <= 253 && SERVER_NAME_RE.test(name)) out.serverName = name;
        else {
          p.add(
            'agent_tls.server_name',
            `expected the DNS name (or IP) the agents' certificates carry, got ${describe(name)}`,
          );
        }
      }
      for (const k of TLS_FILE_KEYS) {
        const v = tls[k];
        if (v === undefined) continue;
        if (typeof v !== 'string' || v === '') p.add(`agent_tls.${k}`, `expected a file path, got ${describe(v)}`);
        else out[k] = file(v);
      }
      if (tls.ca === undefined) p.add('agent_tls.ca', "required: the CA that signed the agents' certificates");
      if ((tls.cert === undefined) !== (tls.key === undefined)) {
        p.add('agent_tls', "`cert` and `key` go together (the gateway's client certificate and its key)");
      }
      inv.agentTls = out;
    }
  } else if (inv.hosts.some((h) => h.agent)) {
    // Not for "ssh:PATH" agents: their calls travel inside the host-key-verified SSH connection.
    p.add('agent_tls', 'required when a host has an `agent` "host:port": { ca, cert, key } or "insecure" (plaintext)');
  }

  if (root.agent_token_file !== undefined) {
    const v = root.agent_token_file;
    if (typeof v !== 'string' || v === '') p.add('agent_token_file', `expected a file path, got ${describe(v)}`);
    else inv.agentTokenFile = file(v);
  }

  if (root.cors_origins !== undefined) {
    const v = root.cors_origins;
    if (!Array.isArray(v)) {
      p.add('cors_origins', `expected a list of origins, as [https://dash.example], got ${describe(v)}`);
    } else {
      inv.corsOrigins = [];
      v.forEach((o, i) => {
        const why = originProblem(o);
        if (why) p.add(`cors_origins[${i}]`, why);
        else inv.corsOrigins!.push(o as string);
      });
    }
  }

  if (root.defaults !== undefined) {
    const d = root.defaults;
    if (!isObject(d)) p.add('defaults', `expected a mapping, got ${describe(d)}`);
    else {
      unknownKeys(p, 'defaults', d, Object.keys(DEFAULT_BOUNDS));
      for (const [k, b] of Object.entries(DEFAULT_BOUNDS)) {
        const v = d[k];
        if (v === undefined) continue;
        if (typeof v !== 'number' || !Number.isInteger(v) || v < b.min || v > b.max) {
          p.add(`defaults.${k}`, `expected an integer in ${b.min}..${b.max}, got ${describe(v)}`);
        } else inv.defaults[b.field] = v;
      }
    }
  }

  if (p.list.length > 0) fail(source, p);
  return inv;
}

/** One error listing every problem. */
export function fail(source: string, p: Problems): never {
  const n = p.list.length;
  throw new FleetError(
    'invalid_argument',
    `invalid inventory ${source}: ${n} problem${n === 1 ? '' : 's'}:\n${p.list.map((l) => `  - ${l}`).join('\n')}`,
  );
}

function findNonScalarKey(node: unknown, path = ''): string | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isScalar(pair.key)) return path || 'yaml';
      const found = findNonScalarKey(pair.value, keyPath(path, String(pair.key.value)));
      if (found) return found;
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) {
      const found = findNonScalarKey(item, `${path}[${i}]`);
      if (found) return found;
    }
  }
  return undefined;
}

function parseKubernetes(p: Problems, v: Json): KubernetesAgents | undefined {
  if (!isObject(v)) {
    p.add('kubernetes', `expected { service, port }, got ${describe(v)}`);
    return undefined;
  }
  unknownKeys(p, 'kubernetes', v, KUBERNETES_KEYS);
  const { service, port } = v;
  let ok = true;
  if (typeof service !== 'string' || !/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?$/.test(service)) {
    p.add('kubernetes.service', `expected the headless Service's DNS name, got ${describe(service ?? null)}`);
    ok = false;
  }
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    p.add('kubernetes.port', `expected an integer in 1..65535, got ${describe(port ?? null)}`);
    ok = false;
  }
  return ok ? { service: service as string, port: port as number } : undefined;
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

function parseSsh(
  p: Problems,
  at: string,
  v: Json,
  hostName: string,
  file: (s: string) => string,
): SshHostConfig | undefined {
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
