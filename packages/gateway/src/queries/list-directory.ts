// list_directory: DesktopCommander's tree lines, per host, in selector order. A listing
// that does not fit ends after a row and hands back a cursor: the host's index and that
// row, so the next page resumes that host's walk there (directories before it are not read
// again) and goes on with the hosts after it.
import {
  compareResumePoints,
  decodeTreeCursor,
  displayPath,
  type Entry,
  encodeTreeCursor,
  FleetError,
  invalidArgument,
  queryFingerprint,
  type ResumePoint,
  type Row,
  reserveFor,
  resolveWalkRequest,
  resumePointOf,
  TextBudget,
  type TreeCursor,
  treeEntryLine,
  treeTruncationLine,
  type WalkRequest,
} from '@fleetls/core';
import type { z } from 'zod';
import { fanOut } from '../fan-out.js';
import {
  failureLine,
  fanOutOptions,
  hostStatusJson,
  lossTruncations,
  modified,
  noteLine,
  type QueryContext,
  type QueryResult,
  truncationJson,
  typeWord,
  walkDeadlineMs,
  walkHost,
  walkNotes,
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

/**
 * An agent older than resume points ignores `after` and walks from the start: the rows it
 * sends up to and including the resume point were shown already and are dropped here (an
 * agent that honours `after` sends only rows past it: its first row shows that at once).
 */
function skipShown(rows: Row[], after: ResumePoint): Row[] {
  const i = rows.findIndex((r) => compareResumePoints(resumePointOf(r), after) > 0);
  return i === 0 ? rows : i < 0 ? [] : rows.slice(i);
}

/** Where a cursor goes on from; a cursor of another query (or garbage) names what must not change. */
function pageStart(cursor: string, fingerprint: string, hostCount: number): TreeCursor {
  const bad = () =>
    invalidArgument(
      'cursor is not valid for this query: pass next_cursor unchanged, with host, path, depth and max_items_per_dir as on the first page',
    );
  let pos: TreeCursor;
  try {
    pos = decodeTreeCursor(cursor, fingerprint);
  } catch {
    throw bad();
  }
  if (pos.host >= hostCount) throw bad();
  return pos;
}

export async function listDirectory(ctx: QueryContext, args: unknown): Promise<QueryResult<ListDirectoryAnswer>> {
  const a = parseArgs(listDirectoryInput, args);
  const allHosts = ctx.fleet.select(a.host);
  const fingerprint = queryFingerprint({
    tool: 'list_directory',
    host: a.host,
    hosts: allHosts.map((h) => h.name),
    path: a.path,
    depth: a.depth,
    max_items_per_dir: a.max_items_per_dir,
  });
  const start = a.cursor !== undefined ? pageStart(a.cursor, fingerprint, allHosts.length) : { host: 0 };
  // A page resumes its first host after the cursor's row, then lists the hosts after it.
  const hosts = allHosts.slice(start.host);
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
  let resumed: WalkRequest = req;
  if (start.after) {
    try {
      resumed = resolveWalkRequest({ ...req, after: start.after.path, afterRow: start.after.row });
    } catch (err) {
      throw invalidArgument(`cursor is not valid: ${FleetError.from(err).message}`);
    }
  }
  const results = await fanOut(
    ctx.fleet,
    hosts,
    (b, h, signal) => walkHost(b.walk.bind(b), h === hosts[0] ? resumed : req, signal),
    fanOutOptions(ctx),
  );

  const multi = allHosts.length > 1;
  const budget = new TextBudget(ctx.options.maxAnswerBytes, reserveFor(hosts.length));
  const lines: string[] = [];
  const tail: string[] = [];
  const entries: TreeEntryJson[] = [];
  const truncations: ReturnType<typeof truncationJson>[] = [];
  let shownRows = 0;
  /** Rows the listed hosts sent for this page (those past a cut included). */
  let totalRows = 0;
  /** Where the next page starts, when this one is cut. */
  let next: TreeCursor | undefined;
  /** This page was cut at the byte budget (rather than by a host's own entry or time limit). */
  let cutAtBytes = false;
  let listed = 0;

  for (const [i, r] of results.entries()) {
    const host = r.host.name;
    const prefix = multi ? `${host}: ` : '';
    listed = i + 1;
    if (!r.value) {
      // Failed hosts keep their place in the host order, inside the budget's reserve.
      lines.push(prefix + failureLine(r.status, req.path));
      continue;
    }
    const rootLabel = req.path;
    let last = i === 0 ? start.after : undefined;
    const rows = i === 0 && start.after ? skipShown(r.value.rows, start.after) : r.value.rows;
    let hostRows = 0;
    totalRows += rows.length;
    for (const row of rows) {
      const line =
        prefix +
        (row.kind === 'entry' ? treeEntryLine(row.entry, rootLabel) : treeTruncationLine(row.truncation, rootLabel));
      // A page shows one row at least, so paging always moves on.
      if (!budget.take(line) && shownRows > 0) {
        next = { host: start.host + i, ...(last ? { after: last } : {}) };
        cutAtBytes = true;
        break;
      }
      shownRows++;
      hostRows++;
      last = resumePointOf(row);
      lines.push(line);
      if (row.kind === 'entry') entries.push(entryJson(host, row.entry));
      else {
        const t = row.truncation;
        entries.push({ host, path: displayPath(t.dir), type: 'warning', hidden: { shown: t.shown, total: t.total } });
      }
    }
    if (next) break;
    const losses = lossTruncations(r.value.summary);
    for (const t of losses) {
      lines.push(prefix + treeTruncationLine(t, rootLabel));
      truncations.push(truncationJson(host, t));
    }
    // A host that stopped at its entry or time limit after some rows goes on on the next page.
    if (hostRows > 0 && losses.some((t) => t.reason === 'max_entries' || t.reason === 'deadline')) {
      next = { host: start.host + i, ...(last ? { after: last } : {}) };
      break;
    }
  }
  const notes = walkNotes(results.slice(0, listed));
  for (const n of notes) tail.push(noteLine(n, multi));
  const nextCursor = next ? encodeTreeCursor(next, fingerprint) : undefined;
  if (nextCursor) {
    const more = `to continue, call list_directory again with the same arguments and cursor: ${nextCursor}`;
    if (cutAtBytes) {
      tail.push(`[WARNING] answer cut at ${ctx.options.maxAnswerBytes} bytes after ${shownRows} lines; ${more}`);
      truncations.push({ host: '', dir: '', shown: shownRows, total: totalRows, reason: 'bytes' });
    } else tail.push(`[WARNING] ${more}`);
  }
  return {
    structured: {
      path: req.path,
      entries,
      truncated: truncations.length > 0,
      truncations,
      ...(nextCursor ? { next_cursor: nextCursor } : {}),
      ...(notes.length > 0 ? { notes } : {}),
      hosts: results.slice(0, listed).map((r) => hostStatusJson(r.status)),
    },
    text: [...lines, ...tail].join('\n'),
  };
}
