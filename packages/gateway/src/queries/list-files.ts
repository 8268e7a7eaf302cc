// list_files: one ranked list over every host (Jupyter MCP's TableAnswer), paged with
// start_index/limit or a cursor. Each host returns its best start+limit rows in order;
// the gateway merges them and cuts the page, so pages cover the merged list exactly once.
import {
  baseName,
  compileGlob,
  decodeCursor,
  displayPath,
  type Entry,
  type EntryType,
  encodeCursor,
  FleetError,
  humanSize,
  invalidArgument,
  queryFingerprint,
  renderTsv,
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
  typeWord,
  walkDeadlineMs,
  walkHosts,
} from './common.js';
import {
  BOUNDS,
  FILE_COLUMNS,
  type fileItemSchema,
  listFilesInput,
  type listFilesOutput,
  parseArgs,
} from './schemas.js';

type FileItem = z.infer<typeof fileItemSchema>;
export type ListFilesAnswer = z.infer<z.ZodObject<typeof listFilesOutput>>;

const TYPES: Record<typeof import('./schemas.js').FILE_TYPES[number], EntryType[]> = {
  file: ['file'],
  directory: ['dir'],
  symlink: ['symlink'],
  any: [],
};
const NOUN = { file: 'files', directory: 'directories', symlink: 'symlinks', any: 'entries' } as const;

function itemJson(host: string, e: Entry): FileItem {
  const item: FileItem = {
    host,
    path: displayPath(e.path),
    name: displayPath(baseName(e.path)),
    type: typeWord(e),
    size: e.size,
    modified: modified(e),
  };
  if (e.linkTarget !== undefined) item.link_target = displayPath(e.linkTarget);
  if (e.error) item.error = { code: e.error.code, detail: e.error.detail };
  return item;
}

/** Where a cursor goes on from; a cursor of another query (or garbage) names what must not change. */
function pageStart(cursor: string, fingerprint: string): number {
  let offset: number;
  try {
    offset = decodeCursor(cursor, fingerprint);
  } catch {
    throw invalidArgument(
      'cursor is not valid for this query: pass next_cursor unchanged, with host, path, order_by, sort, top_n, max_depth, pattern and type as on the first page',
    );
  }
  if (offset > BOUNDS.startIndex.max)
    throw invalidArgument(`cursor position must be from 0 to ${BOUNDS.startIndex.max}`);
  return offset;
}

export async function listFiles(ctx: QueryContext, args: unknown): Promise<QueryResult<ListFilesAnswer>> {
  const a = parseArgs(listFilesInput, args);
  const hosts = ctx.fleet.select(a.host);
  const fingerprint = queryFingerprint({
    tool: 'list_files',
    host: a.host,
    path: a.path,
    order_by: a.order_by,
    sort: a.sort,
    top_n: a.top_n,
    max_depth: a.max_depth,
    pattern: a.pattern,
    type: a.type,
  });
  const start = a.cursor !== undefined ? pageStart(a.cursor, fingerprint) : a.start_index;
  const cap = a.top_n ?? Number.POSITIVE_INFINITY;
  const want = Math.max(1, Math.min(cap, start + a.limit));
  if (a.pattern !== '') {
    try {
      compileGlob(a.pattern);
    } catch (err) {
      throw invalidArgument(`pattern: ${FleetError.from(err).message}`);
    }
  }
  const req = resolveWalkRequest({
    path: a.path,
    shape: 'ranked',
    maxDepth: a.max_depth + 1,
    order: a.order_by,
    direction: a.sort,
    topN: want,
    offset: 0,
    include: a.pattern === '' ? [] : [a.pattern],
    types: TYPES[a.type],
    deadlineMs: walkDeadlineMs(ctx.options),
  });
  const results = await walkHosts(ctx, hosts, req);

  const { merged, found, truncations, warnings, notes } = mergeRankedWalks(results, req);
  const total = Math.min(cap, found);
  const page = merged.slice(start, Math.min(start + a.limit, total));

  const multi = hosts.length > 1;
  const columns = multi ? ['host', 'path', 'type', 'size', 'modified'] : ['path', 'type', 'size', 'modified'];
  const headers = { host: 'Host', path: 'Path', type: 'Type', size: 'Size', modified: 'Last_Modified' };
  const budget = new TextBudget(ctx.options.maxAnswerBytes, reserveFor(hosts.length));
  const [header] = renderTsv(columns, [], headers);
  budget.take(header);
  const tsv: string[] = [header];
  const items: FileItem[] = [];
  for (const { host, entry } of page) {
    const item = itemJson(host, entry);
    const row: TableRow = {
      host,
      path: item.path,
      type: entry.error ? `error: ${entry.error.code} ${entry.error.detail}` : item.type,
      size: entry.type === 'dir' ? '' : humanSize(entry.size),
      modified: item.modified,
    };
    const [line] = renderTsv(columns, [row]).slice(1);
    if (!budget.take(line)) break;
    tsv.push(line);
    items.push(item);
  }
  const count = items.length;
  const next = start + count;
  const nextCursor = next < total ? encodeCursor(next, fingerprint) : undefined;
  if (count < page.length) {
    truncations.push({ host: '', dir: '', shown: count, total: page.length, reason: 'bytes' });
    warnings.push(
      `[WARNING] answer cut at ${ctx.options.maxAnswerBytes} bytes after ${count} of ${page.length} rows; next_cursor goes on from there`,
    );
  }

  const noun = NOUN[a.type];
  let headline: string;
  if (count > 0) headline = `Showing ${start + 1}-${next} of ${total} ${noun}`;
  else if (total > 0) headline = `[WARNING] start_index ${start} is past the last of ${total} ${noun}`;
  else if (a.pattern !== '') headline = `No ${noun} matching pattern '${a.pattern}' found in path '${req.path}'`;
  else headline = `No ${noun} found in path '${req.path}'`;
  if (total < found) headline += ` (top ${total} of ${found} found)`;

  const failures = failureLines(results, req.path, multi);
  const body = count > 0 ? ['', ...tsv] : [];
  const result = [headline, ...body, ...warnings, ...failures].join('\n');
  const structured: ListFilesAnswer = {
    kind: 'files.list',
    columns: [...FILE_COLUMNS],
    items,
    count,
    total,
    found,
    start_index: start,
    result,
    truncated: truncations.length > 0 || nextCursor !== undefined,
    truncations,
    hosts: results.map((r) => hostStatusJson(r.status)),
  };
  if (nextCursor !== undefined) structured.next_cursor = nextCursor;
  if (notes.length > 0) structured.notes = notes;
  return { structured, text: result };
}
