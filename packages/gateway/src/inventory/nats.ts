// The inventory's NATS keys: `hosts_from: nats` (the live registry's hosts beside the
// file's) and `nats: { servers, creds, tls: { ca, cert, key }, replicas, hosts,
// max_heartbeat_ms }`, how the gateway reaches the cluster and what it believes of the hosts
// registered there. Pure: problems go to the caller's list with their key path.
//
// `hosts` is the operator's word on each registered host: its labels and groups, the ones
// selectors use. A host's registration may say otherwise (the host may be the one
// compromised); the gateway ignores such a claim and logs it naming the host.
import { MAX_HEARTBEAT_MS, MIN_HEARTBEAT_MS, type NatsSettings } from '@fleetls/runtime/nats-config';

export interface GatewayNatsSettings extends NatsSettings {
  /** JetStream replicas of the registry and page store buckets (1, or the cluster's 3). */
  replicas?: number;
  /** The labels and groups of registered hosts, by name (a host named nowhere has none). */
  hosts?: Map<string, { labels: Record<string, string>; groups: string[] }>;
  /** The longest heartbeat a registration may announce (default and ceiling MAX_HEARTBEAT_MS). */
  maxHeartbeatMs?: number;
  /** A call over at least this many NATS hosts is split with the peer gateways (0: never; fleet/peers/split.ts). */
  splitMinHosts?: number;
}

type Value = unknown;

const NATS_KEYS = ['servers', 'creds', 'tls', 'replicas', 'hosts', 'max_heartbeat_ms', 'split_min_hosts'] as const;
const HOST_KEYS = ['labels', 'groups'];
/** split_min_hosts at most: a fleet of ten million hosts. */
const MAX_SPLIT_MIN_HOSTS = 10_000_000;
const NAME_RE = /^[A-Za-z0-9._-]{1,63}$/;
const LABEL_KEY_RE = /^[A-Za-z0-9._/-]{1,63}$/;
const URL_RE = /^(nats|tls):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;

export function parseInventoryNats(
  value: Value,
  add: (path: string, message: string) => void,
  file: (p: string) => string,
): GatewayNatsSettings | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    add('nats', 'expected { servers: [nats://HOST:PORT, …], creds, tls: { ca, cert, key } }');
    return undefined;
  }
  const o = value as Record<string, Value>;
  for (const k of Object.keys(o)) {
    if (!(NATS_KEYS as readonly string[]).includes(k)) add(`nats.${k}`, `unknown key (known: ${NATS_KEYS.join(', ')})`);
  }
  const list = typeof o.servers === 'string' ? o.servers.split(',') : o.servers;
  const servers: string[] = [];
  if (!Array.isArray(list) || list.length === 0) add('nats.servers', 'required: a list of nats://HOST:PORT');
  else {
    for (const u of list) {
      if (typeof u === 'string' && URL_RE.test(u.trim()) && Number(URL_RE.exec(u.trim())?.[3] ?? 4222) <= 65535) {
        servers.push(u.trim());
      } else add('nats.servers', `expected nats://HOST:PORT or tls://HOST:PORT, got ${JSON.stringify(u)}`);
    }
  }
  const out: GatewayNatsSettings = { servers };
  if (o.creds !== undefined) {
    if (typeof o.creds !== 'string' || o.creds === '') add('nats.creds', 'expected a file (.creds or an nkey seed)');
    else out.creds = file(o.creds);
  }
  if (o.tls !== undefined) {
    const t = o.tls as Record<string, Value>;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) add('nats.tls', 'expected { ca, cert, key }');
    else {
      out.tls = {};
      for (const k of Object.keys(t)) {
        if (!['ca', 'cert', 'key'].includes(k)) add(`nats.tls.${k}`, 'unknown key (known: ca, cert, key)');
        else if (typeof t[k] !== 'string' || t[k] === '') add(`nats.tls.${k}`, 'expected a file');
        else out.tls[k as 'ca' | 'cert' | 'key'] = file(t[k] as string);
      }
    }
  }
  if (o.replicas !== undefined) {
    if (o.replicas !== 1 && o.replicas !== 3 && o.replicas !== 5)
      add('nats.replicas', `expected 1, 3 or 5, got ${JSON.stringify(o.replicas)}`);
    else out.replicas = o.replicas as number;
  }
  if (o.hosts !== undefined) out.hosts = parseNatsHosts(o.hosts, add);
  if (o.max_heartbeat_ms !== undefined) {
    const m = o.max_heartbeat_ms;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < MIN_HEARTBEAT_MS || m > MAX_HEARTBEAT_MS)
      add('nats.max_heartbeat_ms', `expected ${MIN_HEARTBEAT_MS}..${MAX_HEARTBEAT_MS} ms, got ${JSON.stringify(m)}`);
    else out.maxHeartbeatMs = m;
  }
  if (o.split_min_hosts !== undefined) {
    const m = o.split_min_hosts;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 0 || m > MAX_SPLIT_MIN_HOSTS)
      add(
        'nats.split_min_hosts',
        `expected 0 (never split) or up to ${MAX_SPLIT_MIN_HOSTS} hosts, got ${JSON.stringify(m)}`,
      );
    else out.splitMinHosts = m;
  }
  return out;
}

