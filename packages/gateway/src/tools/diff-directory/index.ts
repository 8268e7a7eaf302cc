// diff_directory: the same tree on every selected host, hosts grouped by identical listings
// under the compared attributes (the largest group is the baseline), then only the entries
// that differ, each with which hosts have which value. Metadata only, never contents.
// Identical hosts cost one line however many there are; a host that failed is a status row.
// Over thousands of hosts a group names its first hosts and counts the rest (fitGroupNames),
// and the call holds each distinct tree once, not each host's (core's DistinctListings).
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  COMPARE_ATTRIBUTES,
  type DiffValue,
  DistinctListings,
  diffDifferenceLines,
  diffGroupLines,
  diffHosts,
  type Entry,
  resolveWalkRequest,
  type Truncation,
} from '@fleetls/core';
import type { DiffDirectoryResponseSchema } from '@fleetls/proto/fleet_pb';
import { PartialFailure } from '../../fleet/fan-out.js';
import { offsetPage, type ScanFace, type ScanPage, withScan } from '../../scans/face.js';
import { offsetQuery } from '../shared/cursor-arg.js';
import { entryOut, int64, textOf } from '../shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire } from '../shared/fleet-present.js';
import { type HostWalk, walkDeadlineMs, walkTask } from '../shared/host-walks.js';
import { truncationWarning } from '../shared/present.js';
import { defineTool, type HostTask, hostPathArgument } from '../tool.js';
import { cuts, headline, presentDiff } from './present.js';
import { type DirectoryDiff, input, output, type Plan } from './shape.js';

export type { DiffDirectoryAnswer, DirectoryDiff } from './shape.js';

/**
 * Rows one host may send. The gateway holds every distinct tree to compare them (hosts with
 * the same tree share one), so the rows are shared out as if each host's were distinct: at
 * most about a million over the call, 200,000 per host, never fewer than 10,000. A host cut
 * there is compared only where it listed, and says so.
 */
function maxEntriesPerHost(hosts: number): number {
  return Math.min(200_000, Math.max(10_000, Math.floor(1_000_000 / Math.max(1, hosts))));
}

/**
 * What a call keeps of one host: which listing it gave (its rows are in the plan's
 * DistinctListings, shared with every host of the same tree), and its counts.
 */
interface HostListing {
  listing: number;
  entriesSeen: number;
  /** The rows this host added to the call's memory: its listing's, when it was the first with it. */
  rows: number;
}

/**
 * A host's walk as the call keeps it: its rows into the call's distinct listings, and only its
 * listing's id. A walk that broke partway knows nothing of what it did not list.
 */
function keepListing(listings: DistinctListings, w: HostWalk, broken = false): HostListing {
  const entries: Entry[] = [];
  const truncations: Truncation[] = [];
  for (const row of w.rows) {
    if (row.kind === 'entry') entries.push(row.entry);
    else truncations.push(row.truncation);
  }
  const kept = listings.add(entries, [...truncations, ...w.summary.truncations], broken);
  // A host that added nothing still weighs one row in the scan store's bound.
  return { listing: kept.id, entriesSeen: w.summary.entriesSeen, rows: Math.max(1, kept.rows) };
}

/**
 * The walk of one host, kept as it arrives. A walk that broke after some rows is compared
 * where it listed (its status says it broke): what it did not list is not claimed absent.
 */
function listingTask(p: Plan): HostTask<HostListing> {
  const walk = walkTask(p.req);
  return async (backend, host, signal, budgetMs) => {
    try {
      return keepListing(p.listings, await walk(backend, host, signal, budgetMs));
    } catch (err) {
      if (!(err instanceof PartialFailure)) throw err;
      const partial = err.partial as HostWalk;
      throw new PartialFailure<HostListing>(
        keepListing(p.listings, partial, true),
        `the walk broke after ${partial.rows.length} rows`,
        err.cause,
        err.code,
      );
    }
  };
}

