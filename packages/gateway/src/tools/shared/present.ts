// What the tools' presenters share: host status rows, truncations and notes as JSON and as
// text lines, and entry fields in the words the tools use.
import {
  displayPath,
  type Entry,
  formatMtime,
  type HostStatus,
  type HostStatusCode,
  type Truncation,
  treeTruncationLine,
} from '@fleetls/core';
import { type AnswerCut, cutRecord } from './answer-size.js';
import type { HostNote, HostTruncation } from './host-walks.js';

export interface HostStatusJson {
  host: string;
  status: HostStatusCode;
  via: HostStatus['via'];
  elapsed_ms: number;
  message?: string;
}

export function hostStatusJson(status: HostStatus): HostStatusJson {
  const out: HostStatusJson = {
    host: status.host,
    status: status.status,
    via: status.via,
    elapsed_ms: status.elapsedMs,
  };
  if (status.message !== undefined) out.message = status.message;
  return out;
}

/** A host's walk cut (host, dir, reason), or the answer cut to its budget (reason bytes or tokens, limit): truncationSchema. */
export interface TruncationJson {
  host?: string;
  dir?: string;
  shown: number;
  total?: number;
  reason: string;
  limit?: number;
  /** reason host_statuses: how many hosts of each status the call asked. */
  by_status?: Partial<Record<HostStatusCode, number>>;
  /** The same walk cut on this many hosts, `host` the first of them. */
  hosts?: number;
}

export function truncationJson(host: string, truncation: Truncation): TruncationJson {
  return {
    host,
    dir: displayPath(truncation.dir),
    shown: truncation.shown,
    total: truncation.total,
    reason: truncation.reason,
  };
}

/** `host: [WARNING] ...` for a cap that bit on a host's walk of `root`. */
export function truncationWarning(cut: HostTruncation, root: string): string {
  return `${cut.host}: ${treeTruncationLine(cut.truncation, root)}`;
}

/** What a page of rows says it left out: its `truncations` and its warning lines. */
export interface PageCuts {
  truncations: TruncationJson[];
  warnings: string[];
}

/**
 * A page showing `count` of its `total` rows (`noun`: rows, differences): the hosts' walk
 * cuts, the host statuses' cut (fitHostStatuses) and the answer's own cut as records; as
 * lines the hosts' cuts, then the tool's `lines` (its notes), then the answer's cut.
 */
export function pageCuts(page: {
  hostCuts: readonly HostTruncation[];
  path: string;
  statusCut: TruncationJson | undefined;
  lines: readonly string[];
  count: number;
  total: number;
  noun: string;
  cut: AnswerCut;
}): PageCuts {
  const truncations = page.hostCuts.map((t) => truncationJson(t.host, t.truncation));
  if (page.statusCut) truncations.push(page.statusCut);
  const warnings = [...page.hostCuts.map((t) => truncationWarning(t, page.path)), ...page.lines];
  if (page.count < page.total) {
    truncations.push(cutRecord(page.cut, page.count, page.total));
    warnings.push(
      `[WARNING] answer cut at ${page.cut.words} after ${page.count} of ${page.total} ${page.noun}; next_cursor goes on from there`,
    );
  }
  return { truncations, warnings };
}

/**
 * What a page with a next_cursor left out when no cut of its own says so: the rows after it
 * (`reason: page`, `shown` on this page of `total` when known). A page is `truncated` exactly
 * when its `truncations` say why.
 */
export function nextPageRecord(shown: number, total: number | undefined): TruncationJson {
  return { reason: 'page', shown, ...(total !== undefined ? { total } : {}) };
}

/** `truncations` with the next page's record added when a cursor follows and nothing says why. */
export function withNextPage(
  truncations: TruncationJson[],
  next: string | undefined,
  shown: number,
  total: number | undefined,
): TruncationJson[] {
  const said = truncations.some((t) => t.reason === 'bytes' || t.reason === 'tokens' || t.reason === 'page');
  return next === undefined || said ? truncations : [...truncations, nextPageRecord(shown, total)];
}

