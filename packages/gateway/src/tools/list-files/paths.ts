// list_files in name order: path order, paged by resuming the hosts' walks after the last
// row shown (as list_directory pages), so every entry of any tree is reachable and paging
// a whole tree costs about one walk. Each host walks the tree shape with no cap per
// directory below the ceiling, the row filters applied while it walks, and stops after a
// chunk of rows; the gateway merges the hosts' rows in path order and keeps only what all
// of them have listed up to (the smallest last row of a host that stopped), whole groups
// of equal paths. A serving gateway keeps that merged chunk and cuts pages from it.
import {
  type Entry,
  entryComparator,
  filterFeatures,
  hostEntryComparator,
  mergeSortedArrays,
  type PathCursor,
  type ResumeRow,
  type Row,
  type WalkRequest,
} from '@fleetls/core';
import type { HostResult } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import type { RankingSnapshot } from '../../fleet/page-store.js';
import {
  type HostEntry,
  type HostTruncation,
  type HostWalk,
  lossTruncations,
  walkHosts,
  walkNotes,
} from '../shared/host-walks.js';
import type { ToolContext } from '../tool.js';

/** Rows a serving gateway asks of the hosts at once when a caller pages on (about 40 pages). */
export const PATH_CHUNK_ROWS = 20_000;

/** A chunk of the merged path-order listing, from row `base` of the whole listing. */
export interface PathChunk extends RankingSnapshot {
  base: number;
  /** No row follows the chunk's last: the listing ends there. */
  complete: boolean;
  /**
   * Rows of the whole listing, when the hosts' walks tell it before its end: a listing of one
   * directory's own entries, nothing filtered, is each host's read of that directory (the walk
   * reads all of it to order it), summed over the hosts.
   */
  whole?: number;
}

/** One directory's own entries, every one a row: what a host read of it is the listing. */
function readsWhole(req: WalkRequest): boolean {
  return (
    req.maxDepth === 1 &&
    req.types.length === 0 &&
    req.include.length === 0 &&
    req.exclude.length === 0 &&
    !req.excludeHidden &&
    filterFeatures(req.filter).length === 0
  );
}

/**
 * The listing's rows as the hosts' reads of the directory count them: every host ok, each
 * either done (its entries seen) or stopped at its entry limit after reading the directory
 * whole (the stop's count of entries seen). Undefined when any host cannot say.
 */
function wholeCount(results: HostResult<HostWalk>[], req: WalkRequest): number | undefined {
  if (!readsWhole(req)) return undefined;
  let sum = 0;
  for (const r of results) {
    if (r.status.status !== 'ok' || !r.value) return undefined;
    const s = r.value.summary;
    const stop = s.truncations.find((t) => t.reason === 'max_entries' || t.reason === 'deadline');
    if (stop?.reason === 'deadline') return undefined;
    sum += stop ? stop.total : s.entriesSeen;
  }
  return sum;
}

const SLASH = 0x2f;

function stoppedEarly(r: HostResult<HostWalk>): boolean {
  if (!r.value || r.value.rows.length === 0) return false;
  // A walk that broke after some rows goes on from its last row, as one cut at a limit does.
  if (r.status.status !== 'ok') return true;
  return r.value.summary.truncations.some((t) => t.reason === 'max_entries' || t.reason === 'deadline');
}

/** A walk its deadline stopped before its first row: it listed nothing after the cursor yet. */
function stalled(r: HostResult<HostWalk>): boolean {
  if (!r.value || r.status.status !== 'ok' || lastEntry(r.value.rows) !== undefined) return false;
  return r.value.summary.truncations.some((t) => t.reason === 'deadline');
}

function lastEntry(rows: Row[]): Entry | undefined {
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    if (row.kind === 'entry') return row.entry;
  }
  return undefined;
}

/** Rank of a row at one path, as core's resume points rank them. */
const ROW_RANK: Record<ResumeRow, number> = { entry: 0, error: 1, warning: 2 };

/**
 * The requests of the hosts: after the last row shown (`shown`), and, for the hosts that had
 * not shown the cut's path yet (the cut fell inside its group), after that path's parent,
 * dropping what sorts before the path on arrival (`parent`, with `from`).
 */
function hostRequests(req: WalkRequest, start: PathCursor): { shown: WalkRequest; parent: WalkRequest; from?: Entry } {
  const after = start.after;
  if (!after) return { shown: req, parent: req };
  const shown: WalkRequest = { ...req, after: after.path, afterRow: after.row };
  const slash = after.path.lastIndexOf(SLASH);
  const parent: WalkRequest = slash < 0 ? req : { ...req, after: after.path.subarray(0, slash), afterRow: 'entry' };
  return { shown, parent, from: { path: after.path } as Entry };
}

