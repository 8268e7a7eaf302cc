// list_files: one list over every host (Jupyter MCP's TableAnswer), paged with
// start_index/limit or a cursor. In name order it is path order, paged by resuming the
// hosts' walks (list-files-paths.ts), so every entry is reachable. In a ranked order (size,
// modified) each host returns its best start+limit rows; the gateway merges them and cuts
// the page, so pages cover the merged ranking exactly once, up to the kept top-K.
import {
  baseName,
  compileGlob,
  DEFAULT_CEILINGS,
  decodeCursor,
  decodePathCursor,
  displayPath,
  type Entry,
  type EntryType,
  encodeCursor,
  encodePathCursor,
  type FilterFeature,
  FleetError,
  filterFeatures,
  humanSize,
  invalidArgument,
  MAX_PATH_CURSOR_LENGTH,
  type PageCursor,
  type PathCursor,
  queryFingerprint,
  renderTsv,
  resolveWalkRequest,
  type TableRow,
  type WalkRequest,
} from '@fleetls/core';
import { z } from 'zod';
import { type FileItem as CliFileItem, formatFileTable } from '../cli/format.js';
import type { HostResult } from '../fan-out.js';
import type { FleetHost } from '../fleet-types.js';
import { type AnswerCut, cutRecord, fitAnswer, rowSize } from './answer-size.js';
import { decodeCursorArg } from './cursor-arg.js';
import { filterFingerprint, filterInput, planFilter } from './filter-args.js';
import { fitHostStatuses } from './host-statuses.js';
import {
  type HostEntry,
  type HostNote,
  type HostTruncation,
  type HostWalk,
  mergeRankedWalks,
  walkDeadlineMs,
  walkHosts,
  walkTask,
} from './host-walks.js';
import { hostRanks, PATH_CHUNK_ROWS, type PathChunk, pathCursorAfter, walkPathChunk } from './list-files-paths.js';
import { type RankingSnapshot, SNAPSHOT_ROWS } from './page-store.js';
import {
  failureLines,
  hostFailureLine,
  modified,
  noteLine,
  truncationJson,
  truncationWarning,
  typeWord,
} from './present.js';
import type { ScanPage } from './scan-face.js';
import * as s from './schemas.js';
import { defineTool, type McpAnswer, type ToolResult } from './tool.js';

export const LIMIT = { min: 1, max: 5000, default: 200 } as const;
// start_index + limit stays within what a ranking keeps: the agents' top-N ceiling.
export const START_INDEX = { min: 0, max: SNAPSHOT_ROWS - LIMIT.max } as const;
const MAX_DEPTH = { min: 0, max: s.DEPTH.max, default: 0 } as const;
export const FILE_TYPES = ['file', 'directory', 'symlink', 'any'] as const;
type FileType = (typeof FILE_TYPES)[number];

const input = {
  host: s.host(),
  path: s.path,
  order_by: s.orderBy,
  sort: s.sort,
  top_n: s.topN,
  max_depth: s
    .int('max_depth', MAX_DEPTH.min, MAX_DEPTH.max)
    .default(MAX_DEPTH.default)
    .describe('Levels below path (0 = its own entries)'),
  pattern: z
    .string({ error: 'pattern must be a string: a glob' })
    .max(1024, { error: 'pattern must be at most 1024 characters' })
    .default('')
    .describe('Glob on the relative path (*.log at any depth, ** crosses /)'),
  type: z
    .enum(FILE_TYPES, { error: `type must be one of ${FILE_TYPES.join(', ')}` })
    .default('file')
    .describe('Row type'),
  start_index: s.int('start_index', START_INDEX.min, START_INDEX.max).default(0).describe('Rows skipped'),
  limit: s.int('limit', LIMIT.min, LIMIT.max).default(LIMIT.default).describe('Rows per page'),
  cursor: s.cursor(MAX_PATH_CURSOR_LENGTH, 'same arguments; overrides start_index'),
  ...filterInput,
};

export const FILE_COLUMNS = ['host', 'path', 'name', 'type', 'size', 'modified'] as const;

const fileItemSchema = z.object({
  /** Only when several hosts were asked. */
  host: z.string().optional(),
  path: z.string(),
  name: z.string(),
  type: z.string().optional().describe('entry type: directory, symlink, fifo, socket, char, block; absent = file'),
  size: z.number(),
  modified: z.string(),
  link_target: z.string().optional(),
  error: s.entryErrorSchema.optional(),
});

