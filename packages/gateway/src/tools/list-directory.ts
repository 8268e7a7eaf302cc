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
  type HostStatus,
  invalidArgument,
  MAX_TREE_CURSOR_LENGTH,
  queryFingerprint,
  type ResumePoint,
  type Row,
  resolveWalkRequest,
  resumePointOf,
  type TreeCursor,
  type Truncation,
  treeEntryLine,
  treeTruncationLine,
  type WalkRequest,
} from '@fleetls/core';
import { z } from 'zod';
import { formatTree } from '../cli/format.js';
import type { HostResult } from '../fan-out.js';
import type { FleetHost } from '../fleet-types.js';
import { type AnswerCut, cutRecord, fitAnswer, rowSize } from './answer-size.js';
import { decodeCursorArg, invalidCursor } from './cursor-arg.js';
import { fitHostStatuses } from './host-statuses.js';
import {
  type HostNote,
  type HostWalk,
  lossTruncations,
  walkDeadlineMs,
  walkHost,
  walkNotes,
  withinBudget,
} from './host-walks.js';
import { failureLine, noteLine, truncationJson, typeWord } from './present.js';
import { collectWith, type ScanFace, type ScanPage } from './scan-face.js';
import * as s from './schemas.js';
import { defineTool, type McpAnswer, type ToolResult } from './tool.js';

const DEPTH = { ...s.DEPTH, default: 2 } as const;
const MAX_ITEMS_PER_DIR = { ...s.ITEMS_PER_DIR, default: 100 } as const;

const input = {
  host: s.host(),
  path: s.path,
  depth: s
    .int('depth', DEPTH.min, DEPTH.max)
    .default(DEPTH.default)
    .describe('Levels listed (1 = the path’s own entries)'),
  max_items_per_dir: s
    .int('max_items_per_dir', MAX_ITEMS_PER_DIR.min, MAX_ITEMS_PER_DIR.max)
    .default(MAX_ITEMS_PER_DIR.default)
    .describe('Entries shown per nested directory (not path)'),
  cursor: s.cursor(MAX_TREE_CURSOR_LENGTH, 'same arguments'),
};

const treeEntrySchema = z.object({
  /** Only when several hosts were asked. */
  host: z.string().optional(),
  path: z.string(),
  type: z
    .string()
    .optional()
    .describe('directory, symlink, fifo, socket, char, block, or warning (a capped directory); absent = file'),
  /** Bytes (lstat), for everything but directories. */
  size: z.number().optional(),
  link_target: z.string().optional(),
  error: s.entryErrorSchema.optional(),
  /** A per-directory [WARNING]: how many of its entries were hidden. */
  hidden: z.object({ shown: z.number(), total: z.number() }).optional(),
});

const output = {
  path: z.string(),
  entries: z.array(treeEntrySchema),
  truncated: z.boolean(),
  truncations: z.array(s.truncationSchema),
  /** Present exactly when the listing was cut: pass it as `cursor` for the next page. */
  next_cursor: z.string().optional(),
  notes: z.array(s.noteSchema).optional(),
  hosts: z.array(s.hostStatusSchema),
  scan: s.scanSchema.optional(),
};

type Args = z.output<z.ZodObject<typeof input>>;
type TreeEntryJson = z.infer<typeof treeEntrySchema>;
export type ListDirectoryAnswer = z.infer<z.ZodObject<typeof output>>;

interface Plan {
  /** Every host the selector names (the cursor's host index counts in this list). */
  allHosts: FleetHost[];
  /** The hosts this page lists: from the cursor's host on. */
  hosts: FleetHost[];
  start: TreeCursor;
  req: WalkRequest;
  /** The first host's request: resumed after the cursor's row. */
  resumed: WalkRequest;
  fingerprint: string;
}

/** One host's part of a tree page. */
export interface TreeSection {
  status: HostStatus;
  /** Its rows in depth-first order (none when the host failed). */
  rows: Row[];
  /** Whole-walk caps that bit (max_entries, deadline). */
  losses: Truncation[];
}

/** A page of trees, host after host. */
export interface TreeListing extends ToolResult {
  path: string;
  multi: boolean;
  sections: TreeSection[];
  notes: HostNote[];
  /**
   * The cursor after the first `shown` rows of the page (over all sections, in order);
   * undefined when nothing follows them.
   */
  cursorAfter(shown: number): string | undefined;
}

/** A row as lean JSON: no host when one host was asked, no type for a plain file, no size for a directory. */
function entryJson(host: string | undefined, e: Entry): TreeEntryJson {
  const out: TreeEntryJson = { ...(host !== undefined ? { host } : {}), path: displayPath(e.path) };
  if (e.type !== 'file') out.type = typeWord(e);
  if (e.error) {
    out.error = { code: e.error.code, detail: e.error.detail };
    return out;
  }
  if (e.type !== 'dir') out.size = e.size;
  if (e.linkTarget !== undefined) out.link_target = displayPath(e.linkTarget);
  return out;
}

function rowJson(host: string | undefined, row: Row): TreeEntryJson {
  if (row.kind === 'entry') return entryJson(host, row.entry);
  const t = row.truncation;
  return {
    ...(host !== undefined ? { host } : {}),
    path: displayPath(t.dir),
    type: 'warning',
    hidden: { shown: t.shown, total: t.total },
  };
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
  const unchanged = 'host, path, depth and max_items_per_dir';
  const pos = decodeCursorArg(decodeTreeCursor, cursor, fingerprint, unchanged);
  if (pos.host >= hostCount) throw invalidCursor(unchanged);
  return pos;
}

