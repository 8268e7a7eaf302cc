// list_directory: DesktopCommander's tree lines, per host, in selector order. A listing
// that does not fit ends after a row and hands back a cursor: the host's index and that
// row, so the next page resumes that host's walk there (directories before it are not read
// again) and goes on with the hosts after it.
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  compareResumePoints,
  decodeTreeCursor,
  encodeTreeCursor,
  FleetError,
  invalidArgument,
  type ResumePoint,
  type Row,
  resolveWalkRequest,
  resumePointOf,
  type TreeCursor,
  type WalkRequest,
} from '@fleetls/core';
import type { ListDirectoryResponseSchema } from '@fleetls/proto/fleet_pb';
import type { HostResult } from '../../fleet/fan-out.js';
import { type ScanFace, type ScanPage, withScan } from '../../scans/face.js';
import { formatTree, pathFailed } from '../shared/cli-format.js';
import { pagedQuery } from '../shared/cursor-arg.js';
import { rowOut } from '../shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire, notesToWire } from '../shared/fleet-present.js';
import {
  type HostWalk,
  lossTruncations,
  walkDeadlineMs,
  walkHost,
  walkNotes,
  withinBudget,
} from '../shared/host-walks.js';
import { defineTool, hostPathArgument } from '../tool.js';
import { presentTree, rowItem } from './present.js';
import { input, output, type Plan, pending, type TreeListing, type TreeSection } from './shape.js';

export type { ListDirectoryAnswer, TreeListing, TreeSection } from './shape.js';
export { treeEntryPaths } from './shape.js';

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

/**
 * A tree cursor of a selection of `hostCount` hosts. Its fingerprint names the selection, so
 * only a made-up cursor names a host past it: refused as any cursor of another query.
 */
const ofSelection =
  (hostCount: number) =>
  (cursor: string, fingerprint: string): TreeCursor => {
    const pos = decodeTreeCursor(cursor, fingerprint);
    if (pos.host >= hostCount) throw new RangeError(`cursor host ${pos.host} is past the ${hostCount} selected`);
    return pos;
  };

/** A host that stopped at its entry or time limit after some rows goes on on the next page. */
function stoppedEarly(section: TreeSection): boolean {
  return section.rows.length > 0 && section.losses.some((t) => t.reason === 'max_entries' || t.reason === 'deadline');
}

/** The whole answer of a tree call: host after host, until one that stopped early (its cursor resumes it). */
function wholeTree(p: Plan, results: HostResult<HostWalk>[]): TreeListing {
  const sections: TreeSection[] = [];
  for (const [i, r] of results.entries()) {
    const rows = !r.value ? [] : i === 0 && p.start.after ? skipShown(r.value.rows, p.start.after) : r.value.rows;
    const section = { status: r.status, rows, losses: r.value ? lossTruncations(r.value.summary) : [] };
    sections.push(section);
    // The hosts after one that stopped early are listed on a later page.
    if (stoppedEarly(section)) break;
  }
  const listed = results.slice(0, sections.length);
  // The hosts after one that stopped early are asked again by the next page; this one names them pending.
  const later = results.slice(sections.length).map((r) => pending(r.status));
  const cursorAfter = (shown: number): string | undefined => {
    let before = 0;
    for (const [i, sec] of sections.entries()) {
      const within = shown - before;
      if (within < sec.rows.length || (within === sec.rows.length && stoppedEarly(sec))) {
        const last = within > 0 ? resumePointOf(sec.rows[within - 1]) : i === 0 ? p.start.after : undefined;
        return encodeTreeCursor({ host: p.start.host + i, ...(last ? { after: last } : {}) }, p.fingerprint);
      }
      before += sec.rows.length;
    }
    return undefined;
  };
  return {
    path: p.req.path,
    multi: p.allHosts.length > 1,
    sections,
    notes: walkNotes(listed),
    hosts: [...sections.map((sec) => sec.status), ...later],
    cursorAfter,
  };
}

/**
 * A scan page of trees: every host of the batch whole (a host cut at its entry or time limit
 * says so, and is not resumed), from row `page.start` over all of them; pending hosts after.
 */
