// disk_usage: where the space went. The largest directories under path by recursive apparent
// size (du -b --one-file-system), down to `depth` levels, on each host and merged across
// hosts (largest first, `host` on every row), bounded by the walk's deadline (a size that
// is only a lower bound says so), and each host's total of path itself (du's last line).
// Its text is a table a person reads at a glance.
import {
  DU_MAX_DEPTH,
  type DuRow,
  type DuTotal,
  type DuTotalSize,
  decodeCursor,
  displayPath,
  duPartialNote,
  duTotalFromListing,
  queryFingerprint,
  type Row,
  renderDuTable,
  renderDuTotals,
  resolveWalkRequest,
  type WalkRequest,
} from '@fleetls/core';
import { z } from 'zod';
import { hostStatusToWire, hostTruncationToWire, notesToWire } from '../fleet-api/present.js';
import { entryOut } from '../fleet-api/text-paths.js';
import type { FleetHost } from '../fleet-types.js';
import { type AnswerCut, fitAnswer, rowSize } from './answer-size.js';
import { decodeCursorArg } from './cursor-arg.js';
import { fitHostStatuses } from './host-statuses.js';
import {
  type HostNote,
  type HostTruncation,
  type HostWalk,
  lossTruncations,
  mergeRankedWalks,
  walkDeadlineMs,
  walkHost,
  withinBudget,
} from './host-walks.js';
import { failureLines, hostFailureLine, noteLine, pageCuts, truncationWarning } from './present.js';
import { collectWith, offsetPage, type ScanFace, type ScanPage } from './scan-face.js';
import * as s from './schemas.js';
import { defineTool, type McpAnswer, type ToolResult } from './tool.js';

const TOP = { min: 1, max: 1000, default: 20 } as const;
/** Children of path summed for its total, at most (the agents' top-N ceiling): more makes the total a lower bound. */
const TOTAL_CHILDREN = 100_000;
/**
 * Rows each host ranks, at least: more than top_n, so that path's depth-1 directories are
 * among them and its total comes from the listing (duTotalFromListing) rather than a second
 * walk of the tree. The host keeps only its first top_n once the total is taken.
 */
const LISTED_FOR_TOTAL = 1000;

const input = {
  host: s.host(),
  path: s.path,
  depth: z
    .number({ error: `depth: an integer from 1 to ${DU_MAX_DEPTH} (levels below path)` })
    .int({ error: `depth: an integer from 1 to ${DU_MAX_DEPTH} (levels below path)` })
    .min(1, { error: `depth: an integer from 1 to ${DU_MAX_DEPTH} (levels below path)` })
    .max(DU_MAX_DEPTH, { error: `depth: an integer from 1 to ${DU_MAX_DEPTH} (levels below path)` })
    .default(1)
    .describe('Levels below path, as du -d'),
  top_n: s.int('top_n', TOP.min, TOP.max).default(TOP.default).describe('The largest N over all hosts'),
  one_file_system: z
    .boolean({ error: 'one_file_system must be true or false' })
    .default(true)
    .describe('Stay on the file system of path (du -x)'),
  cursor: s.cursor(2048, 'same arguments'),
};

const rowSchema = z.object({
  host: z.string(),
  path: z.string(),
  /** Apparent bytes, as du -b. */
  size: z.number(),
  /** On-disk bytes, as du (st_blocks × 512); absent where the host cannot say (SFTP). */
  allocated: z.number().optional(),
  size_partial: z.boolean().optional(),
  /** Why size_partial: directories below that could not be read. */
  unreadable_dirs: z.number().optional(),
});

const totalSchema = z.object({
  host: z.string(),
  size: z.number(),
  size_partial: z.boolean().optional(),
  unreadable_dirs: z.number().optional(),
});

const output = {
  path: z.string(),
  depth: z.number(),
  rows: z.array(rowSchema),
  /** Each answering host's total of path itself (du's last line), in host order. */
  path_totals: z.array(totalSchema),
  total: z.number(),
  found: z.number(),
  start_index: z.number(),
  count: z.number(),
  next_cursor: z.string().optional(),
  truncated: z.boolean(),
  truncations: z.array(s.truncationSchema),
  notes: z.array(s.noteSchema).optional(),
  hosts: z.array(s.hostStatusSchema),
  scan: s.scanSchema.optional(),
};

type Args = z.output<z.ZodObject<typeof input>>;
type RowJson = z.infer<typeof rowSchema>;
type TotalJson = z.infer<typeof totalSchema>;
export type DiskUsageAnswer = z.infer<z.ZodObject<typeof output>>;

