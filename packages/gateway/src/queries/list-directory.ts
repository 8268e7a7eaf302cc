// list_directory: DesktopCommander's tree lines, per host, in selector order.
import { displayPath, type Entry, resolveWalkRequest, treeEntryLine, treeTruncationLine } from '@fleetls/core';
import type { z } from 'zod';
import {
  failureLine,
  hostStatusJson,
  lossTruncations,
  modified,
  type QueryContext,
  type QueryResult,
  reserveFor,
  TextBudget,
  truncationJson,
  typeWord,
  walkDeadlineMs,
  walkHosts,
} from './common.js';
import { listDirectoryInput, type listDirectoryOutput, parseArgs, type treeEntrySchema } from './schemas.js';

type TreeEntryJson = z.infer<typeof treeEntrySchema>;
export type ListDirectoryAnswer = z.infer<z.ZodObject<typeof listDirectoryOutput>>;

function entryJson(host: string, e: Entry): TreeEntryJson {
  const out: TreeEntryJson = { host, path: displayPath(e.path), type: typeWord(e) };
  if (e.error) {
    out.error = { code: e.error.code, detail: e.error.detail };
    return out;
  }
  out.size = e.size;
  out.modified = modified(e);
  if (e.linkTarget !== undefined) out.link_target = displayPath(e.linkTarget);
  return out;
}

/**
 * Rows one host may send: enough to fill the text budget whatever the line lengths (a line
 * takes 9 bytes at least), shared among hosts so the gateway holds O(budget) rows, with a
 * floor so each host of a large fleet still shows a useful tree (the cut is reported).
 */
export function treeMaxEntries(maxAnswerBytes: number, hostCount: number): number {
  return Math.max(2000, Math.ceil(maxAnswerBytes / 8 / Math.max(1, hostCount)));
}

export async function listDirectory(ctx: QueryContext, args: unknown): Promise<QueryResult<ListDirectoryAnswer>> {
  const a = parseArgs(listDirectoryInput, args);
  const hosts = ctx.fleet.select(a.host);
  const req = resolveWalkRequest({
    path: a.path,
    shape: 'tree',
    maxDepth: a.depth,
    maxItemsPerDir: a.max_items_per_dir,
    capRoot: false,
    maxEntries: treeMaxEntries(ctx.options.maxAnswerBytes, hosts.length),
    order: 'name',
    direction: 'ascending',
    deadlineMs: walkDeadlineMs(ctx.options),
  });
  const results = await walkHosts(ctx, hosts, req);

  const multi = hosts.length > 1;
  const budget = new TextBudget(ctx.options.maxAnswerBytes, reserveFor(hosts.length));
  const lines: string[] = [];
  const tail: string[] = [];
  const entries: TreeEntryJson[] = [];
  const truncations: ReturnType<typeof truncationJson>[] = [];
  let shownRows = 0;
  let totalRows = 0;

  for (const r of results) {
    const host = r.host.name;
    const prefix = multi ? `${host}: ` : '';
    if (!r.value) {
      // Failed hosts keep their place in the host order, inside the budget's reserve.
      lines.push(prefix + failureLine(r.status, req.path));
      continue;
    }
    const rootLabel = req.path;
    for (const row of r.value.rows) {
      totalRows++;
      const line =
        prefix +
        (row.kind === 'entry' ? treeEntryLine(row.entry, rootLabel) : treeTruncationLine(row.truncation, rootLabel));
      if (!budget.take(line)) continue;
      shownRows++;
      lines.push(line);
      if (row.kind === 'entry') entries.push(entryJson(host, row.entry));
      else {
        const t = row.truncation;
        entries.push({ host, path: displayPath(t.dir), type: 'warning', hidden: { shown: t.shown, total: t.total } });
      }
    }
    for (const t of lossTruncations(r.value.summary)) {
      lines.push(prefix + treeTruncationLine(t, rootLabel));
      truncations.push(truncationJson(host, t));
    }
  }
  if (budget.exhausted) {
    tail.push(
      `[WARNING] answer cut at ${ctx.options.maxAnswerBytes} bytes: showing ${shownRows} of ${totalRows} lines; ` +
        'ask for a smaller depth or max_items_per_dir, a deeper path, or fewer hosts',
    );
    truncations.push({ host: '', dir: '', shown: shownRows, total: totalRows, reason: 'bytes' });
  }
  return {
    structured: {
      path: req.path,
      entries,
      truncated: truncations.length > 0,
      truncations,
      hosts: results.map((r) => hostStatusJson(r.status)),
    },
    text: [...lines, ...tail].join('\n'),
  };
}