/** The request every host walks for the first chunk of a listing (no cursor): `perHost` rows at most. */
export function firstChunkRequest(req: WalkRequest, perHost: number): WalkRequest {
  return hostRequests({ ...req, maxEntries: perHost }, { index: 0 }).shown;
}

/**
 * Walks the hosts from the cursor, `perHost` rows each at most, and merges what every host
 * has listed: the chunk of the listing from row `start.index`, of `want` rows at least when
 * the listing has them (fillPathChunk; `want` 0: the one walk's chunk as it came).
 */
export async function walkPathChunk(
  ctx: ToolContext,
  allHosts: FleetHost[],
  req: WalkRequest,
  start: PathCursor,
  perHost: number,
  fingerprint: string,
  want = 0,
): Promise<PathChunk> {
  const reqs = hostRequests({ ...req, maxEntries: perHost }, start);
  const rank = hostRanks(allHosts);
  const fromParent = (i: number) => start.host !== undefined && (rank.get(allHosts[i].name) ?? 0) > start.host;
  const results = await walkGrouped(ctx, allHosts, (i) => (fromParent(i) ? reqs.parent : reqs.shown));
  const chunk = mergePathChunk(results, req, start, fromParent, reqs.from, fingerprint);
  return want > 0 ? fillPathChunk(ctx, allHosts, req, start, chunk, want, fingerprint) : chunk;
}

/**
 * The chunk, walked on from its end until it holds `want` rows, the listing ends, or a walk
 * adds nothing (a stall, every host failing). A host stops at its entry limit, and the chunk
 * ends at the first such stop over all hosts (whole groups of a path): a chunk can end before
 * the page is full though rows follow (top_n=5 over two hosts gave 4 rows and a cursor).
 */
export async function fillPathChunk(
  ctx: ToolContext,
  allHosts: FleetHost[],
  req: WalkRequest,
  start: PathCursor,
  chunk: PathChunk,
  want: number,
  fingerprint: string,
): Promise<PathChunk> {
  const rank = hostRanks(allHosts);
  let c = chunk;
  while (!c.complete && c.rows.length > 0 && c.rows.length < want) {
    const from = pathCursorAfter(c.rows, c.rows.length, start.index, (h) => rank.get(h) ?? 0, undefined, start);
    const more = await walkPathChunk(ctx, allHosts, req, from, want - c.rows.length, fingerprint);
    if (more.rows.length === 0 && !more.complete) break;
    c = {
      ...c,
      rows: [...c.rows, ...more.rows],
      complete: more.complete,
      found: more.found,
      whole: more.whole ?? c.whole,
      truncations: [...c.truncations, ...more.truncations],
      notes: more.notes,
      // A host that failed on either walk says so: its rows of the other may be missing.
      hosts: c.hosts.map((h, i) => (more.hosts[i]?.status !== 'ok' ? (more.hosts[i] ?? h) : h)),
    };
  }
  return c;
}

/** The hosts' walks from `start` merged: what every host has listed (whole groups), in path order. */
export function mergePathChunk(
  results: HostResult<HostWalk>[],
  req: WalkRequest,
  start: PathCursor,
  fromParent: (i: number) => boolean,
  parentFrom: Entry | undefined,
  fingerprint: string,
): PathChunk {
  const compare = entryComparator(req.order, req.direction);
  const taken: Taken = { lists: [], truncations: [], bound: undefined, stall: false };
  results.forEach((r, i) => {
    if (r.value) takeHost(taken, r, r.value, start.after, fromParent(i) ? parentFrom : undefined, compare);
  });
  const { bound, stall } = taken;
  let rows = mergeSortedArrays(taken.lists, hostEntryComparator(req.order, req.direction));
  // The page shows the deadline's truncation and the same cursor, not the end of the listing.
  if (stall) rows = [];
  else if (bound !== undefined) {
    const b = bound;
    // Whole groups only: every host has listed all its rows up to and including the bound's path.
    const end = rows.findIndex((h) => compare(h.entry, b) > 0 && !samePath(h.entry, b));
    if (end >= 0) rows = rows.slice(0, end);
  }
  const whole = wholeCount(results, req);
  return {
    fingerprint,
    rows,
    base: start.index,
    ...(whole !== undefined ? { whole } : {}),
    complete: !stall && bound === undefined,
    found: start.index + rows.length,
    truncations: taken.truncations,
    notes: walkNotes(results),
    hosts: results.map((r) => r.status),
  };
}