const output = {
  kind: z.literal('files.list'),
  columns: z.array(z.string()),
  items: z.array(fileItemSchema),
  count: z.number(),
  total: z
    .number()
    .optional()
    .describe('Rows in the whole listing; in name order absent until a page reaches the end (follow next_cursor)'),
  found: z
    .number()
    .optional()
    .describe('Entries that matched on all hosts; in a ranked order beyond total when top-K kept only total'),
  start_index: z.number(),
  next_cursor: z.string().optional(),
  truncated: z.boolean(),
  truncations: z.array(s.truncationSchema),
  notes: z.array(s.noteSchema).optional(),
  hosts: z.array(s.hostStatusSchema),
  scan: s.scanSchema.optional(),
};

type Args = z.output<z.ZodObject<typeof input>>;
type FileItem = z.infer<typeof fileItemSchema>;
export type ListFilesAnswer = z.infer<z.ZodObject<typeof output>>;

const TYPES: Record<FileType, EntryType[]> = { file: ['file'], directory: ['dir'], symlink: ['symlink'], any: [] };
const NOUN = { file: 'files', directory: 'directories', symlink: 'symlinks', any: 'entries' } as const;

interface Plan {
  hosts: FleetHost[];
  req: WalkRequest;
  /** Name order: path order, paged by resuming the walks from here. Absent: a ranked order. */
  path?: PathCursor;
  fingerprint: string;
  /** Index of the page's first row in the merged ranking. */
  start: number;
  /** The kept ranking the cursor names, if any. */
  snapshot?: string;
  /** Keep the ranking this page makes, for the pages after it. */
  keep: boolean;
  limit: number;
  cap: number;
  topN?: number;
  type: FileType;
  pattern: string;
}

/** A page of the merged ranking. */
export interface FileListing extends ToolResult {
  /** The requested root as the hosts were asked it. */
  path: string;
  multi: boolean;
  type: FileType;
  pattern: string;
  /** The find-like filters the hosts applied (their argument names). */
  filters: FilterFeature[];
  /** The page: merged rows from `start`, at most `limit`. */
  rows: HostEntry[];
  start: number;
  /** Rows in the whole list (top_n applied); undefined in path order until its end is in sight. */
  total?: number;
  /** Entries that passed the filters, over all hosts (undefined when not known yet). */
  found?: number;
  /** Path order (name): rows are not ranked, nothing is left out but by top_n. */
  pathOrder: boolean;
  /** top_n as asked. */
  topN?: number;
  truncations: HostTruncation[];
  notes: HostNote[];
  /** The cursor of the row after the page's first `shown` rows; undefined when the ranking ends there. */
  cursorAfter(shown: number): string | undefined;
}

/** A row as JSON: lean (no host when one host was asked, no type for a plain file) or whole, for people. */
function itemJson(host: string | undefined, e: Entry): FileItem {
  return {
    ...(host !== undefined ? { host } : {}),
    path: displayPath(e.path),
    name: displayPath(baseName(e.path)),
    ...(e.type !== 'file' ? { type: typeWord(e) } : {}),
    size: e.size,
    modified: modified(e),
    ...(e.linkTarget !== undefined ? { link_target: displayPath(e.linkTarget) } : {}),
    ...(e.error ? { error: { code: e.error.code, detail: e.error.detail } } : {}),
  };
}

/** Where a cursor goes on from; a cursor of another query (or garbage) names what must not change. */
function pageStart(cursor: string, fingerprint: string): PageCursor {
  const pos = decodeCursorArg(
    decodeCursor,
    cursor,
    fingerprint,
    'host, path, order_by, sort, top_n, max_depth, pattern, type and the filters',
  );
  if (pos.offset >= SNAPSHOT_ROWS) throw invalidArgument(`cursor position must be from 0 to ${SNAPSHOT_ROWS - 1}`);
  return pos;
}

/** Where a name-order cursor goes on from; a cursor of another query (or garbage) names what must not change. */
function pathStart(cursor: string, fingerprint: string): PathCursor {
  return decodeCursorArg(
    decodePathCursor,
    cursor,
    fingerprint,
    'host, path, order_by, sort, top_n, max_depth, pattern, type and the filters',
  );
}

