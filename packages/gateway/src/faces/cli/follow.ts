// `fleetls ls` without --limit: every entry, as ls and `kubectl get` (which follows its
// chunks' continue tokens) show them. The pages are the tool's own (its largest, then its
// cursor), joined into one listing so the table is aligned once and the headline counts all.
import type { HostStatus } from '@fleetls/core';
import type { FileListing } from '../../tools/list-files/shape.js';
import { LIMIT } from '../../tools/list-files/shape.js';

/** Runs `page` from `args` (at the largest page) and on through each next cursor; one listing of them all. */
export async function followPages(
  args: Record<string, unknown>,
  page: (args: Record<string, unknown>) => Promise<FileListing>,
): Promise<FileListing> {
  const first = await page({ ...args, limit: LIMIT.max });
  const rows = [...first.rows];
  const hosts = new Map(first.hosts.map((h) => [h.host, h]));
  const truncations = [...first.truncations];
  const notes = [...first.notes];
  let last = first;
  for (let next = first.cursorAfter(first.rows.length); next !== undefined; next = last.cursorAfter(last.rows.length)) {
    last = await page({ ...args, limit: LIMIT.max, cursor: next });
    rows.push(...last.rows);
    // A host that failed on any page stays failed: its rows after that are missing.
    for (const h of last.hosts) if (worse(h, hosts.get(h.host))) hosts.set(h.host, h);
    truncations.push(...last.truncations);
    notes.push(...last.notes);
  }
  return {
    ...first,
    rows,
    hosts: first.hosts.map((h) => hosts.get(h.host) ?? h),
    truncations,
    notes,
    total: last.total,
    found: last.found,
    cursorAfter: () => undefined,
  };
}

function worse(h: HostStatus, before: HostStatus | undefined): boolean {
  return before === undefined || (before.status === 'ok' && h.status !== 'ok');
}
