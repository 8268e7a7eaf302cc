// What one principal may do, and the checks every face makes before any host is asked: the
// tool (names and globs, `!` denies), the hosts (the call's selector against the granted
// ones: a named host outside is refused, a wider term such as `all` narrowed), and the path
// (within the granted roots, which narrow the agents' roots and never widen them). Pure:
// the fleet's hosts come in as a list.
import { posix } from 'node:path';
import { FleetError } from '@fleetls/core';
import type { FleetHost } from '../fleet/fleet-types.js';
import { globToRegExp, selectHosts } from '../fleet/selector.js';
import type { PrincipalSpec } from './file.js';

/** A refusal that says what the principal may do instead, as agents name their roots. */
export function grantRefusal(spec: PrincipalSpec, what: string): FleetError {
  return new FleetError('permission_denied', `${what}; ${describeGrant(spec)}`);
}

/** "web-team may call list_files, stat on hosts @web under /var/log". */
export function describeGrant(spec: PrincipalSpec): string {
  return `${spec.name} may call ${spec.tools.join(', ')} on hosts ${spec.hosts.join(', ')} under ${spec.paths.join(', ')}`;
}

function toolMatches(pattern: string, name: string): boolean {
  return pattern === '*' || globToRegExp(pattern).test(name);
}

/** Allowed by some pattern and denied by none (`!` patterns win whatever their place). */
export function mayCall(spec: PrincipalSpec, tool: string): boolean {
  let allowed = false;
  for (const p of spec.tools) {
    if (p.startsWith('!')) {
      if (toolMatches(p.slice(1), tool)) return false;
    } else if (toolMatches(p, tool)) allowed = true;
  }
  return allowed;
}

/**
 * Whether `path` lies within one of the granted roots. Compared lexically after normalising;
 * a `..` component is refused outright (an agent resolves it on disk, through links, where
 * the gateway cannot follow), unless the principal has `/`.
 */
export function pathWithin(spec: PrincipalSpec, path: string): boolean {
  if (spec.paths.includes('/')) return true;
  if (!path.startsWith('/') || path.split('/').includes('..')) return false;
  const p = posix.normalize(path).replace(/(.)\/$/, '$1');
  return spec.paths.some((root) => p === root || p.startsWith(`${root}/`));
}

export function checkPath(spec: PrincipalSpec, path: string): void {
  if (!pathWithin(spec, path)) throw grantRefusal(spec, `path '${path.slice(0, 256)}' is outside ${spec.name}'s roots`);
}

/** The hosts of the fleet the principal's selectors reach (a selector that reaches none adds none). */
export function grantedHosts(spec: PrincipalSpec, hosts: FleetHost[]): FleetHost[] {
  if (spec.hosts.includes('all')) return hosts;
  const names = new Set<string>();
  for (const sel of spec.hosts) {
    try {
      for (const h of selectHosts(sel, hosts)) names.add(h.name);
    } catch {
      // A selector of the file naming a host or group the fleet does not have (now): nothing granted by it.
    }
  }
  return hosts.filter((h) => names.has(h.name));
}

const SET_TERM = /^all$|^@|^label:|[*?[]/;

export interface Narrowed {
  hosts: FleetHost[];
  /** Set when the selector reached hosts outside the grant and was narrowed to those inside. */
  note?: string;
}

/**
 * The hosts a call's selector reaches within the grant. A term naming one host outside it is
 * refused (whether or not the host exists: the answer is the same); a term naming a set
 * (`all`, a glob, `@group`, `label:`) keeps its members inside the grant, and the answer says
 * it was narrowed; a set with no member inside is refused.
 */
export function narrowSelector(spec: PrincipalSpec, selector: string, hosts: FleetHost[]): Narrowed {
  const granted = grantedHosts(spec, hosts);
  if (granted.length === hosts.length) return { hosts: selectHosts(selector, hosts) };
  const inside = new Set(granted.map((h) => h.name));
  const terms = selector
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  // selectHosts' own refusal of an empty selector, with its words.
  if (terms.length === 0) selectHosts(selector, granted);
  const out: FleetHost[] = [];
  const seen = new Set<string>();
  let narrowed = false;
  for (const term of terms) {
    let reached: FleetHost[];
    if (!SET_TERM.test(term)) {
      if (!inside.has(term)) throw grantRefusal(spec, `host '${term.slice(0, 256)}' is outside ${spec.name}'s hosts`);
      reached = granted.filter((h) => h.name === term);
    } else {
      let wide: FleetHost[];
      try {
        wide = selectHosts(term, hosts);
      } catch {
        // Unknown group or the like: refused with the words of the granted hosts, so the
        // error lists no group or host the principal may not see.
        wide = selectHosts(term, granted);
      }
      reached = wide.filter((h) => inside.has(h.name));
      if (reached.length === 0) {
        throw grantRefusal(spec, `host '${term.slice(0, 256)}' reaches no host ${spec.name} may ask`);
      }
      if (reached.length < wide.length) narrowed = true;
    }
    for (const h of reached) {
      if (!seen.has(h.name)) {
        seen.add(h.name);
        out.push(h);
      }
    }
  }
  if (!narrowed) return { hosts: out };
  return {
    hosts: out,
    note: `host '${selector.slice(0, 256)}' narrowed to the ${out.length} host${out.length === 1 ? '' : 's'} ${spec.name} may ask (${spec.hosts.join(', ')})`,
  };
}