const diffScan: ScanFace<Plan, HostListing, DirectoryDiff> = {
  hosts: (p) => p.hosts,
  task: listingTask,
  entries: (w) => w.entriesSeen,
  rows: (w) => w.rows,
  // Groups are of every host: a scan's pages carry statuses until the last, which has the diff.
  whole: true,
  scannable: (p) => p.start === 0,
  merge(p, results, _ctx, page?: ScanPage) {
    const listed = results.flatMap((r) => (r.value ? [{ host: r.host.name, listing: r.value.listing }] : []));
    const diff = diffHosts(p.listings, listed);
    return {
      path: p.req.path,
      depth: p.req.maxDepth,
      compare: p.compare,
      diff,
      compared: listed.length,
      hosts: results.map((r) => r.status),
      ...offsetPage(p, diff.differences.length, page),
    };
  },
};

/** A diff value as an Entry of the agent contract: its compared attributes set, the rest zero. */
function diffEntry(v: DiffValue): Entry {
  const e: Entry = {
    path: Buffer.alloc(0),
    type: v.type ?? 'unknown',
    size: v.size ?? 0,
    mtimeSec: v.mtimeSec ?? 0,
    mtimeNsec: v.mtimeNsec ?? 0,
    utcOffsetMin: 0,
    mode: v.mode ?? 0,
    uid: v.uid ?? 0,
    gid: v.gid ?? 0,
    inode: 0,
    nlink: 0,
    depth: 0,
  };
  if (v.linkTarget !== undefined) e.linkTarget = v.linkTarget;
  if (v.error !== undefined) e.error = { code: v.error, detail: '' };
  return e;
}

function diffToFleet(l: DirectoryDiff): MessageInitShape<typeof DiffDirectoryResponseSchema> {
  return {
    path: l.path,
    compare: [...l.compare],
    groups: l.diff.groups.map((g) => ({ id: g.id, hosts: g.hosts })),
    differences: l.diff.differences.slice(l.start).map((d) => ({
      path: d.path,
      values: d.values.map(({ value, hosts }) =>
        value.present ? { hosts, present: true, entry: entryOut(diffEntry(value)) } : { hosts, present: false },
      ),
      notCompared: d.notCompared,
      ...textOf('pathText', d.path),
    })),
    startIndex: int64(l.start),
    total: int64(l.diff.differences.length),
    truncations: l.diff.capped.map(hostTruncationToWire),
    // Whole here (no byte budget): only a scan's page has one to follow.
    nextCursor: l.cursorAfter(l.diff.differences.length - l.start) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

export const diffDirectoryTool = defineTool({
  name: 'diff_directory',
  title: 'Compare across hosts',
  description:
    'Do these hosts have the same tree under path? Hosts grouped by identical listing (largest group first), then only what differs and which hosts have each value.',
  input,
  output,

  plan(a, ctx): Plan {
    const hosts = ctx.fleet.select(a.host);
    const compare = COMPARE_ATTRIBUTES.filter((c) => a.compare.includes(c));
    const { fingerprint, start } = offsetQuery('diff_directory', { ...a, compare }, [
      'host',
      'path',
      'depth',
      'compare',
      'max_items_per_dir',
    ]);
    const req = resolveWalkRequest({
      path: a.path,
      shape: 'tree',
      maxDepth: a.depth,
      maxItemsPerDir: a.max_items_per_dir,
      maxEntries: maxEntriesPerHost(hosts.length),
      deadlineMs: walkDeadlineMs(ctx.options),
    });
    return { hosts, req, compare, fingerprint, start, listings: new DistinctListings(compare) };
  },

  ...withScan(diffScan),
  mcp: presentDiff,

  cli: {
    command: 'diff',
    description: 'compare PATH across the selected hosts: groups of identical hosts, then what differs',
    argument: hostPathArgument('web-*:/etc/nginx'),
    render(l, style) {
      const out = [style.bold(headline(l)), ...diffGroupLines(l.diff.groups)];
      for (const d of l.diff.differences.slice(l.start)) out.push('', ...diffDifferenceLines(d, l.diff.groups));
      const err = cuts(l).map((t) => style.warn(`fleetls: ${truncationWarning(t, l.path)}`));
      return { out, err };
    },
  },

  fleet: { method: 'DiffDirectory', present: diffToFleet },
});
