// list_hosts: the inventory as the selector sees it; with check=true, every host probed in
// parallel for reachability and its agent's version.
import { renderAligned, type TableRow } from '@fleetls/core';
import type { z } from 'zod';
import { fanOut } from '../fan-out.js';
import { fanOutOptions, type QueryContext, type QueryResult } from './common.js';
import { type hostRowSchema, listHostsInput, type listHostsOutput, parseArgs } from './schemas.js';

type HostRow = z.infer<typeof hostRowSchema>;
export type ListHostsAnswer = z.infer<z.ZodObject<typeof listHostsOutput>>;

export async function listHosts(ctx: QueryContext, args: unknown): Promise<QueryResult<ListHostsAnswer>> {
  const a = parseArgs(listHostsInput, args);
  const hosts = ctx.fleet.select(a.host);
  const rows: HostRow[] = hosts.map((h) => ({
    host: h.name,
    transport: h.via,
    address: h.address,
    labels: { ...h.labels },
    groups: [...h.groups],
    ssh_fallback: h.sshFallback,
  }));
  if (a.check) {
    const results = await fanOut(ctx.fleet, hosts, (b, _h, signal) => b.probe(signal), fanOutOptions(ctx));
    results.forEach((r, i) => {
      const row = rows[i];
      row.reachable = r.status.status === 'ok';
      if (r.value) row.version = r.value.version;
      row.status = r.status.status;
      row.via = r.status.via;
      row.elapsed_ms = r.status.elapsedMs;
      if (r.status.message !== undefined) row.message = r.status.message;
    });
  }
  const table: TableRow[] = rows.map((r) => ({
    host: r.host,
    transport: r.transport + (r.ssh_fallback ? '+ssh' : ''),
    address: r.address,
    labels: Object.entries(r.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    groups: r.groups.join(','),
    status: r.status === undefined ? undefined : r.status === 'ok' ? `ok (${r.via}, ${r.elapsed_ms} ms)` : r.status,
    version: r.version,
    message: r.message,
  }));
  const columns = [
    'host',
    'transport',
    'address',
    'labels',
    'groups',
    ...(a.check ? ['status', 'version', 'message'] : []),
  ];
  const headers = Object.fromEntries(columns.map((c) => [c, c.toUpperCase()]));
  const text = rows.length === 0 ? 'No hosts match.' : renderAligned(columns, table, { headers }).join('\n');
  return { structured: { hosts: rows, count: rows.length, checked: a.check }, text };
}