interface Plan {
  hosts: FleetHost[];
  /** The listing: directories down to depth, ranked by size (LISTED_FOR_TOTAL of them, the first top_n shown). */
  req: WalkRequest;
  /** path's own entries, every type, unsized: with the listing's depth-1 rows, the total. */
  childrenReq: WalkRequest;
  /** The walk that sums path's own entries (each dir sized) for the total, where the listing cannot give it. */
  totalReq: WalkRequest;
  topN: number;
  start: number;
  fingerprint: string;
}

export interface DiskUsage extends ToolResult {
  path: string;
  depth: number;
  multi: boolean;
  /** The merged top_n, largest first. */
  rows: DuRow[];
  /** Each answering host's total of path, in host order (a host whose total walk failed has none). */
  totals: DuTotal[];
  start: number;
  /** Directories over all hosts. */
  found: number;
  truncations: HostTruncation[];
  notes: HostNote[];
  cursorAfter(shown: number): string | undefined;
}

function totalJson(t: DuTotal): TotalJson {
  const out: TotalJson = { host: t.host, size: t.size };
  if (t.partial) out.size_partial = true;
  if (t.unreadableDirs) out.unreadable_dirs = t.unreadableDirs;
  return out;
}

type HostWalkFn = Parameters<typeof walkHost>[0];

/**
 * du's total of path: its own size and the sum of its children's (directories by their
 * recursive size, as the rows are). The walk engine lists children, never the path itself,
 * so the path's own size comes from a stat of it. An inode with several names among the
 * children counts once, as du counts it; one whose other name lies below is still counted
 * twice (that name was counted in its directory's size, which the gateway cannot see).
 */
async function hostTotal(
  walkFn: HostWalkFn,
  own: Promise<{ size: number }>,
  req: WalkRequest,
  signal: AbortSignal,
): Promise<DuTotalSize | undefined> {
  try {
    const children = await walkHost(walkFn, req, signal);
    let size = (await own).size;
    let partial = children.summary.entriesMatched > children.summary.entriesSent;
    let unreadableDirs = 0;
    const linked = new Set<number>();
    if (lossTruncations(children.summary).length > 0) partial = true;
    for (const row of children.rows) {
      if (row.kind !== 'entry') {
        partial = true;
        continue;
      }
      const { type, nlink, inode } = row.entry;
      // An inode of 0 is one the host cannot say (SFTP): such names are each counted.
      if (type !== 'dir' && nlink > 1 && inode > 0) {
        if (linked.has(inode)) continue;
        linked.add(inode);
      }
      if (row.entry.error) {
        partial = true;
        if (row.entry.error.code === 'DENIED') unreadableDirs++;
      } else size += row.entry.size;
      if (row.entry.sizePartial) partial = true;
      unreadableDirs += row.entry.unreadableDirs ?? 0;
    }
    return { size, partial, ...(unreadableDirs > 0 ? { unreadableDirs } : {}) };
  } catch {
    // The host's status comes from the listing walk; without its total the answer just has none.
    return undefined;
  }
}

function rowJson(r: DuRow): RowJson {
  const out: RowJson = { host: r.host, path: displayPath(r.path), size: r.size };
  if (r.allocated !== undefined) out.allocated = r.allocated;
  if (r.partial) out.size_partial = true;
  if (r.unreadableDirs) out.unreadable_dirs = r.unreadableDirs;
  return out;
}

function headline(l: DiskUsage, count: number): string {
  const hosts = l.hosts.filter((h) => h.status === 'ok').length;
  const on = `${hosts} host${hosts === 1 ? '' : 's'}`;
  // No host could size the path (not a directory, missing, denied): the failure lines below say why.
  if (hosts === 0 && l.hosts.length > 0) return `Could not size ${l.path} on any host:`;
  if (l.rows.length === 0) return `No directories under ${l.path} on ${on} (depth ${l.depth})`;
  const range = l.start > 0 || count < l.rows.length ? ` ${l.start + 1}-${l.start + count} of` : '';
  return `Largest directories under ${l.path} on ${on} (depth ${l.depth}, du -b --one-file-system${l.rows.some((r) => r.allocated !== undefined) ? '; ON DISK as du' : ''}):${range} ${l.rows.length} of ${l.found}`;
}

type DuWalk = HostWalk & { total?: DuTotalSize };

