// disk_usage: where the space went. The largest directories under path by recursive apparent
// size (du -b --one-file-system), down to `depth` levels, on each host and merged across
// hosts (largest first, `host` on every row), bounded by the walk's deadline (a size that
// is only a lower bound says so), and each host's total of path itself (du's last line).
// Its text is a table a person reads at a glance.
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  type DuTotalSize,
  duPartialNote,
  duTotalFromListing,
  type Entry,
  lazyRawEntry,
  type Row,
  renderDuTable,
  renderDuTotals,
  resolveWalkRequest,
  toEntry,
  type WalkRequest,
} from '@fleetls/core';
import type { DiskUsageResponseSchema } from '@fleetls/proto/fleet_pb';
import { offsetPage, type ScanFace, type ScanPage, withScan } from '../../scans/face.js';
import { offsetQuery } from '../shared/cursor-arg.js';
import { entryOut, int64 } from '../shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire, notesToWire } from '../shared/fleet-present.js';
import {
  type HostWalk,
  lossTruncations,
  mergeRankedWalks,
  rankedCut,
  walkDeadlineMs,
  walkHost,
  withinBudget,
} from '../shared/host-walks.js';
import { truncationWarning } from '../shared/present.js';
import { defineTool, hostPathArgument } from '../tool.js';
import { headline, presentDiskUsage } from './present.js';
import { type DiskUsage, input, output, type Plan } from './shape.js';

export type { DiskUsage, DiskUsageAnswer } from './shape.js';

/** Children of path summed for its total, at most (the agents' top-N ceiling): more makes the total a lower bound. */
const TOTAL_CHILDREN = 100_000;
/**
 * Rows each host ranks, at least: more than top_n, so that path's depth-1 directories are
 * among them and its total comes from the listing (duTotalFromListing) rather than a second
 * walk of the tree. The host keeps only its first top_n once the total is taken.
 */
const LISTED_FOR_TOTAL = 1000;

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

/** The rows disk_usage shows: directories that could be read. */
const isListedDir = (e: Entry) => e.type === 'dir' && !e.error;

const duScan: ScanFace<Plan, DuWalk, DiskUsage> = {
  hosts: (p) => p.hosts,
  // Each host's listing, path's own entries and its stat run side by side, within the same
  // host budget; the total walk follows only where those cannot give du's total.
  // A host keeps only the directories that may still rank within top_n over the call's hosts.
  task: (p) => {
    const cut = rankedCut(p.req, p.topN, isListedDir);
    return async (b, h, signal, budgetMs): Promise<DuWalk> => {
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
      const ranked = firstRanked(listing, p.topN);
      return { ...ranked, rows: cut(h.name, ranked.rows), total };
    };
  },
  entries: (w) => w.summary.entriesSeen,
  rows: (w) => w.rows.length,
  ranked: () => true,
  scannable: (p) => p.start === 0,
  merge(p, results, _ctx, page?: ScanPage) {
    const { merged, found, truncations, notes } = mergeRankedWalks(results, p.req, isListedDir);
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

/**
 * A directory of disk_usage as a wire entry: its path and type, its recursive size and whether
 * that is a lower bound; no stat of its own (every other number 0, as core's lazy entry).
 */
function duEntry(
  host: string,
  path: Buffer,
  size: number,
  partial: boolean,
  why: { allocated?: number; unreadableDirs?: number } = {},
) {
  const depth = path.length === 0 ? 0 : path.toString('latin1').split('/').length;
  return {
    host,
    entry: entryOut({
      ...toEntry(lazyRawEntry(path, 'dir'), path, depth, path),
      size,
      ...(partial ? { sizePartial: true } : {}),
      ...(why.allocated !== undefined ? { allocated: why.allocated } : {}),
      ...(why.unreadableDirs ? { unreadableDirs: why.unreadableDirs } : {}),
    }),
  };
}

function diskUsageToFleet(l: DiskUsage): MessageInitShape<typeof DiskUsageResponseSchema> {
  return {
    path: l.path,
    entries: l.rows.slice(l.start).map((r) => duEntry(r.host, r.path, r.size, r.partial, r)),
    pathTotals: l.totals.map((t) => duEntry(t.host, Buffer.alloc(0), t.size, t.partial, t)),
    startIndex: int64(l.start),
    found: int64(l.found),
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

  plan(a, ctx): Plan {
    const { fingerprint, start } = offsetQuery('disk_usage', a, ['host', 'path', 'depth', 'top_n', 'one_file_system']);
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

  ...withScan(duScan),

  mcp: presentDiskUsage,

  cli: {
    command: 'du',
    description: 'the largest directories under PATH by recursive size, across the selected hosts',
    argument: hostPathArgument('@web:/var'),
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
