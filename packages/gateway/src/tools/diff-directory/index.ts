// diff_directory: the same tree on every selected host, hosts grouped by identical listings
// under the compared attributes (the largest group is the baseline), then only the entries
// that differ, each with which hosts have which value. Metadata only, never contents.
// Identical hosts cost one line however many there are; a host that failed is a status row.
// Over thousands of hosts a group names its first hosts and counts the rest (fitGroupNames),
// and the call holds each distinct tree once, not each host's (core's DistinctListings).
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  COMPARE_ATTRIBUTES,
  type CompareAttribute,
  DEFAULT_COMPARE,
  type DiffDifference,
  type DiffGroup,
  type DiffValue,
  type DirDiff,
  DistinctListings,
  diffDifferenceLines,
  diffGroupLine,
  diffGroupLines,
  diffHosts,
  displayPath,
  type Entry,
  formatMtime,
  octalMode,
  resolveWalkRequest,
  type Truncation,
  treeTruncationLine,
  valueHolders,
  type WalkRequest,
} from '@fleetls/core';
import type { DiffDirectoryResponseSchema } from '@fleetls/proto/fleet_pb';
import { z } from 'zod';
import { PartialFailure } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import type { GatewayOptions } from '../../fleet/options.js';
import { offsetPage, type ScanFace, type ScanPage, withScan } from '../../scans/face.js';
import * as s from '../schemas.js';
import { type AnswerCut, fitAnswer, rowSize } from '../shared/answer-size.js';
import { offsetQuery } from '../shared/cursor-arg.js';
import { entryOut, int64, textOf } from '../shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire } from '../shared/fleet-present.js';
import { fitFailedHosts } from '../shared/host-statuses.js';
import { type HostTruncation, type HostWalk, walkDeadlineMs, walkTask } from '../shared/host-walks.js';
import { pageCuts, pageEnd, type TruncationJson, truncationJson, truncationWarning } from '../shared/present.js';
import { defineTool, type HostTask, type McpAnswer, type ToolResult } from '../tool.js';

const DEPTH = { ...s.DEPTH, default: 2 } as const;
const ITEMS = { ...s.ITEMS_PER_DIR, default: 1000 } as const;
/**
 * Rows one host may send. The gateway holds every distinct tree to compare them (hosts with
 * the same tree share one), so the rows are shared out as if each host's were distinct: at
 * most about a million over the call, 200,000 per host, never fewer than 10,000. A host cut
 * there is compared only where it listed, and says so.
 */
function maxEntriesPerHost(hosts: number): number {
  return Math.min(200_000, Math.max(10_000, Math.floor(1_000_000 / Math.max(1, hosts))));
}

const input = {
  host: s.host(),
  path: s.path,
  depth: s
    .int('depth', DEPTH.min, DEPTH.max)
    .default(DEPTH.default)
    .describe('Levels compared (1 = the path’s own entries)'),
  compare: z
    .array(
      z.enum(COMPARE_ATTRIBUTES, {
        error: (iss) =>
          `compare: ${JSON.stringify(iss.input)} is not an attribute; use any of ${COMPARE_ATTRIBUTES.join(', ')}`,
      }),
      { error: `compare must be a list of ${COMPARE_ATTRIBUTES.join(', ')}` },
    )
    .min(1, { error: 'compare must name at least one attribute' })
    .max(COMPARE_ATTRIBUTES.length * 2, { error: 'compare lists too many attributes' })
    .default([...DEFAULT_COMPARE])
    .describe('Attributes compared (owner: uid and gid)'),
  max_items_per_dir: s
    .int('max_items_per_dir', ITEMS.min, ITEMS.max)
    .default(ITEMS.default)
    .describe('Entries compared per nested directory'),
  cursor: s.cursor(2048, 'same arguments'),
};

const valueSchema = z.object({
  hosts: z
    .array(z.string())
    .describe('Hosts with this value; where groups name only their first hosts, the hosts beyond `groups`'),
  groups: z.array(z.string()).optional().describe('Groups whose compared hosts all have this value'),
  present: z.boolean(),
  type: z.string().optional(),
  link_target: z.string().optional(),
  size: z.number().optional(),
  mode: z.string().optional(),
  uid: z.number().optional(),
  gid: z.number().optional(),
  mtime: z.string().optional(),
  error: z.string().optional(),
});

