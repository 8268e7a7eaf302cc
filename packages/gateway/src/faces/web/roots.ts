// Where the dashboard opens a view: a path every selected host allows. An agent names its
// roots when it refuses a path outside them (core's assertAllowed: "… is outside the allowed
// roots (A, B)"), so the gateway asks each host for `/` and reads the answer: `/` itself when
// it is allowed, else the roots named. A host that did not answer says nothing.
//   GET /dashboard/api/roots?host=SELECTOR  →  { path, hosts: [{ host, roots }] }

import type { Fleet } from '../../fleet/fleet-types.js';
import type { GatewayOptions } from '../../fleet/options.js';
import { runTool } from '../../tools/run-tool.js';
import { type StatListing, statTool } from '../../tools/stat/index.js';

export interface HostRoots {
  host: string;
  /** What the host allows: `/`, or its roots; empty when it did not say. */
  roots: string[];
}

export interface RootsView {
  /** Where to open: `/` when every answering host allows it, else a root they all allow. */
  path: string;
  hosts: HostRoots[];
}

const NAMED = /outside the allowed roots \((.+)\)$/;

/** The roots an answer to `stat /` tells. */
export function rootsOfAnswer(status: string, message: string | undefined): string[] {
  if (status === 'ok') return ['/'];
  const m = status === 'denied' && message ? NAMED.exec(message) : null;
  return m ? m[1].split(', ').filter((r) => r.startsWith('/')) : [];
}

const within = (root: string, path: string) => root === '/' || path === root || path.startsWith(`${root}/`);

/** The first root of the answering hosts that every one of them allows; else the first named; else `/`. */
export function commonPath(hosts: readonly HostRoots[]): string {
  const told = hosts.filter((h) => h.roots.length > 0);
  const candidates = told.flatMap((h) => h.roots);
  return candidates.find((c) => told.every((h) => h.roots.some((r) => within(r, c)))) ?? candidates[0] ?? '/';
}

export async function rootsOf(fleet: Fleet, options: GatewayOptions, selector: string): Promise<RootsView> {
  const ctx = {
    fleet,
    options,
    signal: AbortSignal.timeout(options.callDeadlineMs),
    deadlineAt: performance.now() + options.callDeadlineMs,
  };
  const result = (await runTool(statTool, { host: selector, path: '/' }, ctx)) as StatListing;
  const hosts = result.hosts.map((s) => ({ host: s.host, roots: rootsOfAnswer(s.status, s.message) }));
  return { path: commonPath(hosts), hosts };
}
