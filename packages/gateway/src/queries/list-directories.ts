// list_directories: Linux MCP Server's meaning, across hosts. The immediate subdirectories of
// path, merged in the requested order; sizes are recursive (du -b --one-file-system) and
// computed only when ordering by size.
import {
  baseName,
  displayPath,
  humanSize,
  renderAligned,
  reserveFor,
  resolveWalkRequest,
  type TableRow,
  TextBudget,
} from '@fleetls/core';
import type { z } from 'zod';
import {
  failureLines,
  hostStatusJson,
  mergeRankedWalks,
  modified,
  type QueryContext,
  type QueryResult,
  walkDeadlineMs,
  walkHosts,
} from './common.js';
import { BOUNDS, listDirectoriesInput, type listDirectoriesOutput, type nodeSchema, parseArgs } from './schemas.js';

type NodeJson = z.infer<typeof nodeSchema>;
export type ListDirectoriesAnswer = z.infer<z.ZodObject<typeof listDirectoriesOutput>>;

/** Rows asked of each host when no top_n is given: more than any answer's byte budget shows. */
export const DIRECTORIES_FETCH_LIMIT = BOUNDS.limit.max;

export async function listDirectories(ctx: QueryContext, args: unknown): Promise<QueryResult<ListDirectoriesAnswer>> {
  const a = parseArgs(listDirectoriesInput, args);
  const hosts = ctx.fleet.select(a.host);
  const sizes = a.order_by === 'size';
  const req = resolveWalkRequest({
    path: a.path,
    shape: 'ranked',
    maxDepth: 1,
    order: a.order_by,
    direction: a.sort,
    topN: a.top_n ?? DIRECTORIES_FETCH_LIMIT,
    types: ['dir'],
    dirSizes: sizes,
    oneFileSystem: true,
    deadlineMs: walkDeadlineMs(ctx.options),
  });
  const results = await walkHosts(ctx, hosts, req);

  // Directories only: a listing error row (an unreadable path) is the host's, not a node.
  const { merged, found, truncations, warnings, notes } = mergeRankedWalks(
    results,
    req,
    (e) => e.type === 'dir' && !e.error,
  );
  const ranked = a.top_n !== undefined ? merged.slice(0, a.top_n) : merged;

  const multi = hosts.length > 1;
  const nodes: NodeJson[] = [];
  const rows: TableRow[] = [];
  const budget = new TextBudget(ctx.options.maxAnswerBytes, reserveFor(hosts.length) + 256);
  for (const { host, entry } of ranked) {
    const node: NodeJson = { host, name: displayPath(baseName(entry.path)), modified: modified(entry) };
    if (sizes) {
      node.size = entry.size;
      if (entry.sizePartial) node.size_partial = true;
    }
    const row: TableRow = {
      host,
      name: node.name,
      size: sizes ? `${humanSize(entry.size)}${entry.sizePartial ? '+' : ''}` : undefined,
      modified: node.modified,
    };
    // Aligned columns are rendered once at the end; a tab-joined line bounds the cost.
    if (!budget.take([host, node.name, row.size ?? '', node.modified].join('  '))) break;
    nodes.push(node);
    rows.push(row);
  }
  const shown = nodes.length;
  const truncated = shown < found || truncations.length > 0;
  if (shown < ranked.length) {
    truncations.push({ host: '', dir: '', shown, total: ranked.length, reason: 'bytes' });
    warnings.push(
      `[WARNING] answer cut at ${ctx.options.maxAnswerBytes} bytes after ${shown} of ${ranked.length} directories; ask with a smaller top_n, or page with list_files type=directory`,
    );
  }
  const columns = [...(multi ? ['host'] : []), 'name', ...(sizes ? ['size'] : []), 'modified'];
  const headline =
    found === 0
      ? `No directories found in '${req.path}'`
      : `${found} ${found === 1 ? 'directory' : 'directories'} in '${req.path}'${shown < found ? `, showing ${shown}` : ''}` +
        (sizes ? ' (sizes: recursive, one file system; + = lower bound)' : '');
  const table =
    shown > 0
      ? renderAligned(columns, rows, {
          right: ['size'],
          headers: { host: 'HOST', name: 'NAME', size: 'SIZE', modified: 'MODIFIED' },
        })
      : [];
  const failures = failureLines(results, req.path, multi);
  return {
    structured: {
      path: req.path,
      nodes,
      total: shown,
      found,
      shown,
      truncated,
      truncations,
      ...(notes.length > 0 ? { notes } : {}),
      hosts: results.map((r) => hostStatusJson(r.status)),
    },
    text: [headline, ...table, ...warnings, ...failures].join('\n'),
  };
}
