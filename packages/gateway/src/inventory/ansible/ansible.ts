// Ansible inventories as operators keep them, INI or YAML, read into the gateway's
// Inventory: hosts, groups (children flattened), ansible_host/ansible_port/ansible_user
// (and the private key) as SSH settings, scalar host and group variables as labels. A
// host or `all` may name its agent with fleetls_agent (HOST:PORT); `all` carries
// fleetls_agent_tls (insecure) or fleetls_agent_tls_ca/_cert/_key and
// fleetls_agent_token_file. Dynamic inventory scripts and plugins are refused by name.
// Pure: the caller reads the file.
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  fail,
  HOST_NAME_RE,
  type Inventory,
  type InventoryHost,
  isAgentAddress,
  LOCALHOST,
  Problems,
  resolveFilePath,
} from '../inventory.js';
import { parseEmbeddedAllow } from '../localhost.js';
import { Builder, isMapping, parseIni, parseYamlGroups, type Vars } from './groups.js';

export type InventoryFormat = 'fleetls' | 'ansible-ini' | 'ansible-yaml';

/** How to export any Ansible inventory into a file fleetls reads. */
const EXPORT_HINT = 'export it first: ansible-inventory -i SOURCE --list --yaml > hosts.yaml';

/**
 * Which format a file holds, by its shape: an INI section header, a .ini name or plain
 * host lines is INI; a YAML mapping of groups ({hosts, children, vars}) is Ansible YAML;
 * the rest is fleetls.yaml. A script (#!) or an inventory plugin config is refused.
 */
export function inventoryFormat(text: string, source: string): InventoryFormat {
  if (text.startsWith('#!')) {
    throw new Problems().refuse(source, `a dynamic inventory script is not supported; ${EXPORT_HINT}`);
  }
  if (/\.(ini|cfg)$/i.test(source) || /^\s*\[[^\]\n]+\]\s*$/m.test(text)) return 'ansible-ini';
  let root: unknown;
  try {
    root = parseYaml(text);
  } catch {
    return 'fleetls';
  }
  if (typeof root === 'string') return 'ansible-ini';
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return 'fleetls';
  const obj = root as Record<string, unknown>;
  if (typeof obj.plugin === 'string') {
    throw new Problems().refuse(source, `inventory plugin '${obj.plugin}' is not supported; ${EXPORT_HINT}`);
  }
  const groupShaped = (v: unknown) =>
    v === null ||
    (typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.keys(v as object).every((k) => ['hosts', 'children', 'vars'].includes(k)));
  if ('all' in obj && groupShaped(obj.all)) return 'ansible-yaml';
  if (!('hosts' in obj) && Object.values(obj).length > 0 && Object.values(obj).every(groupShaped))
    return 'ansible-yaml';
  return 'fleetls';
}

const CONNECTION_VARS = new Set([
  'ansible_host',
  'ansible_port',
  'ansible_user',
  'ansible_ssh_host',
  'ansible_ssh_port',
  'ansible_ssh_user',
  'ansible_ssh_private_key_file',
  'ansible_private_key_file',
  'ansible_connection',
  'fleetls_agent',
  'fleetls_embedded_allow',
]);
const ALL_ONLY_VARS = ['fleetls_agent_tls', 'fleetls_agent_tls_ca', 'fleetls_agent_tls_cert', 'fleetls_agent_tls_key'];