/** The walk as if it had ranked only `topN`: its first topN entries (a ranked list's prefix is the shorter ranking). */
function firstRanked(w: HostWalk, topN: number): HostWalk {
  let entries = 0;
  const rows: Row[] = [];
  for (const row of w.rows) {
    if (row.kind === 'entry' && ++entries > topN) continue;
    rows.push(row);
  }
  if (entries <= topN) return w;
  const { summary } = w;
  const truncations = summary.truncations.filter((t) => t.reason !== 'top_n');
  truncations.push({ dir: Buffer.alloc(0), shown: topN, total: summary.entriesMatched, reason: 'top_n' });
  return { rows, summary: { ...summary, entriesSent: topN, truncations } };
}

const duScan: ScanFace<Plan, DuWalk, DiskUsage> = {
  hosts: (p) => p.hosts,
  // Each host's listing, path's own entries and its stat run side by side, within the same
  // host budget; the total walk follows only where those cannot give du's total.
  task:
    (p) =>
    async (b, _h, signal, budgetMs): Promise<DuWalk> => {
      const started = Date.now();
      const walkFn = b.walk.bind(b);
      const own = b.stat(p.req.path, true, signal).then((s) => s.entry);
      const children = walkHost(walkFn, withinBudget(p.childrenReq, budgetMs), signal);
      // Settled now, so a failure while the listing runs is no unhandled rejection; the listing says the host's status.
      const side = Promise.all([own, children]).catch(() => undefined);
      const listing = await walkHost(walkFn, withinBudget(p.req, budgetMs), signal);
      const got = await side;
      let total = got && duTotalFromListing(got[0].size, listing, got[1]);
      total ??= await hostTotal(walkFn, own, withinBudget(p.totalReq, budgetMs - (Date.now() - started)), signal);
      return { ...firstRanked(listing, p.topN), total };
    },
  entries: (w) => w.summary.entriesSeen,
  rows: (w) => w.rows.length,
  ranked: () => true,
  scannable: (p) => p.start === 0,
  merge(p, results, _ctx, page?: ScanPage) {
    const { merged, found, truncations, notes } = mergeRankedWalks(results, p.req, (e) => e.type === 'dir' && !e.error);
    const rows = merged.slice(0, p.topN).map(({ host, entry }) => ({
      host,
      path: entry.path,
      size: entry.size,
      partial: entry.sizePartial === true,
      ...(entry.allocated !== undefined ? { allocated: entry.allocated } : {}),
      ...(entry.unreadableDirs ? { unreadableDirs: entry.unreadableDirs } : {}),
    }));
    return {
      path: p.req.path,
      depth: p.req.maxDepth,
      multi: p.hosts.length > 1,
      rows,
      totals: results.flatMap((r) => (r.value?.total ? [{ host: r.host.name, ...r.value.total }] : [])),
      found,
      truncations,
      notes,
      hosts: results.map((r) => r.status),
      ...offsetPage(p, rows.length, page),
    };
  },
};

/** A directory of disk_usage as a wire entry: its path, recursive size and whether that is a lower bound. */
function duEntry(
  host: string,
  path: Buffer,
  size: number,
  partial: boolean,
  why: { allocated?: number; unreadableDirs?: number } = {},
) {
  return {
    host,
    entry: entryOut({
      path,
      type: 'dir',
      size,
      mtimeSec: 0,
      mtimeNsec: 0,
      utcOffsetMin: 0,
      mode: 0,
      uid: 0,
      gid: 0,
      inode: 0,
      nlink: 0,
      depth: path.length === 0 ? 0 : path.toString('latin1').split('/').length,
      ...(partial ? { sizePartial: true } : {}),
      ...(why.allocated !== undefined ? { allocated: why.allocated } : {}),
      ...(why.unreadableDirs ? { unreadableDirs: why.unreadableDirs } : {}),
    }),
  };
}

