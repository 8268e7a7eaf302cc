// The `host` argument of every tool and CLI command: which hosts of the fleet a call asks.
// Terms are comma-separated; the answer keeps the order of the terms, then the
// inventory's order within a term, without duplicates.
import { invalidArgument } from '@fleetls/core';
import type { FleetHost } from './fleet-types.js';

const MAX_NAMES_IN_ERROR = 20;

/**
 * `localhost`, a name, a comma list, a glob (`web-*`, `db-?`), `@group`,
 * `label:key=value`, `all`. Throws invalid_argument naming `host` on an empty selector,
 * and listing known hosts on an unknown name.
 */
export function selectHosts(selector: string, hosts: FleetHost[]): FleetHost[] {
  const terms = selector
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (terms.length === 0) {
    throw invalidArgument(
      'host: expected a host selector (a name, a comma list, a glob like web-*, @group, label:key=value, or all)',
    );
  }
  const out: FleetHost[] = [];
  const seen = new Set<string>();
  const add = (h: FleetHost) => {
    if (!seen.has(h.name)) {
      seen.add(h.name);
      out.push(h);
    }
  };
  for (const term of terms) {
    for (const h of matchTerm(term, hosts)) add(h);
  }
  if (out.length === 0) {
    throw invalidArgument(`host: '${selector}' selects no host; known hosts: ${listNames(hosts.map((h) => h.name))}`);
  }
  return out;
}

function matchTerm(term: string, hosts: FleetHost[]): FleetHost[] {
  if (term === 'all') return hosts;
  if (term.startsWith('@')) {
    const group = term.slice(1);
    if (group === '') throw invalidArgument("host: '@' needs a group name, as in @prod");
    const members = hosts.filter((h) => h.groups.includes(group));
    if (members.length === 0) {
      const groups = [...new Set(hosts.flatMap((h) => h.groups))];
      throw invalidArgument(`host: no host in group '${group}'; known groups: ${listNames(groups)}`);
    }
    return members;
  }
  if (term.startsWith('label:')) {
    const spec = term.slice('label:'.length);
    const eq = spec.indexOf('=');
    if (eq <= 0) throw invalidArgument(`host: expected label:key=value, got '${term}'`);
    const key = spec.slice(0, eq);
    const value = spec.slice(eq + 1);
    return hosts.filter((h) => h.labels[key] === value);
  }
  if (/[*?[]/.test(term)) {
    const re = globToRegExp(term);
    return hosts.filter((h) => re.test(h.name));
  }
  // Only hosts a caller can select are named: no host of the fleet is reachable but not listed.
  const found = hosts.find((h) => h.name === term);
  if (!found) throw invalidArgument(`unknown host '${term}'; known hosts: ${listNames(hosts.map((h) => h.name))}`);
  return [found];
}

function listNames(names: string[]): string {
  if (names.length === 0) return '(none)';
  const shown = names.slice(0, MAX_NAMES_IN_ERROR).join(', ');
  return names.length > MAX_NAMES_IN_ERROR ? `${shown}, … (${names.length} in all)` : shown;
}

/** Shell-style glob over a host name: `*` any run, `?` one character, `[abc]`/`[a-z]`/`[!x]` a class. */
export function globToRegExp(glob: string): RegExp {
  let re = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let cls = glob.slice(i + 1, end);
      if (cls.startsWith('!')) cls = `^${cls.slice(1)}`;
      re += `[${cls.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`${re}$`);
}
