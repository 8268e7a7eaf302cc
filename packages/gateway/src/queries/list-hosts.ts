// list_hosts: the inventory as the selector sees it; with check=true, every host probed in
// parallel for reachability and its agent's version.
import { renderAligned, type TableRow, TextBudget } from '@fleetls/core';
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
  if (rows.length === 0)
    return { structured: { hosts: [], count: 0, checked: a.check, truncated: false }, text: 'No hosts match.' };
  const [header, ...lines] = renderAligned(columns, table, { headers });
  const budget = new TextBudget(ctx.options.maxAnswerBytes, 512);
  budget.take(header);
  const shown = [header];
  for (const line of lines) if (budget.take(line)) shown.push(line);
  const kept = shown.length - 1;
  if (kept < rows.length) {
    shown.push(
      `[WARNING] answer cut at ${ctx.options.maxAnswerBytes} bytes: ${kept} of ${rows.length} hosts shown; narrow the selector`,
    );
  }
  return {
    structured: { hosts: rows.slice(0, kept), count: kept, checked: a.check, truncated: kept < rows.length },
    text: shown.join('\n'),
  };
}
