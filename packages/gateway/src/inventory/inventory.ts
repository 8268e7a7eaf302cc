// The fleet inventory: one YAML file naming hosts (agent address, SSH settings or an
// ~/.ssh/config alias, labels), groups, how to reach agents (mTLS or plaintext) and
// optional gateway defaults. Parsing is pure and collects every problem with its key
// path, so a broken file is fixed in one pass rather than one error at a time.
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { parseGroups, parseHosts } from './hosts.js';
import { parseInventoryNats } from './nats.js';
import { describe, fail, isObject, type Json, keyPath, Problems, unknownKeys } from './problems.js';
import { parseAgentTls, parseCorsOrigins, parseDefaults, parseKubernetes } from './settings.js';
import type { Inventory } from './types.js';

export { agentSocketProblem, HOST_NAME_RE, isAgentAddress, LOCALHOST } from './hosts.js';
export { DEFAULT_INVENTORY_FILE } from './path.js';
export { fail, Problems } from './problems.js';
export type { AgentTls, Inventory, InventoryDefaults, InventoryHost, KubernetesAgents } from './types.js';

/** `~` expanded, a relative path resolved against the inventory's directory. */
export function resolveFilePath(path: string, baseDir: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(baseDir, path);
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
  'grants',
] as const;
/**
 * Parses inventory YAML. `source` is the file's path: relative paths inside resolve
 * against its directory. `tlsPending`: agent_tls may be missing (`fleetls pki` is making it). Throws one FleetError('invalid_argument') listing every problem.
 */
export function parseInventory(text: string, opts: { source: string; home?: string; tlsPending?: boolean }): Inventory {
  const source = resolve(opts.source);
  const baseDir = dirname(source);
  const home = opts.home ?? homedir();
  const p = new Problems();
  const file = (s: string) => resolveFilePath(s, baseDir, home);
  const root = readYaml(text, source, p);
  unknownKeys(p, '', root, TOP_KEYS);

  const inv: Inventory = { source, hosts: [], groups: {}, defaults: {} };
  if (root.kubernetes !== undefined) inv.kubernetes = parseKubernetes(p, root.kubernetes);
  if (root.hosts_from !== undefined) {
    if (root.hosts_from === 'nats') inv.hostsFrom = 'nats';
    else p.add('hosts_from', `expected nats, got ${describe(root.hosts_from)}`);
  }
  if (root.nats !== undefined) inv.nats = parseInventoryNats(root.nats, (at, m) => p.add(at, m), file);
  if (root.hosts !== undefined) inv.hosts = parseHosts(p, root.hosts, file);
  else if (!inv.kubernetes && !inv.hostsFrom) {
    p.add('hosts', 'required (or `kubernetes`): a mapping of host names to { agent, ssh, labels }');
  }
  if (root.groups !== undefined) inv.groups = parseGroups(p, root.groups, inv.hosts);
  if (root.agent_tls !== undefined) inv.agentTls = parseAgentTls(p, root.agent_tls, file);
  else if (inv.hosts.some((h) => h.agent) && !opts.tlsPending) {
    // Not for "ssh:PATH" agents: their calls travel inside the host-key-verified SSH connection.
    p.add('agent_tls', 'required when a host has an `agent` "host:port": { ca, cert, key } or "insecure" (plaintext)');
  }
  if (root.agent_token_file !== undefined) {
    const v = root.agent_token_file;
    if (typeof v !== 'string' || v === '') p.add('agent_token_file', `expected a file path, got ${describe(v)}`);
    else inv.agentTokenFile = file(v);
  }
  if (root.cors_origins !== undefined) inv.corsOrigins = parseCorsOrigins(p, root.cors_origins);
  if (root.grants !== undefined) {
    const v = root.grants;
    if (typeof v !== 'string' || v === '') p.add('grants', `expected the path of a grants file, got ${describe(v)}`);
    else inv.grantsFile = file(v);
  }
  if (root.defaults !== undefined) inv.defaults = parseDefaults(p, root.defaults);
  if (p.list.length > 0) fail(source, p);
  return inv;
}

/** The document's root mapping; YAML errors, non-scalar keys and a non-mapping root are problems. */
function readYaml(text: string, source: string, p: Problems): { [k: string]: Json } {
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
  if (root === null || root === undefined) {
    p.add('', 'the inventory is empty (expected a mapping with `hosts`)');
    fail(source, p);
  }
  if (!isObject(root)) {
    p.add('', `expected a mapping with \`hosts\`, got ${describe(root)}`);
    fail(source, p);
  }
  return root;
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