const output = {
  path: z.string(),
  compare: z.array(z.string()),
  depth: z.number(),
  groups: z.array(
    z.object({
      id: z.string(),
      count: z.number(),
      baseline: z.boolean(),
      hosts: z.array(z.string()).describe('Its hosts; over many hosts the first few (count has them all)'),
    }),
  ),
  differences: z.array(
    z.object({
      path: z.string(),
      values: z.array(valueSchema),
      not_compared: z.array(z.string()).optional(),
      not_compared_count: z.number().optional(),
    }),
  ),
  total: z.number(),
  start_index: z.number(),
  count: z.number(),
  next_cursor: z.string().optional(),
  ...s.cutFields,
  hosts: z.array(s.hostStatusSchema),
  scan: s.scanSchema.optional(),
};

type ValueJson = z.infer<typeof valueSchema>;
export type DiffDirectoryAnswer = s.Parsed<typeof output>;

interface Plan {
  hosts: FleetHost[];
  req: WalkRequest;
  compare: CompareAttribute[];
  fingerprint: string;
  start: number;
  /** The call's distinct listings: each host's walk is kept here as it arrives, once per distinct tree. */
  listings: DistinctListings;
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

export interface DirectoryDiff extends ToolResult {
  path: string;
  depth: number;
  compare: readonly string[];
  diff: DirDiff;
  /** Hosts whose listings were compared. */
  compared: number;
  start: number;
  cursorAfter(shown: number): string | undefined;
}

function valueJson(v: DiffValue, hosts: string[]): ValueJson {
  const out: ValueJson = { hosts, present: v.present };
  if (v.type !== undefined) out.type = v.type === 'dir' ? 'directory' : v.type;
  if (v.linkTarget !== undefined) out.link_target = displayPath(v.linkTarget);
  if (v.size !== undefined) out.size = v.size;
  if (v.mode !== undefined) out.mode = octalMode(v.mode);
  if (v.uid !== undefined) out.uid = v.uid;
  if (v.gid !== undefined) out.gid = v.gid;
  if (v.mtimeSec !== undefined) out.mtime = formatMtime(v.mtimeSec, v.mtimeNsec ?? 0, 0);
  if (v.error !== undefined) out.error = v.error;
  return out;
}

/**
 * A difference as JSON. Where groups name only their first hosts (`names`), a value names its
 * groups (and the hosts beyond them), and the hosts not compared are named up to a few.
 */
function differenceJson(
  d: DiffDifference,
  groups: readonly DiffGroup[],
  names: GroupNames,
): DiffDirectoryAnswer['differences'][number] {
  if (!names.cut) {
    const out: DiffDirectoryAnswer['differences'][number] = {
      path: displayPath(d.path),
      values: d.values.map((x) => valueJson(x.value, x.hosts)),
    };
    if (d.notCompared.length > 0) out.not_compared = d.notCompared;
    return out;
  }
  const notCompared = new Set(d.notCompared);
  const out: DiffDirectoryAnswer['differences'][number] = {
    path: displayPath(d.path),
    values: d.values.map((x) => {
      const who = valueHolders(x.hosts, groups, notCompared);
      return { groups: who.groups, ...valueJson(x.value, who.others) };
    }),
  };
  if (d.notCompared.length > 0) {
    out.not_compared = d.notCompared.slice(0, NOT_COMPARED_NAMED);
    out.not_compared_count = d.notCompared.length;
  }
  return out;
}

/** Of each budget: what the groups' host names may take before a group names only its first hosts. */
const GROUP_NAMES_SHARE = 1 / 4;
/** Hosts a group names at least when it names only its first. */
const FIRST_NAMES = 5;
/** Hosts not compared named in a difference when groups name only their first hosts. */
const NOT_COMPARED_NAMED = 20;

/** How many hosts each group names in the answer, and the cut when some are only counted. */
interface GroupNames {
  shown: number[];
  cut?: TruncationJson;
  lines: string[];
}

function groupJson(g: DiffGroup, i: number, shown: number): DiffDirectoryAnswer['groups'][number] {
  return { id: g.id, count: g.hosts.length, baseline: i === 0, hosts: g.hosts.slice(0, shown) };
}

/**
 * Every group names all its hosts while their names take at most a quarter of each budget (as
 * every host's status row does at most 3/4: a few hundred hosts). Past that a group names its
 * first few and counts the rest; the smallest groups (the odd hosts a diff is asked for) are
 * named whole first, as long as the quarter lasts. The cut is a record and a line, never silent.
 */
function fitGroupNames(
  groups: readonly DiffGroup[],
  options: Pick<GatewayOptions, 'maxAnswerBytes' | 'maxAnswerTokens'>,
): GroupNames {
  const { maxAnswerBytes: maxBytes, maxAnswerTokens: maxTokens } = options;
  const scale = maxBytes / maxTokens;
  const cost = (i: number, shown: number) => {
    const r = rowSize(diffGroupLine(groups[i], i === 0, shown), groupJson(groups[i], i, shown));
    return Math.max(r.bytes, Math.ceil(r.tokens * scale));
  };
  const share = maxBytes * GROUP_NAMES_SHARE;
  const all = groups.map((g) => g.hosts.length);
  const whole = groups.map((g, i) => cost(i, g.hosts.length));
  if (whole.reduce((a, b) => a + b, 0) <= share) return { shown: all, lines: [] };
  const shown = groups.map((g) => Math.min(FIRST_NAMES, g.hosts.length));
  const first = shown.map((n, i) => cost(i, n));
  let used = first.reduce((a, b) => a + b, 0);
  const smallestFirst = groups.map((_, i) => i).sort((a, b) => all[a] - all[b] || a - b);
  for (const i of smallestFirst) {
    if (shown[i] === all[i] || used + whole[i] - first[i] > share) continue;
    used += whole[i] - first[i];
    shown[i] = all[i];
  }
  const named = shown.reduce((a, b) => a + b, 0);
  const total = all.reduce((a, b) => a + b, 0);
  const counted = groups.filter((_, i) => shown[i] < all[i]).map((g) => g.id);
  return {
    shown,
    cut: { reason: 'group_hosts', shown: named, total },
    lines: [
      `[NOTE] ${total} hosts compared: ${counted.length === 1 ? `group ${counted[0]} names its` : `groups ${counted.join(', ')} name their`} ` +
        `first hosts and count${counted.length === 1 ? 's' : ''} the rest (${named} of ${total} named; truncations: group_hosts). ` +
        'Each host compared is in exactly one group, and a difference names its groups (values[].groups). ' +
        'Ask fewer hosts to see every name.',
    ],
  };
}

function headline(l: DirectoryDiff): string {
  const asked = l.hosts.length;
  const on = l.compared === asked ? `${asked} host${asked === 1 ? '' : 's'}` : `${l.compared} of ${asked} hosts`;
  const how = `depth ${l.depth}; compared: ${l.compare.join(', ')}`;
  const pending = l.hosts.filter((h) => h.status === 'pending').length;
  if (pending > 0)
    return `diff ${l.path}: waiting for ${pending} of ${asked} hosts; the groups come once every host has answered (${how})`;
  if (l.compared === 0) return `diff ${l.path}: no host could be listed (${how})`;
  const groups = l.diff.groups.length;
  if (groups === 1 && l.diff.differences.length === 0) return `diff ${l.path} on ${on}: all identical (${how})`;
  const n = l.diff.differences.length;
  return `diff ${l.path} on ${on}: ${groups} group${groups === 1 ? '' : 's'}, ${n} difference${n === 1 ? '' : 's'} (${how})`;
}

/** Caps that bit, per host: where only what both sides listed was compared. */
function cuts(l: DirectoryDiff): HostTruncation[] {
  return l.diff.capped.map(({ host, truncation }) => ({ host, truncation }));
}

/** Of each budget: what the hosts' walk cuts may take one by one before equal cuts are told once. */
const HOST_CUTS_SHARE = 1 / 4;

/** The hosts' walk cuts as the answer tells them: each (pageCuts'), or equal ones once with their count. */
interface FittedCuts {
  /** Cuts told one by one (pageCuts makes their records and lines). */
  each: HostTruncation[];
  records: TruncationJson[];
  lines: string[];
}

/**
 * Every host's cut is a record and a line while they take at most a quarter of each budget.
 * Past that (a directory over max_items_per_dir on thousands of hosts was a record per host,
 * over the whole budget: the call was refused), equal cuts are told once, with how many hosts
 * had them and the first; kinds of cut past the quarter are counted in a last record and line.
 */
function fitHostCuts(
  cuts: readonly HostTruncation[],
  path: string,
  options: Pick<GatewayOptions, 'maxAnswerBytes' | 'maxAnswerTokens'>,
): FittedCuts {
  const { maxAnswerBytes: maxBytes, maxAnswerTokens: maxTokens } = options;
  const scale = maxBytes / maxTokens;
  const share = maxBytes * HOST_CUTS_SHARE;
  const cost = (line: string, json: TruncationJson) => {
    const r = rowSize(line, json);
    return Math.max(r.bytes, Math.ceil(r.tokens * scale));
  };
  let all = 0;
  for (let i = 0; i < cuts.length && all <= share; i++)
    all += cost(truncationWarning(cuts[i], path), truncationJson(cuts[i].host, cuts[i].truncation));
  if (all <= share) return { each: [...cuts], records: [], lines: [] };
  const kinds = new Map<string, { first: HostTruncation; hosts: number }>();
  for (const c of cuts) {
    const t = c.truncation;
    const key = `${t.reason}\0${t.shown}\0${t.total}\0${t.dir.toString('latin1')}`;
    const kind = kinds.get(key);
    if (kind) kind.hosts++;
    else kinds.set(key, { first: c, hosts: 1 });
  }
  const records: TruncationJson[] = [];
  const lines: string[] = [];
  let used = 0;
  let told = 0;
  for (const { first, hosts } of kinds.values()) {
    const record = { ...truncationJson(first.host, first.truncation), hosts };
    const line =
      hosts === 1
        ? truncationWarning(first, path)
        : `${first.host} and ${hosts - 1} more hosts: ${treeTruncationLine(first.truncation, path)}`;
    used += cost(line, record);
    if (used > share) break;
    records.push(record);
    lines.push(line);
    told += hosts;
  }
  if (records.length < kinds.size) {
    records.push({ reason: 'host_cuts', shown: records.length, total: kinds.size });
    lines.push(
      `[WARNING] ${kinds.size - records.length + 1} more kinds of walk cut on ${cuts.length - told} host cuts not listed (truncations: host_cuts); ask fewer hosts to see each`,
    );
  }
  return { each: [], records, lines };
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

  mcp(l: DirectoryDiff, ctx) {
    const names = fitGroupNames(l.diff.groups, ctx.options);
    const head = [headline(l), ...diffGroupLines(l.diff.groups, names.shown)];
    const page = l.diff.differences.slice(l.start);
    const notCompared = names.cut ? NOT_COMPARED_NAMED : Number.POSITIVE_INFINITY;
    const texts = page.map((d) => diffDifferenceLines(d, l.diff.groups, notCompared));
    const jsons = page.map((d) => differenceJson(d, l.diff.groups, names));
    const hs = fitFailedHosts(l.hosts, l.path, true, ctx.options);
    const hostCuts = fitHostCuts(cuts(l), l.path, ctx.options);
    const build = (count: number, cut: AnswerCut): McpAnswer => {
      const next = l.cursorAfter(count);
      const { truncations, warnings } = pageCuts({
        hostCuts: hostCuts.each,
        path: l.path,
        statusCut: hs.truncation,
        lines: [
          ...hostCuts.lines,
          ...(l.diff.capped.length > 0
            ? ['[NOTE] where a host listed a directory in part, only what both sides listed is compared']
            : []),
          ...names.lines,
        ],
        count,
        total: page.length,
        noun: 'differences',
        cut,
      });
      truncations.unshift(...hostCuts.records);
      if (names.cut) truncations.unshift(names.cut);
      const body = count > 0 ? ['', ...texts.slice(0, count).flat()] : [];
      const structured: DiffDirectoryAnswer = {
        path: l.path,
        compare: [...l.compare],
        depth: l.depth,
        groups: l.diff.groups.map((g, i) => groupJson(g, i, names.shown[i])),
        differences: jsons.slice(0, count),
        total: l.diff.differences.length,
        ...pageEnd({ start: l.start, count, total: l.diff.differences.length, truncations, hosts: hs.json, next }),
      };
      return { structured, text: [...head, ...body, ...warnings, ...hs.failures].join('\n') };
    };
    return fitAnswer({
      rows: page.length,
      rowCost: (i) => rowSize(texts[i].join('\n'), jsons[i]),
      build,
      options: ctx.options,
    }).answer;
  },

  cli: {
    command: 'diff',
    description: 'compare PATH across the selected hosts: groups of identical hosts, then what differs',
    argument: { syntax: '<SELECTOR:PATH>', description: 'hosts and absolute path, e.g. web-*:/etc/nginx' },
    render(l, style) {
      const out = [style.bold(headline(l)), ...diffGroupLines(l.diff.groups)];
      for (const d of l.diff.differences.slice(l.start)) out.push('', ...diffDifferenceLines(d, l.diff.groups));
      const err = cuts(l).map((t) => style.warn(`fleetls: ${truncationWarning(t, l.path)}`));
      return { out, err };
    },
  },

  fleet: { method: 'DiffDirectory', present: diffToFleet },
});