/** "Showing 1-200 of 5000 files", or why nothing is shown. */
function headline(l: FileListing, count: number): string {
  const noun = NOUN[l.type];
  let line: string;
  const of = l.total !== undefined ? ` of ${l.total}` : '';
  if (count > 0) line = `Showing ${l.start + 1}-${l.start + count}${of} ${noun}`;
  else if (l.pathOrder && l.total === undefined)
    line = `No ${noun} from ${l.start + 1} listed in this call (see below); call again with next_cursor`;
  else if (l.start > 0 && (l.total ?? 1) > 0) line = `[WARNING] start_index ${l.start} is past the last${of} ${noun}`;
  else if (l.pattern !== '') line = `No ${noun} matching pattern '${l.pattern}' found in path '${l.path}'`;
  else line = `No ${noun} found in path '${l.path}'`;
  if (count === 0 && l.total === 0 && l.filters.length > 0) line += ` (filtered by ${l.filters.join(', ')})`;
  if (l.pathOrder) {
    if (count > 0) line += ' in path order';
    if (l.total === undefined && count > 0) line += '; more follow: call again with next_cursor';
  } else if (l.total !== undefined && l.found !== undefined && l.total < l.found) {
    line +=
      l.topN !== undefined
        ? ` (top ${l.total} of ${l.found} found)`
        : ` (ranked: only the first ${l.total} of ${l.found} found are kept; order_by=name pages through all)`;
  }
  return line;
}

/** The request of a name-order listing: the tree shape, no cap per directory below the ceiling, filters while walking. */
function pathRequest(a: Args, ctx: { options: Parameters<typeof walkDeadlineMs>[0] }): WalkRequest {
  return resolveWalkRequest({
    path: a.path,
    shape: 'tree',
    maxDepth: a.max_depth + 1,
    maxItemsPerDir: DEFAULT_CEILINGS.maxItemsPerDir,
    capRoot: false,
    maxEntries: 1,
    order: 'name',
    direction: a.sort,
    include: a.pattern === '' ? [] : [a.pattern],
    types: TYPES[a.type],
    deadlineMs: walkDeadlineMs(ctx.options),
    filter: planFilter(a, Date.now()),
  });
}

/** A page of the path-order listing: from the kept chunk when it holds the cursor's row, else a new chunk. */
async function collectPathPage(p: Plan, ctx: Parameters<typeof walkHosts>[0]): Promise<FileListing> {
  const pos = p.path as PathCursor;
  const kept = pos.snapshot !== undefined ? await ctx.pages?.get(pos.snapshot, p.fingerprint) : undefined;
  let chunk = kept as PathChunk | undefined;
  let handle = chunk ? pos.snapshot : undefined;
  if (!chunk || chunk.base === undefined || pos.index < chunk.base || pos.index >= chunk.base + chunk.rows.length) {
    // Without a resume point the walk starts at row 0 and the page is cut at start_index.
    const from: PathCursor = pos.after ? pos : { index: 0 };
    const need = p.cap - from.index;
    const page = pos.index - from.index + p.limit;
    const perHost = Math.max(
      1,
      Math.min(need, p.keep ? Math.max(page, Math.ceil(PATH_CHUNK_ROWS / p.hosts.length)) : page),
    );
    chunk = await walkPathChunk(ctx, p.hosts, p.req, from, perHost, p.fingerprint);
    handle = undefined;
    // The chunk that ends the listing is kept too, unless this page can show all of it: without
    // it each of the last ~150 pages of a paged tree walked the rest of the tree again.
    const more = !chunk.complete || chunk.rows.length > pos.index - chunk.base + 1;
    if (p.keep && more && chunk.hosts.some((h) => h.status === 'ok')) handle = await ctx.pages?.put(chunk);
  }
  const c = chunk;
  const end = Math.min(p.cap, c.base + c.rows.length);
  const total = c.complete || c.base + c.rows.length >= p.cap ? end : undefined;
  const at = pos.index - c.base;
  const rows = c.rows.slice(at, Math.max(at, Math.min(at + p.limit, end - c.base)));
  const rank = hostRanks(p.hosts);
  return {
    path: p.req.path,
    multi: p.hosts.length > 1,
    type: p.type,
    pattern: p.pattern,
    filters: filterFeatures(p.req.filter),
    rows,
    start: pos.index,
    total,
    found: total,
    pathOrder: true,
    topN: p.topN,
    truncations: c.truncations,
    notes: c.notes,
    hosts: c.hosts,
    cursorAfter: (shown) => {
      if (total !== undefined && pos.index + shown >= total) return undefined;
      const next = pathCursorAfter(c.rows, at + shown, c.base, (h) => rank.get(h) ?? 0, handle, pos);
      return encodePathCursor(next, p.fingerprint);
    },
  };
}

/** The merged ranking of the hosts' walks: up to the end of the page, or the whole kept ranking. */
function rankingOf(p: Plan, results: HostResult<HostWalk>[]): RankingSnapshot {
  // Only the rows up to the end of this page (or of the kept ranking) are merged.
  const { merged, found, truncations, notes } = mergeRankedWalks(
    results,
    p.req,
    undefined,
    p.keep ? p.cap : p.start + p.limit,
  );
  return {
    fingerprint: p.fingerprint,
    rows: merged.slice(0, p.cap),
    found,
    truncations,
    notes,
    hosts: results.map((r) => r.status),
  };
}

