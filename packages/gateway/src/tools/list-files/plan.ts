// list_files' plan and pages: a ranked order's merged ranking cut at the page (kept for the
// pages after it), or a name-order page from resumed walks (tools/list-files/paths.ts).
import {
  DEFAULT_CEILINGS,
  decodeCursor,
  decodePathCursor,
  encodePathCursor,
  FleetError,
  filterFeatures,
  hostEntryComparator,
  invalidArgument,
  mergeSortedArrays,
  type PageCursor,
  type PathCursor,
  queryFingerprint,
  resolveWalkRequest,
  type WalkRequest,
  type WalkRequestInput,
} from '@fleetls/core';
import type { HostResult } from '../../fleet/fan-out.js';
import { type RankingSnapshot, SNAPSHOT_ROWS } from '../../fleet/page-store.js';
import type { ScanPage } from '../../scans/call.js';
import { decodeCursorArg } from '../shared/cursor-arg.js';
import { filterFingerprint, planFilter } from '../shared/filter-args.js';
import {
  type HostEntry,
  type HostTruncation,
  type HostWalk,
  lossTruncations,
  mergeRankedWalks,
  walkDeadlineMs,
  type walkHosts,
  walkNotes,
} from '../shared/host-walks.js';
import type { ToolContext } from '../tool.js';
import {
  fillPathChunk,
  hostRanks,
  mergePathChunk,
  PATH_CHUNK_ROWS,
  type PathChunk,
  pathCursorAfter,
  walkPathChunk,
} from './paths.js';
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
  const req = walkRequest({
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

/**
 * The hosts' walk request: the one place the call's pattern is compiled (resolveWalkRequest
 * checks each include glob), its error naming the tool's `pattern`, not the request's include[0].
 */
function walkRequest(input: WalkRequestInput): WalkRequest {
  try {
    return resolveWalkRequest(input);
  } catch (err) {
    const fe = FleetError.from(err);
    const include = 'include[0]: ';
    if (fe.code === 'invalid_argument' && fe.message.startsWith(include))
      throw invalidArgument(`pattern: ${fe.message.slice(include.length)}`);
    throw err;
  }
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
  return walkRequest({
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
    // The page's rows at least, when the listing has them (top_n=5 shows 5 rows, not what the
    // first stop left).
    const want = Math.min(need, page);
    chunk = await walkPathChunk(ctx, plan.hosts, plan.req, from, perHost, plan.fingerprint, want);
    handle = undefined;
    // The chunk that ends the listing is kept too, unless this page can show all of it: without
    // it each of the last ~150 pages of a paged tree walked the rest of the tree again.
    const more = !chunk.complete || chunk.rows.length > pos.index - chunk.base + 1;
    if (plan.keep && more && chunk.hosts.some((h) => h.status === 'ok')) handle = await ctx.pages?.put(chunk);
  }
  return pathPage(plan, chunk, pos, handle);
}

/** Rows each host walks for a first page (no cursor): the page, or top_n when smaller. */
export function firstPagePerHost(plan: Plan): number {
  return Math.max(1, Math.min(plan.cap, plan.limit));
}

/**
 * The whole answer of a name-order first page whose hosts' walks (of firstChunkRequest, as a
 * scan ran them) all came back within the call: what collectPathPage answers, without walking again.
 */
export async function finishPathPage(
  plan: Plan,
  results: HostResult<HostWalk>[],
  ctx: Parameters<typeof walkHosts>[0],
): Promise<FileListing> {
  const start: PathCursor = { index: 0 };
  const first = mergePathChunk(results, plan.req, start, () => false, undefined, plan.fingerprint);
  const want = Math.min(plan.cap, plan.start + plan.limit);
  const chunk = await fillPathChunk(ctx, plan.hosts, plan.req, start, first, want, plan.fingerprint);
  return pathPage(plan, chunk, start, undefined);
}

/** finishPathPage without walking on: the page of what the hosts' first walks merged to. */
export function wholePathPage(plan: Plan, results: HostResult<HostWalk>[]): FileListing {
  const start: PathCursor = { index: 0 };
  return pathPage(
    plan,
    mergePathChunk(results, plan.req, start, () => false, undefined, plan.fingerprint),
    start,
    undefined,
  );
}

/**
 * A scan page in name order: the batch's hosts' rows (each host's first page of rows; a host
 * cut there says so and is not resumed), merged in path order from `page.start`.
 */
export function scanPathPage(plan: Plan, results: HostResult<HostWalk>[], page: ScanPage): FileListing {
  const lists: HostEntry[][] = [];
  const truncations: HostTruncation[] = [];
  for (const r of results) {
    if (!r.value) continue;
    const host = r.host.name;
    const list: HostEntry[] = [];
    for (const row of r.value.rows) {
      if (row.kind === 'entry') list.push({ host, entry: row.entry });
      else truncations.push({ host, truncation: row.truncation });
    }
    lists.push(list);
    for (const t of lossTruncations(r.value.summary)) truncations.push({ host, truncation: t });
  }
  const merged = mergeSortedArrays(lists, hostEntryComparator(plan.req.order, plan.req.direction));
  const total = merged.length;
  const rows = merged.slice(page.start, Math.min(page.start + plan.limit, total));
  return pageOf(
    plan,
    {
      fingerprint: plan.fingerprint,
      rows: merged,
      found: total,
      truncations,
      notes: walkNotes(results),
      hosts: results.map((r) => r.status),
    },
    {
      rows,
      start: page.start,
      total,
      found: total,
      pathOrder: true,
      cursorAfter: (shown) => page.next(page.start + shown, total),
    },
  );
}

/** The page of a path-order chunk at `pos` (a kept chunk's handle goes into its cursors). */
function pathPage(p: Plan, c: PathChunk, pos: PathCursor, handle: string | undefined): FileListing {
  const known = c.base + c.rows.length;
  const end = Math.min(p.cap, known);
  // The listing's end, seen: in this chunk, or at top_n. Only this ends the cursors.
  const last = c.complete || known >= p.cap ? end : undefined;
  // Its total as the page says it: that end, or the hosts' count of the directory they read.
  const total = last ?? (c.whole !== undefined ? Math.min(p.cap, c.whole) : undefined);
  // What was found beyond top_n: the count when the hosts tell it, else only that more follow.
  const found = c.complete ? known : c.whole;
  const topCut = p.topN !== undefined && last === p.cap && (known > p.cap || !c.complete);
  const at = pos.index - c.base;
  const rows = c.rows.slice(at, Math.max(at, Math.min(at + p.limit, end - c.base)));
  const rank = hostRanks(p.hosts);
  return pageOf(p, c, {
    rows,
    start: pos.index,
    total,
    found: topCut ? found : total,
    pathOrder: true,
    topCut,
    cursorAfter: (shown) => {
      if (last !== undefined && pos.index + shown >= last) return undefined;
      const next = pathCursorAfter(c.rows, at + shown, c.base, (h) => rank.get(h) ?? 0, handle, pos);
      return encodePathCursor(next, p.fingerprint);
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

type Page = Pick<FileListing, 'rows' | 'start' | 'total' | 'found' | 'pathOrder' | 'cursorAfter' | 'topCut'>;

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
    ...(page.topCut ? { topCut: true } : {}),
    topN: p.topN,
    truncations: from.truncations,
    notes: from.notes,
    hosts: from.hosts,
    cursorAfter: page.cursorAfter,
  };
}
