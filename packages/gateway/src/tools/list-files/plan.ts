// list_files' plan and pages: a ranked order's merged ranking cut at the page (kept for the
// pages after it), or a name-order page from resumed walks (tools/list-files/paths.ts).
import {
  compileGlob,
  DEFAULT_CEILINGS,
  decodeCursor,
  decodePathCursor,
  encodePathCursor,
  FleetError,
  filterFeatures,
  invalidArgument,
  type PageCursor,
  type PathCursor,
  queryFingerprint,
  resolveWalkRequest,
  type WalkRequest,
} from '@fleetls/core';
import type { HostResult } from '../../fleet/fan-out.js';
import { type RankingSnapshot, SNAPSHOT_ROWS } from '../../fleet/page-store.js';
import { decodeCursorArg } from '../shared/cursor-arg.js';
import { filterFingerprint, planFilter } from '../shared/filter-args.js';
import { type HostWalk, mergeRankedWalks, walkDeadlineMs, type walkHosts } from '../shared/host-walks.js';
import type { ToolContext } from '../tool.js';
import { hostRanks, PATH_CHUNK_ROWS, type PathChunk, pathCursorAfter, walkPathChunk } from './paths.js';
import { type Args, type FileListing, type Plan, TYPES } from './shape.js';

/** The plan of a call: the hosts, their walk request, and where the page starts. */
export function planListFiles(args: Args, ctx: ToolContext): Plan {
  const hosts = ctx.fleet.select(args.host);
  const fingerprint = queryFingerprint({
    tool: 'list_files',
    host: args.host,
    path: args.path,
    order_by: args.order_by,
    sort: args.sort,
    top_n: args.top_n,
    max_depth: args.max_depth,
    pattern: args.pattern,
    type: args.type,
    ...filterFingerprint(args),
  });
  if (args.pattern !== '') {
    try {
      compileGlob(args.pattern);
    } catch (err) {
      throw invalidArgument(`pattern: ${FleetError.from(err).message}`);
    }
  }
  // A caller who follows a cursor pages on: keep what the hosts sent beyond this page.
  const following = args.cursor !== undefined && ctx.pages !== undefined;
  const common = {
    hosts,
    fingerprint,
    keep: following,
    limit: args.limit,
    type: args.type,
    pattern: args.pattern,
    topN: args.top_n,
  };
  if (args.order_by === 'name') {
    const path = args.cursor !== undefined ? pathStart(args.cursor, fingerprint) : { index: args.start_index };
    const cap = args.top_n ?? Number.POSITIVE_INFINITY;
    return { ...common, req: pathRequest(args, ctx), path, start: path.index, cap };
  }
  const pos = args.cursor !== undefined ? pageStart(args.cursor, fingerprint) : { offset: args.start_index };
  const cap = Math.min(args.top_n ?? SNAPSHOT_ROWS, SNAPSHOT_ROWS);
  const req = resolveWalkRequest({
    path: args.path,
    shape: 'ranked',
    maxDepth: args.max_depth + 1,
    order: args.order_by,
    direction: args.sort,
    topN: Math.max(1, Math.min(cap, pos.offset + args.limit)),
    offset: 0,
    include: args.pattern === '' ? [] : [args.pattern],
    types: TYPES[args.type],
    deadlineMs: walkDeadlineMs(ctx.options),
    filter: planFilter(args, Date.now()),
  });
  return {
    ...common,
    req: following ? { ...req, topN: cap } : req,
    start: pos.offset,
    snapshot: following ? pos.snapshot : undefined,
    cap,
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
export async function collectPathPage(plan: Plan, ctx: Parameters<typeof walkHosts>[0]): Promise<FileListing> {
  const pos = plan.path as PathCursor;
  const kept = pos.snapshot !== undefined ? await ctx.pages?.get(pos.snapshot, plan.fingerprint) : undefined;
  let chunk = kept as PathChunk | undefined;
  let handle = chunk ? pos.snapshot : undefined;
  if (!chunk || chunk.base === undefined || pos.index < chunk.base || pos.index >= chunk.base + chunk.rows.length) {
    // Without a resume point the walk starts at row 0 and the page is cut at start_index.
    const from: PathCursor = pos.after ? pos : { index: 0 };
    const need = plan.cap - from.index;
    const page = pos.index - from.index + plan.limit;
    const perHost = Math.max(
      1,
      Math.min(need, plan.keep ? Math.max(page, Math.ceil(PATH_CHUNK_ROWS / plan.hosts.length)) : page),
    );
    chunk = await walkPathChunk(ctx, plan.hosts, plan.req, from, perHost, plan.fingerprint);
    handle = undefined;
    // The chunk that ends the listing is kept too, unless this page can show all of it: without
    // it each of the last ~150 pages of a paged tree walked the rest of the tree again.
    const more = !chunk.complete || chunk.rows.length > pos.index - chunk.base + 1;
    if (plan.keep && more && chunk.hosts.some((h) => h.status === 'ok')) handle = await ctx.pages?.put(chunk);
  }
  const c = chunk;
  const end = Math.min(plan.cap, c.base + c.rows.length);
  const total = c.complete || c.base + c.rows.length >= plan.cap ? end : undefined;
  const at = pos.index - c.base;
  const rows = c.rows.slice(at, Math.max(at, Math.min(at + plan.limit, end - c.base)));
  const rank = hostRanks(plan.hosts);
  return pageOf(plan, c, {
    rows,
    start: pos.index,
    total,
    found: total,
    pathOrder: true,
    cursorAfter: (shown) => {
      if (total !== undefined && pos.index + shown >= total) return undefined;
      const next = pathCursorAfter(c.rows, at + shown, c.base, (h) => rank.get(h) ?? 0, handle, pos);
      return encodePathCursor(next, plan.fingerprint);
    },
  });
}

/** The merged ranking of the hosts' walks: up to the end of the page, or the whole kept ranking. */
export function rankingOf(plan: Plan, results: HostResult<HostWalk>[]): RankingSnapshot {
  // Only the rows up to the end of this page (or of the kept ranking) are merged.
  const { merged, found, truncations, notes } = mergeRankedWalks(
    results,
    plan.req,
    undefined,
    plan.keep ? plan.cap : plan.start + plan.limit,
  );
  return {
    fingerprint: plan.fingerprint,
    rows: merged.slice(0, plan.cap),
    found,
    truncations,
    notes,
    hosts: results.map((r) => r.status),
  };
}

/** The page of a ranking from `start`, `total` rows in all. */
export function listingOf(
  plan: Plan,
  ranking: RankingSnapshot,
  start: number,
  total: number,
  cursorAfter: (shown: number) => string | undefined,
): FileListing {
  const rows = ranking.rows.slice(start, Math.min(start + plan.limit, total));
  return pageOf(plan, ranking, { rows, start, total, found: ranking.found, pathOrder: false, cursorAfter });
}

type Page = Pick<FileListing, 'rows' | 'start' | 'total' | 'found' | 'pathOrder' | 'cursorAfter'>;

/** A page of either order: the plan's words, the page's rows, and the hosts and cuts of what they came from. */
function pageOf(p: Plan, from: RankingSnapshot, page: Page): FileListing {
  return {
    path: p.req.path,
    multi: p.hosts.length > 1,
    type: p.type,
    pattern: p.pattern,
    filters: filterFeatures(p.req.filter),
    rows: page.rows,
    start: page.start,
    total: page.total,
    found: page.found,
    pathOrder: page.pathOrder,
    topN: p.topN,
    truncations: from.truncations,
    notes: from.notes,
    hosts: from.hosts,
    cursorAfter: page.cursorAfter,
  };
}