/** Parses an Ansible inventory (INI or YAML); throws one FleetError listing every problem. */
export function parseAnsibleInventory(
  text: string,
  format: 'ansible-ini' | 'ansible-yaml',
  opts: { source: string; home?: string; tlsPending?: boolean },
): Inventory {
  const source = resolve(opts.source);
  const file = (s: string) => resolveFilePath(s, dirname(source), opts.home);
  const p = new Problems();
  const b = new Builder();
  if (format === 'ansible-ini') parseIni(text, source, p, b);
  else {
    let root: unknown;
    try {
      root = parseYaml(text, { uniqueKeys: true });
    } catch (err) {
      p.add('yaml', (err as Error).message.split('\n')[0] as string);
      fail(source, p);
    }
    if (!isMapping(root)) p.add('', 'expected a mapping of groups');
    else parseYamlGroups(root, p, b);
  }

  // Group membership, children flattened (a cycle is a problem, not a hang).
  const members = new Map<string, string[]>();
  const expand = (group: string, path: string[]): string[] => {
    const known = members.get(group);
    if (known) return known;
    if (path.includes(group)) {
      p.add(`group ${group}`, `children form a cycle: ${[...path, group].join(' → ')}`);
      return [];
    }
    const g = b.groups.get(group)!;
    const out = [...g.hosts];
    for (const child of g.children) for (const h of expand(child, [...path, group])) if (!out.includes(h)) out.push(h);
    members.set(group, out);
    return out;
  };
  const groupsOf = new Map<string, string[]>();
  for (const group of b.groups.keys()) {
    if (!HOST_NAME_RE.test(group)) p.add(`group ${group}`, 'group names use only letters, digits, ".", "_" and "-"');
    for (const h of expand(group, [])) groupsOf.set(h, [...(groupsOf.get(h) ?? []), group]);
  }

  // Variables: all, then the host's groups (parents before children, in file order), then the host.
  const allVars = b.groups.get('all')?.vars ?? {};
  const inv: Inventory = { source, hosts: [], groups: {}, defaults: {} };
  for (const [name, own] of b.hostVars) {
    const at = b.hostAt.get(name) as string;
    const vars: Vars = { ...allVars };
    for (const g of groupsOf.get(name) ?? []) if (g !== 'all') Object.assign(vars, b.groups.get(g)?.vars);
    Object.assign(vars, own);
    const host = hostFrom(p, name, at, vars, file);
    if (host) inv.hosts.push({ ...host, groups: (groupsOf.get(name) ?? []).filter((g) => g !== 'all') });
  }
  for (const [group, hosts] of members) if (group !== 'all') inv.groups[group] = hosts;

  for (const key of ALL_ONLY_VARS) {
    for (const [g, spec] of b.groups)
      if (g !== 'all' && key in spec.vars) p.add(`group ${g}`, `${key} is read from all only`);
  }
  const tls = allVars.fleetls_agent_tls;
  if (tls !== undefined && tls !== 'insecure')
    p.add('all.vars.fleetls_agent_tls', `expected "insecure", got ${JSON.stringify(tls)}`);
  if (tls === 'insecure') inv.agentTls = 'insecure';
  else if (typeof allVars.fleetls_agent_tls_ca === 'string') {
    inv.agentTls = { ca: file(allVars.fleetls_agent_tls_ca) };
    if (typeof allVars.fleetls_agent_tls_cert === 'string') inv.agentTls.cert = file(allVars.fleetls_agent_tls_cert);
    if (typeof allVars.fleetls_agent_tls_key === 'string') inv.agentTls.key = file(allVars.fleetls_agent_tls_key);
  } else if (inv.hosts.some((h) => h.agent) && !opts.tlsPending) {
    p.add(
      'all.vars',
      'a host has fleetls_agent: set fleetls_agent_tls_ca (and _cert, _key) or fleetls_agent_tls=insecure',
    );
  }
  if (typeof allVars.fleetls_agent_token_file === 'string') inv.agentTokenFile = file(allVars.fleetls_agent_token_file);
  if (inv.hosts.length === 0 && p.list.length === 0) p.add('', 'no hosts');
  if (p.list.length > 0) fail(source, p);
  return inv;
}

function hostFrom(
  p: Problems,
  name: string,
  at: string,
  vars: Vars,
  file: (s: string) => string,
): Omit<InventoryHost, 'groups'> | undefined {
  if (!HOST_NAME_RE.test(name)) {
    p.add(at, `host ${name}: names use only letters, digits, ".", "_" and "-" (give the address as ansible_host)`);
    return undefined;
  }
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) {
    if (
      CONNECTION_VARS.has(k) ||
      ALL_ONLY_VARS.includes(k) ||
      k === 'fleetls_agent_token_file' ||
      k.startsWith('ansible_')
    )
      continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') labels[k] = String(v);
  }
  const connection = vars.ansible_connection ?? 'ssh';
  if (connection === 'local') {
    if (name !== LOCALHOST) p.add(at, `host ${name}: ansible_connection=local is only understood for localhost`);
    // This machine, through the gateway's embedded agent: only under the roots the inventory gives.
    if (vars.fleetls_embedded_allow === undefined) {
      p.add(
        at,
        `host ${name}: ansible_connection=local is this machine, listed by the gateway's embedded agent: set fleetls_embedded_allow to the directories it may list (e.g. /var/log)`,
      );
      return undefined;
    }
    const roots = parseEmbeddedAllow(vars.fleetls_embedded_allow, `host ${name}: fleetls_embedded_allow`);
    for (const [where, why] of roots.problems) p.add(at, `${where}: ${why}`);
    return roots.allow ? { name, labels, embedded: { allow: roots.allow } } : undefined;
  }
  if (!['ssh', 'paramiko', 'smart'].includes(String(connection))) {
    p.add(
      at,
      `host ${name}: ansible_connection=${String(connection)} is not supported (fleetls uses ssh or its agent)`,
    );
    return undefined;
  }
  const str = (k: string): string | undefined => (vars[k] === undefined ? undefined : String(vars[k]));
  const port = str('ansible_port') ?? str('ansible_ssh_port');
  const host: Omit<InventoryHost, 'groups'> = {
    name,
    labels,
    ssh: { host: str('ansible_host') ?? str('ansible_ssh_host') ?? name },
  };
  if (port !== undefined) {
    const n = Number(port);
    if (Number.isInteger(n) && n >= 1 && n <= 65535) host.ssh!.port = n;
    else p.add(at, `host ${name}: ansible_port expected an integer in 1..65535, got ${JSON.stringify(port)}`);
  }
  const user = str('ansible_user') ?? str('ansible_ssh_user');
  if (user !== undefined) host.ssh!.user = user;
  const key = str('ansible_ssh_private_key_file') ?? str('ansible_private_key_file');
  if (key !== undefined) host.ssh!.identityFile = file(key);
  const agent = str('fleetls_agent');
  if (agent !== undefined) {
    if (isAgentAddress(agent)) host.agent = agent;
    else p.add(at, `host ${name}: fleetls_agent expected "host:port", got ${JSON.stringify(agent)}`);
  }
  return host;
}