function scanTree(p: Plan, results: HostResult<HostWalk>[], page: ScanPage): TreeListing {
  const sections: TreeSection[] = [];
  let at = 0;
  for (const r of results) {
    if (r.status.status === 'pending') continue;
    const rows = r.value?.rows ?? [];
    const from = at;
    at += rows.length;
    if (page.start > 0 && at <= page.start) continue;
    const skip = Math.max(0, page.start - from);
    sections.push({
      status: r.status,
      rows: skip > 0 ? rows.slice(skip) : rows,
      losses: r.value ? lossTruncations(r.value.summary) : [],
    });
  }
  const total = at;
  const listed = new Set(sections.map((sec) => sec.status.host));
  return {
    path: p.req.path,
    multi: p.allHosts.length > 1,
    sections,
    notes: walkNotes(results.filter((r) => listed.has(r.host.name))),
    hosts: [
      ...sections.map((sec) => sec.status),
      ...results.filter((r) => r.status.status === 'pending').map((r) => r.status),
    ],
    cursorAfter: (shown) => page.next(page.start + shown, total),
  };
}

const treeScan: ScanFace<Plan, HostWalk, TreeListing> = {
  hosts: (p) => p.hosts,
  task: (p) => (b, h, signal, budgetMs) =>
    walkHost(b.walk.bind(b), withinBudget(h === p.hosts[0] ? p.resumed : p.req, budgetMs), signal),
  entries: (w) => w.summary.entriesSeen,
  rows: (w) => w.rows.length,
  merge: (p, results, _ctx, page) => (page ? scanTree(p, results, page) : wholeTree(p, results)),
};

function treeToFleet(l: TreeListing): MessageInitShape<typeof ListDirectoryResponseSchema> {
  const rows = l.sections.flatMap((sec) => sec.rows.map((row) => ({ host: sec.status.host, row: rowOut(row) })));
  return {
    path: l.path,
    rows,
    truncations: l.sections.flatMap((sec) =>
      sec.losses.map((truncation) => hostTruncationToWire({ host: sec.status.host, truncation })),
    ),
    notes: notesToWire(l.notes),
    nextCursor: l.cursorAfter(rows.length) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  title: 'Directory tree',
  description:
    'What does the tree under path look like? Lines `[DIR] a/b`, `[FILE] a/b/c`, `  [FILE] d` (indented: in the directory of the line above), `[LINK] l -> t`, `[WARNING] a/b: N items hidden`, `[DENIED] a/x …`; several hosts: `host: ` first. A cut tree gives next_cursor.',
  input,
  output,

  plan(a, ctx): Plan {
    const allHosts = ctx.fleet.select(a.host);
    // A cursor names a host by its index in the selection: the selected names are in the query.
    const { fingerprint, at } = pagedQuery(
      'list_directory',
      a,
      ['host', 'path', 'depth', 'max_items_per_dir'],
      ofSelection(allHosts.length),
      { hosts: allHosts.map((h) => h.name) },
    );
    const start = at ?? { host: 0 };
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
    return { allHosts, hosts, start, req, resumed, fingerprint };
  },

  ...withScan(treeScan),
  mcp: presentTree,

  cli: {
    command: 'tree',
    description: 'show the directory tree under PATH on the selected hosts',
    argument: hostPathArgument('localhost:/etc'),
    render(l, style) {
      const items = l.sections.flatMap((sec) => sec.rows.map((row) => rowItem(sec.status.host, row)));
      const out = formatTree(items, { root: l.path, showHost: l.multi, style });
      if (out.length === 0 && l.hosts.some((h) => h.status === 'ok')) out.push(style.bold(l.path));
      const err: string[] = [];
      for (const sec of l.sections) {
        for (const t of sec.losses) {
          err.push(
            style.warn(`fleetls: ${sec.status.host}: listing cut (${t.reason}): showing ${t.shown} of ${t.total}`),
          );
        }
      }
      const next = l.cursorAfter(items.length);
      if (next) err.push(style.dim(`more: --cursor ${next}`));
      return { out, err, failed: pathFailed(items) };
    },
  },

  fleet: { method: 'ListDirectory', present: treeToFleet },
});