/** `hosts: { NAME: { labels: { K: V }, groups: [G, …] } }`: the operator's identity of each registered host. */
function parseNatsHosts(v: Value, add: (path: string, message: string) => void): GatewayNatsSettings['hosts'] {
  const out: NonNullable<GatewayNatsSettings['hosts']> = new Map();
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    add('nats.hosts', 'expected a mapping of host names to { labels, groups }');
    return out;
  }
  // Hosts given the same labels and groups share one identity: a fleet of 100,000 is mostly a
  // few roles, and the registry and every list of hosts hold the identity by reference.
  const shared = new Map<string, NatsHostIdentity>();
  for (const [name, spec] of Object.entries(v as Record<string, Value>)) {
    const identity = parseNatsHost(name, spec, add);
    const key = JSON.stringify([Object.entries(identity.labels), identity.groups]);
    const same = shared.get(key);
    if (same) out.set(name, same);
    else {
      shared.set(key, identity);
      out.set(name, identity);
    }
  }
  return out;
}

type NatsHostIdentity = { labels: Record<string, string>; groups: string[] };

function parseNatsHost(name: string, spec: Value, add: (path: string, message: string) => void): NatsHostIdentity {
  const at = `nats.hosts.${name}`;
  const identity: NatsHostIdentity = { labels: {}, groups: [] };
  if (spec === null) return identity; // a host named with nothing: registered, selected by name only
  if (typeof spec !== 'object' || Array.isArray(spec)) {
    add(at, 'expected { labels: { KEY: VALUE }, groups: [NAME, …] }');
    return identity;
  }
  const o = spec as Record<string, Value>;
  for (const k of Object.keys(o)) if (!HOST_KEYS.includes(k)) add(`${at}.${k}`, 'unknown key (known: labels, groups)');
  if (o.labels !== undefined) {
    if (typeof o.labels !== 'object' || o.labels === null || Array.isArray(o.labels))
      add(`${at}.labels`, 'expected a mapping of label names to values');
    else
      for (const [k, val] of Object.entries(o.labels as Record<string, Value>)) {
        if (!LABEL_KEY_RE.test(k))
          add(`${at}.labels.${k}`, 'label names are 1-63 of letters, digits, ".", "_", "/", "-"');
        else if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean')
          identity.labels[k] = String(val);
        else add(`${at}.labels.${k}`, `expected a string, got ${JSON.stringify(val)}`);
      }
  }
  if (o.groups !== undefined) {
    const g = o.groups;
    if (!Array.isArray(g) || g.some((x) => typeof x !== 'string' || !NAME_RE.test(x)))
      add(`${at}.groups`, 'expected a list of group names (1-63 of letters, digits, ".", "_", "-")');
    else identity.groups = [...new Set(g as string[])];
  }
  return identity;
}