/** A top_n cut: `shown` of the `total` found (absent when the count is not known). */
export function topNRecord(shown: number, total: number | undefined): TruncationJson {
  return { reason: 'top_n', shown, ...(total !== undefined ? { total } : {}) };
}

/**
 * The fields that end a page's answer, in this order: where the page starts, its rows, what
 * was cut, the hosts' statuses (fitHostStatuses' json), and the next page's cursor if any.
 */
export function pageEnd(page: {
  start: number;
  count: number;
  /** Rows of the whole listing, when known (for the next page's record). */
  total?: number;
  truncations: TruncationJson[];
  hosts: { hosts: HostStatusJson[] };
  next: string | undefined;
}) {
  const truncations = withNextPage(page.truncations, page.next, page.count, page.total);
  return {
    start_index: page.start,
    count: page.count,
    truncated: truncations.length > 0,
    truncations,
    ...page.hosts,
    ...(page.next !== undefined ? { next_cursor: page.next } : {}),
  };
}

/** A note's text line: `[NOTE] ...`, prefixed with its host when asked. */
export function noteLine(note: HostNote, withHost: boolean): string {
  return `${withHost ? `${note.host}: ` : ''}[NOTE] ${note.note}`;
}

export function modified(entry: Entry): string {
  return formatMtime(entry.mtimeSec, entry.mtimeNsec, entry.utcOffsetMin);
}

/** The user-facing type word: `directory` (as the tools' `type` argument), else the entry type. */
export function typeWord(entry: Entry): string {
  return entry.type === 'dir' ? 'directory' : entry.type;
}

/** A failed host's line: `[NOT_FOUND] /p — detail`, `[DENIED] /p — detail`, `[ERROR] unreachable — msg`. */
export function failureLine(status: HostStatus, path: string): string {
  const msg = withoutPath(status.message ?? status.status, path);
  if (status.status === 'not_found') return `[NOT_FOUND] ${path} — ${msg}`;
  if (status.status === 'denied') return `[DENIED] ${path} — ${msg}`;
  if (status.status === 'pending') return `[PENDING] ${msg}`;
  // A host that answered but could not list the path (not a directory, a listing that
  // failed) names the path, as [NOT_FOUND] does; a transport failure names its status.
  if (status.status === 'error') return `[ERROR] ${path} — ${msg}`;
  return `[ERROR] ${status.status} — ${msg}`;
}

/** The line names the path once: a message that ends with it (`path does not exist: /p`) drops it. */
function withoutPath(msg: string, path: string): string {
  for (const tail of [`: ${path}`, `: '${path}'`]) if (msg.endsWith(tail)) return msg.slice(0, -tail.length);
  return msg;
}

/**
 * The failed hosts' lines, in host order, each prefixed with its host when there are several;
 * the pending hosts (a scan's, still walking) in one line after them.
 */
export function failureLines(hosts: HostStatus[], path: string, multi: boolean): string[] {
  const lines = hosts.flatMap((s) => hostFailureLine(s, path, multi) ?? []);
  const pending = pendingLine(hosts);
  if (pending) lines.push(pending);
  return lines;
}

/** A failed host's own line in failureLines (none for an ok or pending host). */
export function hostFailureLine(status: HostStatus, path: string, multi: boolean): string | undefined {
  if (status.status === 'ok' || status.status === 'pending') return undefined;
  return `${multi ? `${status.host}: ` : ''}${failureLine(status, path)}`;
}

/** `[PENDING] 12 hosts: a, b, …` for the hosts a later page lists, or undefined when none is. */
export function pendingLine(hosts: HostStatus[]): string | undefined {
  const names = hosts.filter((s) => s.status === 'pending').map((s) => s.host);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, 20).join(', ');
  return `[PENDING] ${names.length} host${names.length === 1 ? '' : 's'} not on this page yet: ${shown}${names.length > 20 ? ', …' : ''}`;
}