function diskUsageToFleet(l: DiskUsage) {
  return {
    path: l.path,
    entries: l.rows.slice(l.start).map((r) => duEntry(r.host, r.path, r.size, r.partial, r)),
    pathTotals: l.totals.map((t) => duEntry(t.host, Buffer.alloc(0), t.size, t.partial, t)),
    startIndex: l.start,
    found: l.found,
    truncations: l.truncations.map(hostTruncationToWire),
    notes: notesToWire(l.notes),
    nextCursor: l.cursorAfter(l.rows.length - l.start) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

export const diskUsageTool = defineTool({
  name: 'disk_usage',
  title: 'Disk usage',
  description:
    'Where did the disk go? The largest directories under path by recursive size (du -x -d N), merged across hosts; a lower bound is marked ≥ and says why.',
  input,
  output,

  plan(a: Args, ctx): Plan {
    const fingerprint = queryFingerprint({
      tool: 'disk_usage',
      host: a.host,
      path: a.path,
      depth: a.depth,
      top_n: a.top_n,
      one_file_system: a.one_file_system,
    });
    const start =
      a.cursor === undefined
        ? 0
        : decodeCursorArg(decodeCursor, a.cursor, fingerprint, 'host, path, depth, top_n and one_file_system').offset;
    const req = resolveWalkRequest({
      path: a.path,
      shape: 'ranked',
      maxDepth: a.depth,
      order: 'size',
      direction: 'descending',
      topN: Math.max(a.top_n, LISTED_FOR_TOTAL),
      types: ['dir'],
      dirSizes: true,
      oneFileSystem: a.one_file_system,
      deadlineMs: walkDeadlineMs(ctx.options),
    });
    const children = {
      path: a.path,
      shape: 'ranked',
      maxDepth: 1,
      order: 'size',
      direction: 'descending',
      topN: TOTAL_CHILDREN,
      oneFileSystem: a.one_file_system,
      deadlineMs: walkDeadlineMs(ctx.options),
    } as const;
    const childrenReq = resolveWalkRequest(children);
    const totalReq = resolveWalkRequest({ ...children, dirSizes: true });
    return { hosts: ctx.fleet.select(a.host), req, childrenReq, totalReq, topN: a.top_n, start, fingerprint };
  },

  collect(p: Plan, ctx): Promise<DiskUsage> {
    return collectWith(duScan, p, ctx);
  },

  scan: duScan,

  mcp(l: DiskUsage, ctx) {
    const page = l.rows.slice(l.start);
    const jsons = page.map(rowJson);
    const hs = fitHostStatuses(l.hosts, ctx.options, (h) => hostFailureLine(h, l.path, l.multi));
    const failures = [...failureLines(hs.listed, l.path, l.multi), ...hs.lines];
    const build = (count: number, cut: AnswerCut): McpAnswer => {
      const next = l.cursorAfter(count);
      const why = duPartialNote(page.slice(0, count), l.path, l.multi);
      const { truncations, warnings } = pageCuts({
        hostCuts: l.truncations,
        path: l.path,
        statusCut: hs.truncation,
        lines: [...l.notes.map((n) => noteLine(n, true)), ...(why ? [why] : [])],
        count,
        total: page.length,
        noun: 'rows',
        cut,
      });
      const body = count > 0 ? ['', ...renderDuTable(page.slice(0, count), l.path, l.multi)] : [];
      if (l.totals.length > 0) body.push('', ...renderDuTotals(l.totals, l.path, l.multi));
      const structured: DiskUsageAnswer = {
        path: l.path,
        depth: l.depth,
        rows: jsons.slice(0, count),
        path_totals: l.totals.map(totalJson),
        total: l.rows.length,
        found: l.found,
        start_index: l.start,
        count,
        truncated: truncations.length > 0 || next !== undefined,
        truncations,
        ...hs.json,
      };
      if (next !== undefined) structured.next_cursor = next;
      if (l.notes.length > 0) structured.notes = l.notes;
      return { structured, text: [headline(l, count), ...body, ...warnings, ...failures].join('\n') };
    };
    // A table line is at most its widest cells: the size, a full bar, the host and the path.
    const widest = (r: DuRow) => `1023.9 MiB  ${'#'.repeat(40)}  ${r.host}  ${l.path}/${displayPath(r.path)}`;
    return fitAnswer({
      rows: page.length,
      rowCost: (i) => rowSize(widest(page[i]), jsons[i]),
      build,
      options: ctx.options,
    }).answer;
  },

  cli: {
    command: 'du',
    description: 'the largest directories under PATH by recursive size, across the selected hosts',
    argument: { syntax: '<SELECTOR:PATH>', description: 'hosts and absolute path, e.g. @web:/var' },
    switches: [
      {
        flag: '--cross-file-systems',
        help: 'also list mount points below PATH (one_file_system=false)',
        sets: { one_file_system: false },
      },
    ],
    render(l, style) {
      const out = l.rows.length > 0 ? renderDuTable(l.rows.slice(l.start), l.path, l.multi) : [];
      out.push(...renderDuTotals(l.totals, l.path, l.multi));
      const err = [style.dim(headline(l, l.rows.length - l.start))];
      for (const t of l.truncations) err.push(style.warn(`fleetls: ${truncationWarning(t, l.path)}`));
      const why = duPartialNote(l.rows.slice(l.start), l.path, l.multi);
      if (why) err.push(style.dim(`fleetls: ${why}`));
      return { out, err };
    },
  },

  fleet: { method: 'DiskUsage', present: diskUsageToFleet },
});
