// diff_directory's answer as a model reads it: the groups (named whole, or their first hosts
// past a quarter of the budget), then the differences within the answer budget beside their
// JSON, the hosts' walk cuts (equal ones told once past a quarter) and the failed hosts.
import {
  type DiffDifference,
  type DiffGroup,
  type DiffValue,
  diffDifferenceLines,
  diffGroupLine,
  diffGroupLines,
  displayPath,
  formatMtime,
  octalMode,
  treeTruncationLine,
  valueHolders,
} from '@fleetls/core';
import type { GatewayOptions } from '../../fleet/options.js';
import { rowBudgetBytes, rowSize } from '../shared/answer-size.js';
import type { HostTruncation } from '../shared/host-walks.js';
import { fitPage } from '../shared/page-answer.js';
import { pageEnd, type TruncationJson, truncationJson, truncationWarning } from '../shared/present.js';
import type { McpAnswer, ToolContext } from '../tool.js';
import type { DiffDirectoryAnswer, DirectoryDiff, ValueJson } from './shape.js';

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
  const cost = (i: number, shown: number) =>
    rowBudgetBytes(diffGroupLine(groups[i], i === 0, shown), groupJson(groups[i], i, shown), scale);
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

export function headline(listing: DirectoryDiff): string {
  const asked = listing.hosts.length;
  const on =
    listing.compared === asked ? `${asked} host${asked === 1 ? '' : 's'}` : `${listing.compared} of ${asked} hosts`;
  const how = `depth ${listing.depth}; compared: ${listing.compare.join(', ')}`;
  const pending = listing.hosts.filter((h) => h.status === 'pending').length;
  if (pending > 0)
    return `diff ${listing.path}: waiting for ${pending} of ${asked} hosts; the groups come once every host has answered (${how})`;
  if (listing.compared === 0) return `diff ${listing.path}: no host could be listed (${how})`;
  const groups = listing.diff.groups.length;
  if (groups === 1 && listing.diff.differences.length === 0)
    return `diff ${listing.path} on ${on}: all identical (${how})`;
  const n = listing.diff.differences.length;
  return `diff ${listing.path} on ${on}: ${groups} group${groups === 1 ? '' : 's'}, ${n} difference${n === 1 ? '' : 's'} (${how})`;
}

/** Caps that bit, per host: where only what both sides listed was compared. */
export function cuts(listing: DirectoryDiff): HostTruncation[] {
  return listing.diff.capped.map(({ host, truncation }) => ({ host, truncation }));
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
  const cost = (line: string, json: TruncationJson) => rowBudgetBytes(line, json, scale);
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

/** The MCP answer: the groups, then the page's differences, cut to the answer budget. */
export function presentDiff(listing: DirectoryDiff, ctx: ToolContext): McpAnswer {
  const names = fitGroupNames(listing.diff.groups, ctx.options);
  const head = [headline(listing), ...diffGroupLines(listing.diff.groups, names.shown)];
  const page = listing.diff.differences.slice(listing.start);
  const notCompared = names.cut ? NOT_COMPARED_NAMED : Number.POSITIVE_INFINITY;
  const texts = page.map((d) => diffDifferenceLines(d, listing.diff.groups, notCompared));
  const jsons = page.map((d) => differenceJson(d, listing.diff.groups, names));
  const hostCuts = fitHostCuts(cuts(listing), listing.path, ctx.options);
  return fitPage(listing, {
    multi: true,
    rows: page.length,
    rowCost: (i) => rowSize(texts[i].join('\n'), jsons[i]),
    noun: 'differences',
    hostCuts: hostCuts.each,
    lines: () => [
      ...hostCuts.lines,
      ...(listing.diff.capped.length > 0
        ? ['[NOTE] where a host listed a directory in part, only what both sides listed is compared']
        : []),
      ...names.lines,
    ],
    page(count, { next, truncations, hosts }) {
      truncations.unshift(...hostCuts.records);
      if (names.cut) truncations.unshift(names.cut);
      const body = count > 0 ? ['', ...texts.slice(0, count).flat()] : [];
      const structured: DiffDirectoryAnswer = {
        path: listing.path,
        compare: [...listing.compare],
        depth: listing.depth,
        groups: listing.diff.groups.map((g, i) => groupJson(g, i, names.shown[i])),
        differences: jsons.slice(0, count),
        total: listing.diff.differences.length,
        ...pageEnd({ start: listing.start, count, total: listing.diff.differences.length, truncations, hosts, next }),
      };
      return { structured, text: [...head, ...body] };
    },
    options: ctx.options,
  });
}