/** Why a host has no rows on this page: a later page lists it. */
const PENDING_MESSAGE = 'continued on the next page: call again with next_cursor';

/** A host this page does not list (it comes after the cut, or after a host that stopped early). */
function pending(s: HostStatus): HostStatus {
  // No message per host: the status says it, and the text says it once for all of them.
  return s.status === 'pending' ? s : { host: s.host, status: 'pending', via: s.via, elapsedMs: 0 };
}

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

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  title: 'Directory tree',
  description:
    'What does the tree under path look like? Lines `[DIR] a/b`, `[FILE] a/b/c`, `[LINK] l -> t`, `[WARNING] a/b: N items hidden`, `[DENIED] a/x …`; several hosts: `host: ` first. A cut tree gives next_cursor.',
  input,
  output,

  plan(a: Args, ctx): Plan {
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

  collect(p: Plan, ctx): Promise<TreeListing> {
    return collectWith(treeScan, p, ctx);
  },

  scan: treeScan,

  mcp(l: TreeListing, ctx) {
    // Each row's line and lean JSON, once; build(n) lays out the page that shows the first n.
    const rowHost = (host: string) => (l.multi ? host : undefined);
    const lines = l.sections.map((sec) => {
      const prefix = l.multi ? `${sec.status.host}: ` : '';
      return sec.rows.map(
        (row) =>
          prefix +
          (row.kind === 'entry' ? treeEntryLine(row.entry, l.path) : treeTruncationLine(row.truncation, l.path)),
      );
    });
    const items = l.sections.map((sec) => sec.rows.map((row) => rowJson(rowHost(sec.status.host), row)));
    const flatLines = lines.flat();
    const flatItems = items.flat();
    const build = (n: number, budget: AnswerCut): McpAnswer => {
      const text: string[] = [];
      const entries: TreeEntryJson[] = [];
      const truncations: ReturnType<typeof truncationJson>[] = [];
      const listedHosts = new Set<string>();
      let shown = 0;
      /** Rows the listed hosts sent for this page (those past a cut included). */
      let sent = 0;
      let cut = false;
      for (const [si, sec] of l.sections.entries()) {
        const host = sec.status.host;
        const prefix = l.multi ? `${host}: ` : '';
        listedHosts.add(host);
        // Failed hosts keep their place in the host order.
        if (sec.status.status !== 'ok') text.push(prefix + failureLine(sec.status, l.path));
        sent += sec.rows.length;
        const take = Math.min(sec.rows.length, n - shown);
        for (let k = 0; k < take; k++) {
          text.push(lines[si][k]);
          entries.push(items[si][k]);
        }
        shown += take;
        if (take < sec.rows.length) {
          cut = true;
          break;
        }
        for (const t of sec.losses) {
          text.push(prefix + treeTruncationLine(t, l.path));
          truncations.push(truncationJson(host, t));
        }
      }
      const notes = l.notes.filter((note) => listedHosts.has(note.host));
      for (const note of notes) text.push(noteLine(note, l.multi));
      // Every host of the call has its status row on this page: those a later page lists are pending.
      const hosts = l.hosts.map((h) => (listedHosts.has(h.host) ? h : pending(h)));
      const later = hosts.filter((h) => h.status === 'pending').map((h) => h.host);
      if (later.length > 0) {
        const names =
          later.length > 20 ? `${later.length} hosts: ${later.slice(0, 20).join(', ')}, …` : later.join(', ');
        text.push(`[PENDING] ${names}: ${PENDING_MESSAGE}`);
      }
      const statuses = fitHostStatuses(hosts, ctx.options);
      text.push(...statuses.lines);
      if (statuses.truncation) truncations.push(statuses.truncation);
      const nextCursor = l.cursorAfter(shown);
      if (nextCursor) {
        const more = `to continue, call list_directory again with the same arguments and cursor: ${nextCursor}`;
        if (cut) {
          text.push(`[WARNING] answer cut at ${budget.words} after ${shown} lines; ${more}`);
          truncations.push(cutRecord(budget, shown, sent));
        } else text.push(`[WARNING] ${more}`);
      }
      const structured: ListDirectoryAnswer = {
        path: l.path,
        entries,
        truncated: truncations.length > 0,
        truncations,
        ...(nextCursor ? { next_cursor: nextCursor } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...statuses.json,
      };
      return { structured, text: text.join('\n') };
    };
    return fitAnswer({
      rows: flatLines.length,
      rowCost: (i) => rowSize(flatLines[i], flatItems[i]),
      build,
      options: ctx.options,
    }).answer;
  },

  cli: {
    command: 'tree',
    description: 'show the directory tree under PATH on the selected hosts',
    argument: { syntax: '<SELECTOR:PATH>', description: 'hosts and absolute path, e.g. localhost:/etc' },
    render(l, style) {
      const items = l.sections.flatMap((sec) =>
        sec.rows.map((row) => ({ type: 'file', ...rowJson(sec.status.host, row), host: sec.status.host })),
      );
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
      return { out, err };
    },
  },
});
