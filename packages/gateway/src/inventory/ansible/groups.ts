// The two files an Ansible inventory is kept in, INI and YAML, read into groups (their hosts,
// children and variables) and each host's own variables, with where each host was first
// named; inventory/ansible/ansible.ts turns those into the gateway's Inventory.
import type { Problems } from '../inventory.js';

export type Vars = Record<string, unknown>;
export interface Group {
  hosts: string[];
  children: string[];
  vars: Vars;
}

/** Groups and host variables as the file gives them, before children are flattened. */
export class Builder {
  readonly groups = new Map<string, Group>();
  readonly hostVars = new Map<string, Vars>();
  /** Where each host was first named, for messages. */
  readonly hostAt = new Map<string, string>();

  group(name: string): Group {
    let g = this.groups.get(name);
    if (!g) {
      g = { hosts: [], children: [], vars: {} };
      this.groups.set(name, g);
    }
    return g;
  }

  host(name: string, at: string, group: string, vars: Vars): void {
    if (!this.hostAt.has(name)) this.hostAt.set(name, at);
    this.hostVars.set(name, { ...this.hostVars.get(name), ...vars });
    const g = this.group(group);
    if (!g.hosts.includes(name)) g.hosts.push(name);
  }
}

/** Expands Ansible's host ranges: web[01:03] → web01, web02, web03; [a:c]; [1:9:2]. */
export function expandHostPattern(pattern: string): string[] {
  const m = /^(.*?)\[([0-9a-z]+):([0-9a-z]+)(?::(\d+))?\](.*)$/i.exec(pattern);
  if (!m) return [pattern];
  // Groups 1-3 and 5 always take part in a match (possibly empty); 4, the stride, may not.
  const [, head = '', from = '', to = '', stride, tail = ''] = m;
  const step = stride ? Number(stride) : 1;
  const out: string[] = [];
  if (/^\d+$/.test(from) && /^\d+$/.test(to)) {
    const width = from.length > 1 && from.startsWith('0') ? from.length : 0;
    for (let i = Number(from); i <= Number(to); i += step) out.push(`${head}${String(i).padStart(width, '0')}`);
  } else if (/^[a-z]$/i.test(from) && /^[a-z]$/i.test(to)) {
    for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c += step) out.push(`${head}${String.fromCharCode(c)}`);
  } else return [pattern];
  return out.flatMap((h) => expandHostPattern(`${h}${tail}`));
}

/** `key=value key2="a b"` → vars; an unparsable token is a problem. */
function iniVars(p: Problems, at: string, text: string): Vars {
  const vars: Vars = {};
  const re = /\s*([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/y;
  let rest = text.trim();
  while (rest.length > 0) {
    re.lastIndex = 0;
    const m = re.exec(rest);
    if (!m) {
      p.add(at, `expected key=value, got ${JSON.stringify(rest.split(/\s+/)[0])}`);
      break;
    }
    const raw = m[2] ?? '';
    vars[m[1] as string] = /^["']/.test(raw) ? raw.slice(1, -1) : raw;
    rest = rest.slice(m[0].length).trim();
  }
  return vars;
}

export function parseIni(text: string, source: string, problems: Problems, builder: Builder): void {
  const name = source.split('/').pop();
  let section: { group: string; kind: 'hosts' | 'vars' | 'children' } = { group: 'ungrouped', kind: 'hosts' };
  text.split('\n').forEach((raw, i) => {
    const at = `${name}:${i + 1}`;
    const line = raw.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([^\]:]+)(?::(\w+))?\]\s*$/.exec(line);
    if (header) {
      const kind = (header[2] ?? 'hosts') as typeof section.kind;
      if (!['hosts', 'vars', 'children'].includes(kind)) {
        problems.add(at, `unknown section kind :${kind} (expected [group], [group:vars] or [group:children])`);
      }
      section = { group: header[1] as string, kind };
      builder.group(section.group);
      return;
    }
    if (section.kind === 'vars') {
      const kv = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line.trimEnd());
      if (!kv) problems.add(at, `expected key=value in [${section.group}:vars], got ${JSON.stringify(line.trimEnd())}`);
      else builder.group(section.group).vars[kv[1] as string] = (kv[2] as string).replace(/^(["'])(.*)\1$/, '$2');
      return;
    }
    const [first = '', ...more] = line.trimEnd().split(/\s+/);
    if (section.kind === 'children') {
      if (more.length > 0)
        problems.add(at, `a [${section.group}:children] line names one group, got ${JSON.stringify(line)}`);
      const g = builder.group(section.group);
      if (!g.children.includes(first)) g.children.push(first);
      builder.group(first);
      return;
    }
    const vars = iniVars(problems, at, more.join(' '));
    // host:port, as Ansible's INI allows (not for IPv6 literals, which need ansible_host).
    const hp = /^([^:[\]]+(?:\[[^\]]+\][^:]*)?):(\d+)$/.exec(first);
    const pattern = hp ? (hp[1] as string) : first;
    if (hp) vars.ansible_port = hp[2];
    for (const host of expandHostPattern(pattern)) builder.host(host, at, section.group, vars);
  });
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function parseYamlGroups(root: Record<string, unknown>, problems: Problems, builder: Builder): void {
  const walk = (name: string, spec: unknown, at: string): void => {
    builder.group(name);
    if (spec === null) return;
    if (!isMapping(spec)) {
      problems.add(at, 'expected a group: a mapping with hosts, children and/or vars');
      return;
    }
    for (const key of Object.keys(spec)) {
      if (!['hosts', 'children', 'vars'].includes(key)) {
        problems.add(`${at}.${key}`, 'unknown key (expected one of: hosts, children, vars)');
      }
    }
    if (spec.vars !== undefined) {
      if (isMapping(spec.vars)) Object.assign(builder.group(name).vars, spec.vars);
      else problems.add(`${at}.vars`, 'expected a mapping of variables');
    }
    if (spec.hosts !== undefined && spec.hosts !== null) {
      if (!isMapping(spec.hosts)) problems.add(`${at}.hosts`, 'expected a mapping of host names to their variables');
      else {
        for (const [pattern, vars] of Object.entries(spec.hosts)) {
          if (vars !== null && !isMapping(vars))
            problems.add(`${at}.hosts.${pattern}`, 'expected a mapping of variables');
          for (const host of expandHostPattern(pattern)) {
            builder.host(host, `${at}.hosts.${pattern}`, name, isMapping(vars) ? vars : {});
          }
        }
      }
    }
    if (spec.children !== undefined && spec.children !== null) {
      if (!isMapping(spec.children)) {
        problems.add(`${at}.children`, 'expected a mapping of group names');
        return;
      }
      for (const [child, childSpec] of Object.entries(spec.children)) {
        const g = builder.group(name);
        if (!g.children.includes(child)) g.children.push(child);
        walk(child, childSpec, `${at}.children.${child}`);
      }
    }
  };
  for (const [name, spec] of Object.entries(root)) walk(name, spec, name);
}