/** The page of a ranking from `start`, `total` rows in all. */
function listingOf(
  p: Plan,
  ranking: RankingSnapshot,
  start: number,
  total: number,
  cursorAfter: (shown: number) => string | undefined,
): FileListing {
  return {
    path: p.req.path,
    multi: p.hosts.length > 1,
    type: p.type,
    pattern: p.pattern,
    filters: filterFeatures(p.req.filter),
    rows: ranking.rows.slice(start, Math.min(start + p.limit, total)),
    start,
    total,
    found: ranking.found,
    pathOrder: false,
    topN: p.topN,
    truncations: ranking.truncations,
    notes: ranking.notes,
    hosts: ranking.hosts,
    cursorAfter,
  };
}

export const listFilesTool = defineTool({
  name: 'list_files',
  title: 'Find and rank files',
  description:
    'Which files are under path, or which are largest or newest? One table over the hosts, max_depth levels down, find-like filters. Name order is path order, next_cursor reaching every entry; size and modified rank a top 100,000.',
  input,
  output,

  plan(a: Args, ctx): Plan {
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
      ...filterFingerprint(a),
    });
    if (a.pattern !== '') {
      try {
        compileGlob(a.pattern);
      } catch (err) {
        throw invalidArgument(`pattern: ${FleetError.from(err).message}`);
      }
    }
    // A caller who follows a cursor pages on: keep what the hosts sent beyond this page.
    const following = a.cursor !== undefined && ctx.pages !== undefined;
    const common = {
      hosts,
      fingerprint,
      keep: following,
      limit: a.limit,
      type: a.type,
      pattern: a.pattern,
      topN: a.top_n,
    };
    if (a.order_by === 'name') {
      const path = a.cursor !== undefined ? pathStart(a.cursor, fingerprint) : { index: a.start_index };
      const cap = a.top_n ?? Number.POSITIVE_INFINITY;
      return { ...common, req: pathRequest(a, ctx), path, start: path.index, cap };
    }
    const pos = a.cursor !== undefined ? pageStart(a.cursor, fingerprint) : { offset: a.start_index };
    const cap = Math.min(a.top_n ?? SNAPSHOT_ROWS, SNAPSHOT_ROWS);
    const req = resolveWalkRequest({
      path: a.path,
      shape: 'ranked',
      maxDepth: a.max_depth + 1,
      order: a.order_by,
      direction: a.sort,
      topN: Math.max(1, Math.min(cap, pos.offset + a.limit)),
      offset: 0,
      include: a.pattern === '' ? [] : [a.pattern],
      types: TYPES[a.type],
      deadlineMs: walkDeadlineMs(ctx.options),
      filter: planFilter(a, Date.now()),
    });
    return {
      ...common,
      req: following ? { ...req, topN: cap } : req,
      start: pos.offset,
      snapshot: following ? pos.snapshot : undefined,
      cap,
    };
  },

  async collect(p: Plan, ctx): Promise<FileListing> {
    if (p.path) return collectPathPage(p, ctx);
    let ranking = p.snapshot !== undefined ? await ctx.pages?.get(p.snapshot, p.fingerprint) : undefined;
    let handle = ranking ? p.snapshot : undefined;
    if (!ranking) {
      ranking = rankingOf(p, await walkHosts(ctx, p.hosts, p.req));
      if (p.keep && ranking.hosts.some((h) => h.status === 'ok')) handle = await ctx.pages?.put(ranking);
    }
    const total = Math.min(p.cap, ranking.found);
    return listingOf(p, ranking, p.start, total, (shown) =>
      p.start + shown < total ? encodeCursor(p.start + shown, p.fingerprint, handle) : undefined,
    );
  },

  scan: {
    hosts: (p: Plan) => p.hosts,
    task: (p: Plan) => walkTask(p.req),
    entries: (w: HostWalk) => w.summary.entriesSeen,
    rows: (w: HostWalk) => w.rows.length,
    ranked: () => true,
    // Ranked orders only: name order pages by resuming walks (collectPathPage), and start_index
    // re-ranks from a row of the merged list; both page a whole answer.
    scannable: (p: Plan) => p.path === undefined && p.start === 0 && !p.keep,
    merge(p: Plan, results: HostResult<HostWalk>[], _ctx, page?: ScanPage): FileListing {
      if (!page) {
        const ranking = rankingOf(p, results);
        const total = Math.min(p.cap, ranking.found);
        return listingOf(p, ranking, 0, total, (shown) =>
          shown < total ? encodeCursor(shown, p.fingerprint) : undefined,
        );
      }
      // A scan page: the batch's hosts' rows, all of them (up to the ranking's cap), in order.
      const ranking = rankingOf({ ...p, keep: true }, results);
      const total = ranking.rows.length;
      return listingOf(p, ranking, page.start, total, (shown) => page.next(page.start + shown, total));
    },
  },

  mcp(l: FileListing, ctx) {
    const columns = l.multi ? ['host', 'path', 'type', 'size', 'modified'] : ['path', 'type', 'size', 'modified'];
    const headers = { host: 'Host', path: 'Path', type: 'Type', size: 'Size', modified: 'Last_Modified' };
    const [header] = renderTsv(columns, [], headers);
    // Rows are laid out as the budget reaches them: a page of a 5,000-row limit shows a few
    // hundred, and laying out the rest was most of a page's time.
    const items: ReturnType<typeof itemJson>[] = [];
    const lines: string[] = [];
    const item = (i: number) => {
      const { host, entry } = l.rows[i];
      items[i] ??= itemJson(l.multi ? host : undefined, entry);
      return items[i];
    };
    const line = (i: number) => {
      if (lines[i] === undefined) {
        const { host, entry } = l.rows[i];
        const row: TableRow = {
          host,
          path: displayPath(entry.path),
          type: entry.error ? `error: ${entry.error.code} ${entry.error.detail}` : typeWord(entry),
          size: entry.type === 'dir' ? '' : humanSize(entry.size),
          modified: modified(entry),
        };
        lines[i] = renderTsv(columns, [row])[1];
      }
      return lines[i];
    };
    const first = <T>(count: number, at: (i: number) => T) => Array.from({ length: count }, (_, i) => at(i));
    const hs = fitHostStatuses(l.hosts, ctx.options, (h) => hostFailureLine(h, l.path, l.multi));
    const failures = [...failureLines(hs.listed, l.path, l.multi), ...hs.lines];
    const build = (count: number, cut: AnswerCut): McpAnswer => {
      const nextCursor = l.cursorAfter(count);
      const truncations = l.truncations.map((t) => truncationJson(t.host, t.truncation));
      const warnings = l.truncations.map((t) => truncationWarning(t, l.path));
      for (const n of l.notes) warnings.push(noteLine(n, true));
      if (hs.truncation) truncations.push(hs.truncation);
      if (count < l.rows.length) {
        truncations.push(cutRecord(cut, count, l.rows.length));
        warnings.push(
          `[WARNING] answer cut at ${cut.words} after ${count} of ${l.rows.length} rows; next_cursor goes on from there`,
        );
      }
      const body = count > 0 ? ['', header, ...first(count, line)] : [];
      const structured: ListFilesAnswer = {
        kind: 'files.list',
        columns: l.multi ? [...FILE_COLUMNS] : FILE_COLUMNS.filter((c) => c !== 'host'),
        items: first(count, item),
        count,
        ...(l.total !== undefined ? { total: l.total } : {}),
        ...(l.found !== undefined ? { found: l.found } : {}),
        start_index: l.start,
        truncated: truncations.length > 0 || nextCursor !== undefined,
        truncations,
        ...hs.json,
      };
      if (nextCursor !== undefined) structured.next_cursor = nextCursor;
      if (l.notes.length > 0) structured.notes = l.notes;
      return { structured, text: [headline(l, count), ...body, ...warnings, ...failures].join('\n') };
    };
    return fitAnswer({
      rows: l.rows.length,
      rowCost: (i) => rowSize(line(i), item(i)),
      build,
      options: ctx.options,
    }).answer;
  },

  cli: {
    command: 'ls',
    description:
      'list the entries under PATH on the selected hosts (every type, as ls; in path order, or ranked by size or modified), paged',
    argument: {
      syntax: '<SELECTOR:PATH>',
      description: 'hosts and absolute path, e.g. localhost:/var/log, web-*:/etc, @prod:/srv',
    },
    // Every type by default, as ls lists them (MCP's default stays type=file).
    defaults: { type: 'any' },
    switches: [{ flag: '--desc', help: 'same as --sort descending', sets: { sort: 'descending' } }],
    render(l, style) {
      const out = formatFileTable(
        l.rows.map((r) => ({ type: 'file', ...itemJson(r.host, r.entry) }) as CliFileItem),
        { showHost: l.multi, style },
      );
      const err = l.rows.length > 0 ? [style.dim(headline(l, l.rows.length))] : [];
      const next = l.cursorAfter(l.rows.length);
      if (next) err.push(style.dim(`more: --cursor ${next}`));
      return { out, err };
    },
  },
});
