// Who a call is and what it may reach, as every face hands it to runTool: the principal's name
// (scans, tasks and kept pages belong to it; the audit line names it), its grant (none: all,
// as without a grants file), and its rate. runTool makes every face's call pass checkTool,
// checkCallPath and grantedFleet before any host is asked.
import { FleetError } from '@fleetls/core';
import type { Fleet } from '../fleet/fleet-types.js';
import type { PrincipalSpec } from './file.js';
import { checkPath, grantedHosts, grantRefusal, mayCall, narrowSelector } from './grant.js';
import type { RateLimiter } from './rate.js';

export interface CallerAccess {
  /** The principal's name (`web-team`, `local`). */
  principal: string;
  /** What it may do; undefined: everything (no grants file, or `local` not named in it). */
  spec?: PrincipalSpec;
  /** Its calls' bucket; undefined: not limited. */
  limiter?: RateLimiter;
  /** The face took this request from the bucket already (the HTTP door answers 429 itself). */
  counted?: boolean;
}

/** What the check found, for the call and its audit line. */
export interface GrantDecision {
  decision: 'allowed' | 'narrowed' | 'refused';
  why?: string;
}

/** Everything granted: a caller without a grants file, as before grants existed. */
export function allAccess(principal: string): CallerAccess {
  return { principal };
}

/**
 * Counts the call against the principal's rate, and refuses a tool outside the grant with a
 * permission_denied naming what the principal may do. `tool` is the name the grant knows it by.
 */
export function checkTool(access: CallerAccess, tool: string): void {
  if (access.limiter && !access.counted) access.limiter.take(access.principal);
  const spec = access.spec;
  if (spec && !mayCall(spec, tool)) throw grantRefusal(spec, `${spec.name} may not call ${tool}`);
}

/** Refuses a path outside the grant's roots (a call without a path has nothing to check). */
export function checkCallPath(access: CallerAccess, path: unknown): void {
  if (access.spec && typeof path === 'string') checkPath(access.spec, path);
}

/**
 * The fleet as the principal sees it: its hosts are the granted ones, and a selector is
 * narrowed (or refused) by narrowSelector; `decision` records either, for the answer and
 * the audit line.
 */
export function grantedFleet(fleet: Fleet, spec: PrincipalSpec, decision: GrantDecision): Fleet {
  return {
    hosts: () => grantedHosts(spec, fleet.hosts()),
    host(name) {
      const h = fleet.host(name);
      return h && grantedHosts(spec, [h]).length > 0 ? h : undefined;
    },
    select(selector) {
      try {
        const r = narrowSelector(spec, selector, fleet.hosts());
        if (r.note) Object.assign(decision, { decision: 'narrowed', why: r.note });
        return r.hosts;
      } catch (err) {
        if (err instanceof FleetError && err.code === 'permission_denied') {
          Object.assign(decision, { decision: 'refused', why: err.message });
        }
        throw err;
      }
    },
    backend: (host) => fleet.backend(host),
    close: () => fleet.close(),
    // The hosts a split sends to peers are the narrowed ones; each peer checks its own grants too.
    peers: fleet.peers,
    get observer() {
      return fleet.observer;
    },
  };
}
