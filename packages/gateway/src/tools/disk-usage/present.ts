// disk_usage's answer as a model reads it: a table of the largest directories within the
// answer budget, each host's total of path, beside the JSON rows.
import { type DuRow, type DuTotal, displayPath, duPartialNote, renderDuTable, renderDuTotals } from '@fleetls/core';
import { rowSize } from '../shared/answer-size.js';
import { fitPage } from '../shared/page-answer.js';
import { noteLine, pageEnd, topNRecord } from '../shared/present.js';
import type { McpAnswer, ToolContext } from '../tool.js';
import type { DiskUsage, DiskUsageAnswer, RowJson, TotalJson } from './shape.js';

function totalJson(t: DuTotal): TotalJson {
  const out: TotalJson = { host: t.host, size: t.size };
  if (t.partial) out.size_partial = true;
  if (t.unreadableDirs) out.unreadable_dirs = t.unreadableDirs;
  return out;
}

/** A row as JSON: its host only when several hosts were asked, as every tool's rows. */
function rowJson(r: DuRow, multi: boolean): RowJson {
  const out: RowJson = { ...(multi ? { host: r.host } : {}), path: displayPath(r.path), size: r.size };
  if (r.allocated !== undefined) out.allocated = r.allocated;
  if (r.partial) out.size_partial = true;
  if (r.unreadableDirs) out.unreadable_dirs = r.unreadableDirs;
  return out;
}

/** `Largest directories under /p on N hosts (…): 1-20 of …`, or why there are none. */
export function headline(usage: DiskUsage, count: number): string {
  const hosts = usage.hosts.filter((h) => h.status === 'ok').length;
  const on = `${hosts} host${hosts === 1 ? '' : 's'}`;
  // No host could size the path (not a directory, missing, denied): the failure lines below say why.
  if (hosts === 0 && usage.hosts.length > 0) return `Could not size ${usage.path} on any host:`;
  if (usage.rows.length === 0) return `No directories under ${usage.path} on ${on} (depth ${usage.depth})`;
  const range = usage.start > 0 || count < usage.rows.length ? ` ${usage.start + 1}-${usage.start + count} of` : '';
  return `Largest directories under ${usage.path} on ${on} (depth ${usage.depth}, du -b --one-file-system${usage.rows.some((r) => r.allocated !== undefined) ? '; ON DISK as du' : ''}):${range} ${usage.rows.length} of ${usage.found}`;
}

/** The MCP answer: the page's rows as a table and as JSON, cut to the answer budget. */
export function presentDiskUsage(usage: DiskUsage, ctx: ToolContext): McpAnswer {
  const page = usage.rows.slice(usage.start);
  const jsons = page.map((r) => rowJson(r, usage.multi));
  // A table line is at most its widest cells: the size, a full bar, the host and the path.
  const widest = (r: DuRow) => `1023.9 MiB  ${'#'.repeat(40)}  ${r.host}  ${usage.path}/${displayPath(r.path)}`;
  return fitPage(usage, {
    multi: usage.multi,
    rows: page.length,
    rowCost: (i) => rowSize(widest(page[i]), jsons[i]),
    noun: 'rows',
    hostCuts: usage.truncations,
    lines(count) {
      const why = duPartialNote(page.slice(0, count), usage.path, usage.multi);
      return [...usage.notes.map((n) => noteLine(n, true)), ...(why ? [why] : [])];
    },
    page(count, { next, truncations, hosts }) {
      const body = count > 0 ? ['', ...renderDuTable(page.slice(0, count), usage.path, usage.multi)] : [];
      if (usage.totals.length > 0) body.push('', ...renderDuTotals(usage.totals, usage.path, usage.multi));
      const structured: DiskUsageAnswer = {
        path: usage.path,
        depth: usage.depth,
        rows: jsons.slice(0, count),
        path_totals: usage.totals.map(totalJson),
        total: usage.rows.length,
        found: usage.found,
        ...pageEnd({
          start: usage.start,
          count,
          total: usage.rows.length,
          truncations:
            usage.rows.length < usage.found
              ? [...truncations, topNRecord(usage.rows.length, usage.found)]
              : truncations,
          hosts,
          next,
        }),
      };
      if (usage.notes.length > 0) structured.notes = usage.notes;
      return { structured, text: [headline(usage, count), ...body] };
    },
    options: ctx.options,
  });
}
