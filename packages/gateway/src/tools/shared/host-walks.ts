// What the tools' collect steps share: the walk of one host
// (following a symlinked path to its directory) and of many, and the merge of ranked walks
// into one list. Domain data only: presenting it is present.ts's job.
import {
  codeFromEntryError,
  type Entry,
  FleetError,
  hostEntryComparator,
  mergeSortedArrays,
  type Row,
  TopN,
  type Truncation,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import { HostStalled } from '@fleetls/hosts';
import { fanOut, type HostResult, PartialFailure } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import type { HostEntry, HostNote, HostTruncation } from '../../fleet/host-rows.js';
import type { GatewayOptions } from '../../fleet/options.js';
import type { ShardTask } from '../../fleet/peers/protocol.js';
import type { ShardableTask } from '../../fleet/peers/split.js';
import { fanOutOptions } from '../../scans/call.js';
import type { HostTask, ToolContext } from '../tool.js';

export type { HostEntry, HostNote, HostTruncation } from '../../fleet/host-rows.js';

/**
 * The walk's own time budget: under the host's share of the call, so a slow tree comes
 * back partial with a `deadline` truncation rather than as a timed-out host.
 */
export function walkDeadlineMs(options: GatewayOptions): number {
  return walkBudget(Math.min(options.deadlineMs, options.callDeadlineMs));
}

function walkBudget(hostBudgetMs: number): number {
  return Math.max(1, Math.floor(hostBudgetMs * 0.8));
}

/** The request as one host runs it: its walk ends within what is left of that host's budget. */
export function withinBudget(req: WalkRequest, hostBudgetMs: number): WalkRequest {
  const ms = walkBudget(hostBudgetMs);
  return ms < req.deadlineMs ? { ...req, deadlineMs: ms } : req;
}

export interface HostWalk {
  rows: Row[];
  summary: WalkSummary;
}

/** A root that could not be listed → the host's failure (status not_found, denied or error). */
function rootFailure(rows: Row[]): FleetError | undefined {
  const first = rows[0];
  if (rows.length !== 1 || first.kind !== 'entry' || first.entry.path.length !== 0 || !first.entry.error) {
    return undefined;
  }
  const { code, detail } = first.entry.error;
  return new FleetError(codeFromEntryError(code), detail);
}

/**
 * Runs one host's walk to the end, handing its rows on batch by batch as the host yields
 * them. A symlinked path is followed where the host resolves it (the agent walks the real
 * path, SSH runs `find -H`); a root that cannot be listed throws, so it becomes the host's
 * status row: a lone first row that may be that is held back until more rows follow.
 */
export async function streamHostWalk(
  walkFn: (req: WalkRequest, signal: AbortSignal) => AsyncGenerator<Row[], WalkSummary, void>,
  req: WalkRequest,
  signal: AbortSignal,
  onRows: (rows: Row[]) => void | Promise<void>,
): Promise<WalkSummary> {
  let handed = 0;
  let held: Row[] | undefined;
  // Not async: onRows is most often synchronous (walkHost keeps the rows), and then a batch
  // is handed on with no promise made and none awaited (every batch of every host passes here).
  const hand = (rows: Row[]): void | Promise<void> => {
    handed += rows.length;
    return onRows(rows);
  };
  const it = walkFn(req, signal);
  let summary: WalkSummary;
  try {
    let r = await it.next();
    while (!r.done) {
      if (r.value.length > 0) {
        if (held) {
          const handing = hand(held);
          if (handing) await handing;
        }
        held = handed === 0 && rootFailure(r.value) ? r.value : undefined;
        if (!held) {
          const handing = hand(r.value);
          if (handing) await handing;
        }
      }
      r = await it.next();
    }
    summary = r.value;
  } catch (err) {
    // Our own consumer failed with the walk still open: it is stopped (its stream cancelled).
    await it.return(undefined as never).catch(() => {});
    // The host broke mid-walk (its agent died, its stream was reset): what it sent stands.
    if (held) await hand(held);
    // A fan-out's walk guard ends a stalled host through the host's own signal: that host's
    // rows still stand, as for any host that broke mid-walk.
    if (handed === 0 || (signal.aborted && !(err instanceof HostStalled))) throw err;
    // A host that stalled is a timeout, whatever it sent before.
    const code = err instanceof HostStalled ? err.code : 'internal';
    throw new PartialFailure<number>(handed, `the walk broke after ${handed} rows`, err, code);
  }
  const failed = held && rootFailure(held);
  if (failed) throw failed;
  return summary;
}

/**
 * Runs one host's walk to the end and keeps its rows (streamHostWalk's rules); with `cut`, a
 * walk that ended keeps only the rows `cut` returns (rankedWalkTask's), a partial one all.
 */
export async function walkHost(
  walkFn: (req: WalkRequest, signal: AbortSignal) => AsyncGenerator<Row[], WalkSummary, void>,
  req: WalkRequest,
  signal: AbortSignal,
  cut?: (rows: Row[]) => Row[],
): Promise<HostWalk> {
  // The rows begin as the first batch's copy, not as an array literal made before the walk: V8
  // allocates a literal's arrays in the old generation once nearly all of them outlive a
  // scavenge (a fan-out's hosts are all in flight at once), and a dead old array keeps its young
  // rows alive until the next full collection (@fleetls/hosts agent/http2/channel.ts, StartedCall).
  let kept: Row[] | undefined;
  try {
    const summary = await streamHostWalk(walkFn, req, signal, (batch) => {
      if (!kept) kept = batch.slice();
      else for (const row of batch) kept.push(row);
    });
    const rows = kept ?? [];
    return { rows: cut ? cut(rows) : rows, summary };
  } catch (err) {
    if (!(err instanceof PartialFailure)) throw err;
    const rows = kept ?? [];
    const sent = rows.filter((row) => row.kind === 'entry').length;
    const summary: WalkSummary = {
      entriesSent: sent,
      entriesSeen: sent,
      entriesMatched: sent,
      truncations: [],
      elapsedMs: 0,
      depthLimitedDirs: 0,
    };
    throw new PartialFailure<HostWalk>(
      { rows, summary },
      `the walk broke after ${rows.length} rows`,
      err.cause,
      err.code,
    );
  }
}

/** One host's walk of `req` within its budget: the fan-out task of the tools that walk. */
export function walkTask(req: WalkRequest): HostTask<HostWalk> {
  return (b, _h, signal, budgetMs) => walkHost(b.walk.bind(b), withinBudget(req, budgetMs), signal);
}

/**
 * A ranked walk's fan-out task whose hosts keep only the entries within the best `cap` of the
 * call's hosts so far: a merged ranking shows at most `cap` rows, and the rest would be held
 * to the end of the call for nothing (10 rows of each of 100,000 hosts for a top 10 were most
 * of a gateway's memory, and its collector's time). Counts (the summary) are kept whole.
 */
export function rankedWalkTask(req: WalkRequest, cap: number): ShardableTask<HostWalk> {
  // core's heap of the best `cap`: an entry it refuses now can never rank within `cap`.
  const best = new TopN<HostEntry>(Math.max(1, cap), hostEntryComparator(req.order, req.direction));
  // The cut inside walkHost, not in an async function around it: no more promises per host than walkTask.
  const task: ShardableTask<HostWalk> = (b, h, signal, budgetMs) =>
    walkHost(b.walk.bind(b), withinBudget(req, budgetMs), signal, (rows) => {
      const host = h.name;
      return rows.filter((row) => row.kind !== 'entry' || best.push({ host, entry: row.entry }));
    });
  // A peer gateway can run it over a shard of the hosts (fleet/peers/): its own heap of the
  // best `cap` sends back only what may still rank, and the caller's merge ranks the rest.
  task.shard = { kind: 'ranked-walk', req, cap };
  return task;
}

/** A peer gateway's shard as the fan-out task it runs here (fleet/peers/serve-shards.ts). */
export function shardTask(shard: ShardTask): HostTask<HostWalk> {
  return rankedWalkTask(shard.req, shard.cap);
}

/**
 * Every host's walk of `req`, in host order; a host that failed (or whose root did) is a
 * status only. With `cap`, a ranked walk's hosts keep only what may rank within it (rankedWalkTask).
 */
export function walkHosts(
  ctx: ToolContext,
  hosts: FleetHost[],
  req: WalkRequest,
  cap?: number,
): Promise<HostResult<HostWalk>[]> {
  const task = cap === undefined ? walkTask(req) : rankedWalkTask(req, cap);
  return fanOut(ctx.fleet, hosts, task, fanOutOptions(ctx));
}

/** The notes of the hosts that answered (how they were listed), in host order. */
export function walkNotes(results: HostResult<HostWalk>[]): HostNote[] {
  return results.flatMap((r) => (r.value?.summary.notes ?? []).map((note) => ({ host: r.host.name, note })));
}

/** Whole-walk truncations worth telling (top_n is the ranking asked for, not a loss). */
export function lossTruncations(summary: WalkSummary): Truncation[] {
  return summary.truncations.filter((t) => t.reason !== 'top_n' && t.reason !== 'items_per_dir');
}

export interface MergedWalks {
  /** The hosts' ranked rows merged into one list in the request's order. */
  merged: HostEntry[];
  /** Entries that passed the filters, over all hosts: the full length of the ranking. */
  found: number;
  truncations: HostTruncation[];
  notes: HostNote[];
}

/**
 * Merges the ranked walks of the hosts that answered, keeping the entries `keep` accepts;
 * `limit` rows at most (the first of them are the same as without it).
 */
export function mergeRankedWalks(
  results: HostResult<HostWalk>[],
  req: WalkRequest,
  keep: (e: Entry) => boolean = () => true,
  limit = Number.POSITIVE_INFINITY,
): MergedWalks {
  const lists: HostEntry[][] = [];
  const truncations: HostTruncation[] = [];
  let found = 0;
  for (const r of results) {
    if (!r.value) continue;
    const host = r.host.name;
    found += r.value.summary.entriesMatched;
    const list: HostEntry[] = [];
    for (const row of r.value.rows) if (row.kind === 'entry' && keep(row.entry)) list.push({ host, entry: row.entry });
    lists.push(list);
    for (const t of lossTruncations(r.value.summary)) truncations.push({ host, truncation: t });
  }
  const merged = mergeSortedArrays(lists, hostEntryComparator(req.order, req.direction), limit);
  return { merged, found, truncations, notes: walkNotes(results) };
}

/**
 * rankedWalkTask's cut for a tool whose task is its own: a host's rows keep only the entries
 * `keep` accepts (what the tool's merge shows) that are within the best `cap` of the call's
 * hosts so far. Rows that cannot rank were held per host to the end of the call: disk_usage's
 * 20 of each of 100,000 hosts are 2,000,000.
 */
export function rankedCut(
  req: WalkRequest,
  cap: number,
  keep: (e: Entry) => boolean,
): (host: string, rows: Row[]) => Row[] {
  const best = new TopN<HostEntry>(Math.max(1, cap), hostEntryComparator(req.order, req.direction));
  return (host, rows) =>
    rows.filter((row) => row.kind !== 'entry' || (keep(row.entry) && best.push({ host, entry: row.entry })));
}
