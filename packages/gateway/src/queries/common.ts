// What every query shares: its context, the walk of one host (following a symlinked
// path to its directory) and of many, the merge of ranked walks, host status rows, entry
// fields as JSON, and the answer's byte budget.
import {
  type Code,
  displayPath,
  type Entry,
  FleetError,
  formatMtime,
  type HostStatus,
  type HostStatusCode,
  hostEntryComparator,
  mergeSortedArrays,
  type Row,
  type Truncation,
  treeTruncationLine,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import { type FanOutOptions, fanOut, type HostResult } from '../fan-out.js';
import type { Fleet, FleetHost } from '../fleet-types.js';
import type { GatewayOptions } from '../options.js';

export interface QueryContext {
  fleet: Fleet;
  options: GatewayOptions;
  signal: AbortSignal;
  /** Once per answered host. */
  onProgress?: (done: number, total: number, status: HostStatus) => void;
}

/** A query's answer: `structured` matches the tool's outputSchema, `text` is its compact rendering. */
export interface QueryResult<S> {
  structured: S;
  text: string;
}

export interface HostStatusJson {
  host: string;
  status: HostStatusCode;
  via: HostStatus['via'];
  elapsed_ms: number;
  message?: string;
}

export function hostStatusJson(s: HostStatus): HostStatusJson {
  const out: HostStatusJson = { host: s.host, status: s.status, via: s.via, elapsed_ms: s.elapsedMs };
  if (s.message !== undefined) out.message = s.message;
  return out;
}

export function fanOutOptions(ctx: QueryContext): FanOutOptions {
  return {
    concurrency: ctx.options.concurrency,
    deadlineMs: ctx.options.deadlineMs,
    signal: ctx.signal,
    onHostDone: ctx.onProgress ? (status, done, total) => ctx.onProgress?.(done, total, status) : undefined,
  };
}

/**
 * The walk's own time budget: under the gateway's per-host deadline, so a slow tree comes
 * back partial with a `deadline` truncation rather than as a timed-out host.
 */
export function walkDeadlineMs(options: GatewayOptions): number {
  return Math.max(1, Math.floor(options.deadlineMs * 0.8));
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
  const fleetCode: Code =
    code === 'NOT_FOUND'
      ? 'not_found'
      : code === 'DENIED'
        ? 'permission_denied'
        : code === 'TIMEOUT'
          ? 'deadline_exceeded'
          : 'internal';
  return new FleetError(fleetCode, detail);
}

/**
 * Runs one host's walk to the end. A symlinked path is followed where the host resolves it
 * (the agent walks the real path, SSH runs `find -H`); a root that cannot be listed throws,
 * so it becomes the host's status row.
 */
export async function walkHost(
  walkFn: (req: WalkRequest, signal: AbortSignal) => AsyncGenerator<Row[], WalkSummary, void>,
  req: WalkRequest,
  signal: AbortSignal,
): Promise<HostWalk> {
  const rows: Row[] = [];
  const it = walkFn(req, signal);
  let r = await it.next();
  while (!r.done) {
    for (const row of r.value) rows.push(row);
    r = await it.next();
  }
  const failed = rootFailure(rows);
  if (failed) throw failed;
  return { rows, summary: r.value };
}

/** Every host's walk of `req`, in host order; a host that failed (or whose root did) is a status only. */
export function walkHosts(ctx: QueryContext, hosts: FleetHost[], req: WalkRequest): Promise<HostResult<HostWalk>[]> {
  return fanOut(ctx.fleet, hosts, (b, _h, signal) => walkHost(b.walk.bind(b), req, signal), fanOutOptions(ctx));
}

export interface NoteJson {
  host: string;
  note: string;
}

/** The notes of the hosts that answered (how they were listed), in host order. */
export function walkNotes(results: HostResult<HostWalk>[]): NoteJson[] {
  return results.flatMap((r) => (r.value?.summary.notes ?? []).map((note) => ({ host: r.host.name, note })));
}

/** A note's text line: `[NOTE] ...`, prefixed with its host when asked. */
export function noteLine(n: NoteJson, withHost: boolean): string {
  return `${withHost ? `${n.host}: ` : ''}[NOTE] ${n.note}`;
}

export interface MergedWalks {
  /** The hosts' ranked rows merged into one list in the request's order. */
  merged: { host: string; entry: Entry }[];
  /** Entries that passed the filters, over all hosts: the full length of the ranking. */
  found: number;
  truncations: TruncationJson[];
  /** One `host: [WARNING] ...` line per truncation, then one `host: [NOTE] ...` per note. */
  warnings: string[];
  notes: NoteJson[];
}

/** Merges the ranked walks of the hosts that answered, keeping the entries `keep` accepts. */
export function mergeRankedWalks(
  results: HostResult<HostWalk>[],
  req: WalkRequest,
  keep: (e: Entry) => boolean = () => true,
): MergedWalks {
  const lists: { host: string; entry: Entry }[][] = [];
  const truncations: TruncationJson[] = [];
  const warnings: string[] = [];
  let found = 0;
  for (const r of results) {
    if (!r.value) continue;
    const host = r.host.name;
    found += r.value.summary.entriesMatched;
    lists.push(
      r.value.rows.flatMap((row) => (row.kind === 'entry' && keep(row.entry) ? [{ host, entry: row.entry }] : [])),
    );
    for (const t of lossTruncations(r.value.summary)) {
      truncations.push(truncationJson(host, t));
      warnings.push(`${host}: ${treeTruncationLine(t, req.path)}`);
    }
  }
  const merged = mergeSortedArrays(lists, hostEntryComparator(req.order, req.direction));
  const notes = walkNotes(results);
  for (const n of notes) warnings.push(noteLine(n, true));
  return { merged, found, truncations, warnings, notes };
}

/** Whole-walk truncations worth telling (top_n is the ranking asked for, not a loss). */
export function lossTruncations(summary: WalkSummary): Truncation[] {
  return summary.truncations.filter((t) => t.reason !== 'top_n' && t.reason !== 'items_per_dir');
}

export interface TruncationJson {
  host: string;
  dir: string;
  shown: number;
  total: number;
  reason: string;
}

export function truncationJson(host: string, t: Truncation): TruncationJson {
  return { host, dir: displayPath(t.dir), shown: t.shown, total: t.total, reason: t.reason };
}

export function modified(e: Entry): string {
  return formatMtime(e.mtimeSec, e.mtimeNsec, e.utcOffsetMin);
}

/** The user-facing type word: `directory` (as the tools' `type` argument), else the entry type. */
export function typeWord(e: Entry): string {
  return e.type === 'dir' ? 'directory' : e.type;
}

/** A failed host's line: `[NOT_FOUND] /p — detail`, `[DENIED] /p — detail`, `[ERROR] unreachable — msg`. */
export function failureLine(s: HostStatus, path: string): string {
  const msg = s.message ?? s.status;
  if (s.status === 'not_found') return `[NOT_FOUND] ${path} — ${msg}`;
  if (s.status === 'denied') return `[DENIED] ${path} — ${msg}`;
  return `[ERROR] ${s.status} — ${msg}`;
}

/** The failed hosts' lines, in host order, each prefixed with its host when there are several. */
export function failureLines(results: HostResult<unknown>[], path: string, multi: boolean): string[] {
  return results.filter((r) => !r.value).map((r) => `${multi ? `${r.host.name}: ` : ''}${failureLine(r.status, path)}`);
}