/** The hosts' walks, one fan-out per distinct request (at most two), results in host order. */
async function walkGrouped(
  ctx: ToolContext,
  allHosts: FleetHost[],
  requestOf: (i: number) => WalkRequest,
): Promise<HostResult<HostWalk>[]> {
  const groups = new Map<WalkRequest, number[]>();
  allHosts.forEach((_, i) => {
    const r = requestOf(i);
    const list = groups.get(r);
    if (list) list.push(i);
    else groups.set(r, [i]);
  });
  const results: HostResult<HostWalk>[] = new Array(allHosts.length);
  await Promise.all(
    [...groups].map(async ([hostReq, idx]) => {
      const rs = await walkHosts(
        ctx,
        idx.map((i) => allHosts[i]),
        hostReq,
      );
      rs.forEach((r, k) => {
        results[idx[k]] = r;
      });
    }),
  );
  return results;
}

/** What the hosts' walks have listed so far, merged into one chunk. */
interface Taken {
  lists: HostEntry[][];
  truncations: HostTruncation[];
  /** The smallest last row of a host that stopped early: the chunk ends at its path. */
  bound: Entry | undefined;
  /** A host whose walk stalled may have rows before any other host's: none can be shown yet. */
  stall: boolean;
}

/** One host's rows after the cursor (`from`: asked from the cut's parent), its cuts, and where it stopped. */
function takeHost(
  taken: Taken,
  r: HostResult<HostWalk>,
  walk: HostWalk,
  after: PathCursor['after'],
  from: Entry | undefined,
  compare: (a: Entry, b: Entry) => number,
): void {
  const host = r.host.name;
  const list: HostEntry[] = [];
  for (const row of walk.rows) {
    if (row.kind === 'truncation') {
      // A nested directory past the hosts' ceiling of entries per directory.
      taken.truncations.push({ host, truncation: row.truncation });
      continue;
    }
    // An agent that ignores `after`, or a host asked from the parent: drop what was shown.
    if (after && from === undefined && beforeOrAt(row.entry, after, compare)) continue;
    if (from !== undefined && compare(row.entry, from) < 0) continue;
    list.push({ host, entry: row.entry });
  }
  taken.lists.push(list);
  const stopped = stoppedEarly(r);
  if (stalled(r)) taken.stall = true;
  for (const t of lossTruncations(walk.summary)) {
    if (stopped && (t.reason === 'max_entries' || t.reason === 'deadline')) continue; // the next page goes on
    taken.truncations.push({ host, truncation: t });
  }
  if (stopped) {
    const last = lastEntry(walk.rows);
    if (last && (taken.bound === undefined || compare(last, taken.bound) < 0)) taken.bound = last;
  }
}

/**
 * Each host's place in the merge's tie order (by name): the cursor's `host` counts in it, so
 * "hosts 0..host showed the group" matches the rows the merge put first.
 */
export function hostRanks(hosts: readonly FleetHost[]): Map<string, number> {
  const names = hosts.map((h) => h.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(names.map((n, i) => [n, i]));
}

function samePath(a: Entry, b: Entry): boolean {
  return a.path.equals(b.path);
}

/** Is the row at or before the resume point (already shown)? */
function beforeOrAt(e: Entry, after: { path: Buffer; row: ResumeRow }, compare: (a: Entry, b: Entry) => number) {
  if (e.path.equals(after.path)) return (e.error ? ROW_RANK.error : ROW_RANK.entry) <= ROW_RANK[after.row];
  return compare(e, { path: after.path } as Entry) < 0;
}

/**
 * The cursor after the first `shown` rows of `rows` (which start at row `index`): after
 * the last one shown, naming its host when the next row has the same path and row kind
 * (the cut is inside that group).
 */
export function pathCursorAfter(
  rows: HostEntry[],
  shown: number,
  index: number,
  hostIndex: (host: string) => number,
  snapshot: string | undefined,
  previous: PathCursor,
): PathCursor {
  if (shown === 0) return { ...previous, index, ...(snapshot ? { snapshot } : {}) };
  const last = rows[shown - 1];
  const next = rows[shown];
  const row: ResumeRow = last.entry.error ? 'error' : 'entry';
  const inGroup = next?.entry.path.equals(last.entry.path) === true && !!next.entry.error === !!last.entry.error;
  return {
    index: index + shown,
    after: { path: last.entry.path, row },
    ...(inGroup ? { host: hostIndex(last.host) } : {}),
    ...(snapshot ? { snapshot } : {}),
  };
}
