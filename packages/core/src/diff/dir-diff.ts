// diff_directory's pure part: the same tree listed on many hosts, hosts grouped by identical
// listings under the compared attributes, and only the entries that differ, each with which
// hosts have which value. Metadata only. A directory a host listed only in part (a cap
// bit) or not at all (an ancestor is missing there) is not evidence of absence: such hosts
// are left out of that entry's comparison, and the answer says so.

import type { Entry, EntryErrorCode, EntryType, Truncation } from '../domain/types.js';
import { invalidArgument } from '../errors/errors.js';
import { compareNames } from '../order/order.js';

export const COMPARE_ATTRIBUTES = ['type', 'size', 'mode', 'owner', 'mtime'] as const;
export type CompareAttribute = (typeof COMPARE_ATTRIBUTES)[number];
export const DEFAULT_COMPARE: readonly CompareAttribute[] = ['type', 'size', 'mode', 'owner'];

/** Checks a `compare` list: known attributes only, at least one, no repeats kept. */
export function parseCompare(value: unknown): CompareAttribute[] {
  if (value === undefined) return [...DEFAULT_COMPARE];
  if (!Array.isArray(value) || value.length === 0 || value.length > COMPARE_ATTRIBUTES.length * 2) {
    throw invalidArgument(`compare: a non-empty list of ${COMPARE_ATTRIBUTES.join(', ')}`);
  }
  const out = new Set<CompareAttribute>();
  for (const [i, v] of value.entries()) {
    if (!(COMPARE_ATTRIBUTES as readonly unknown[]).includes(v)) {
      throw invalidArgument(
        `compare[${i}]: ${JSON.stringify(v)} is not an attribute; use any of ${COMPARE_ATTRIBUTES.join(', ')}`,
      );
    }
    out.add(v as CompareAttribute);
  }
  return COMPARE_ATTRIBUTES.filter((a) => out.has(a));
}

/** One host's listing of the tree, as the walk gave it. */
export interface HostTree {
  host: string;
  /** Entry rows, error rows included (a directory's error row follows its entry row). */
  entries: Entry[];
  /** Every truncation the walk reported (per directory and whole-walk). */
  truncations: Truncation[];
}

/** What one host has at one path, under the compared attributes. Absent: only `present: false`. */
export interface DiffValue {
  present: boolean;
  type?: EntryType;
  /** Not compared for directories (their own size says little; their children are compared). */
  size?: number;
  mode?: number;
  uid?: number;
  gid?: number;
  mtimeSec?: number;
  mtimeNsec?: number;
  /** A symlink's target, with `type`. */
  linkTarget?: Buffer;
  error?: EntryErrorCode;
}

export interface DiffGroup {
  /** 'A' for the largest group (the baseline), then 'B', 'C'… */
  id: string;
  hosts: string[];
}

export interface DiffDifference {
  /** Relative to the compared path, raw bytes. */
  path: Buffer;
  /** Each value with the hosts that have it: the baseline's first, then by host count. */
  values: { value: DiffValue; hosts: string[] }[];
  /** Hosts that could not say (a cap bit, or an ancestor is missing or unreadable there). */
  notCompared: string[];
}

export interface DirDiff {
  groups: DiffGroup[];
  differences: DiffDifference[];
  /** Hosts whose listing was cut (per directory or as a whole), with what was cut. */
  capped: { host: string; truncation: Truncation }[];
}

function entryValue(e: Entry, compare: ReadonlySet<CompareAttribute>): DiffValue {
  const v: DiffValue = { present: true };
  if (compare.has('type')) {
    v.type = e.type;
    if (e.linkTarget !== undefined) v.linkTarget = e.linkTarget;
  }
  if (compare.has('size') && e.type !== 'dir') v.size = e.size;
  if (compare.has('mode')) v.mode = e.mode & 0o7777;
  if (compare.has('owner')) {
    v.uid = e.uid;
    v.gid = e.gid;
  }
  if (compare.has('mtime')) {
    v.mtimeSec = e.mtimeSec;
    v.mtimeNsec = e.mtimeNsec;
  }
  return v;
}

function keyOf(v: DiffValue): string {
  if (!v.present) return '-';
  return [
    v.type ?? '',
    v.size ?? '',
    v.mode ?? '',
    v.uid ?? '',
    v.gid ?? '',
    v.mtimeSec ?? '',
    v.mtimeNsec ?? '',
    v.linkTarget?.toString('latin1') ?? '',
    v.error ?? '',
  ].join('\0');
}

const ABSENT: DiffValue = { present: false };
const UNKNOWN = '?';

interface HostView {
  host: string;
  values: Map<string, { path: Buffer; value: DiffValue; key: string; dirOk: boolean }>;
  /** Directories listed only in part (latin1 keys). */
  cut: Set<string>;
  /** The whole walk stopped early: nothing unlisted is known to be absent. */
  stopped: boolean;
}

function parentKey(key: string): string {
  const i = key.lastIndexOf('/');
  return i < 0 ? '' : key.slice(0, i);
}

function view(l: HostTree, compare: ReadonlySet<CompareAttribute>): HostView {
  const values: HostView['values'] = new Map();
  for (const e of l.entries) {
    const key = e.path.toString('latin1');
    if (key === '') continue;
    const seen = values.get(key);
    if (e.error !== undefined && seen) {
      // A directory's error row after its entry row: the entry stands, its listing failed.
      seen.value = { ...seen.value, error: e.error.code };
      seen.key = keyOf(seen.value);
      seen.dirOk = false;
      continue;
    }
    const value = e.error ? { ...entryValue(e, compare), error: e.error.code } : entryValue(e, compare);
    values.set(key, { path: e.path, value, key: keyOf(value), dirOk: e.type === 'dir' && !e.error });
  }
  const cut = new Set<string>();
  let stopped = false;
  for (const t of l.truncations) {
    if (t.reason === 'items_per_dir') cut.add(t.dir.toString('latin1'));
    else if (t.reason !== 'depth') stopped = true;
  }
  return { host: l.host, values, cut, stopped };
}

/** The host's value key at a path: listed, known absent, or UNKNOWN. */
function hostKey(v: HostView, key: string): string {
  const got = v.values.get(key);
  if (got) return got.key;
  if (v.stopped) return UNKNOWN;
  const parent = parentKey(key);
  if (v.cut.has(parent)) return UNKNOWN;
  if (parent === '') return '-';
  const p = v.values.get(parent);
  // Under a missing or unreadable directory the absence is the directory's own difference.
  return p?.dirOk ? '-' : UNKNOWN;
}

function groupId(i: number): string {
  let s = '';
  for (let n = i; ; n = Math.floor(n / 26) - 1) {
    s = String.fromCharCode(65 + (n % 26)) + s;
    if (n < 26) return s;
  }
}

interface Differing {
  key: string;
  path: Buffer;
  /** Each host's value key at this path (UNKNOWN where it did not list it). */
  keys: string[];
}

/**
 * Groups hosts by their listings and lists the differing entries. Hosts come in the caller's
 * order (sorted by name is what the tools pass); groups are largest first, ties by first host.
 */
export function diffListings(listings: HostTree[], compare: readonly CompareAttribute[]): DirDiff {
  const cmp = new Set(compare);
  const views = listings.map((l) => view(l, cmp));
  const differing = differingPaths(views);
  const groups = groupHosts(views, differing);
  const rank = new Map<number, number>();
  groups.forEach((g, i) => {
    for (const h of g) rank.set(h, i);
  });
  const capped = listings.flatMap((l) =>
    l.truncations.filter((t) => t.reason !== 'depth').map((truncation) => ({ host: l.host, truncation })),
  );
  return {
    groups: groups.map((g, i) => ({ id: groupId(i), hosts: g.map((h) => views[h].host) })),
    differences: differing.map((d) => difference(views, d, rank)),
    capped,
  };
}

/** The paths whose known values are not all the same, in name order. */
function differingPaths(views: HostView[]): Differing[] {
  const paths = new Map<string, Buffer>();
  for (const v of views) for (const [k, x] of v.values) if (!paths.has(k)) paths.set(k, x.path);
  const differing: Differing[] = [];
  for (const [key, path] of paths) {
    const keys = views.map((v) => hostKey(v, key));
    let first: string | undefined;
    let differs = false;
    for (const k of keys) {
      if (k === UNKNOWN) continue;
      if (first === undefined) first = k;
      else if (k !== first) {
        differs = true;
        break;
      }
    }
    if (differs) differing.push({ key, path, keys });
  }
  return differing.sort((a, b) => compareNames(a.path, b.path));
}

/**
 * Hosts (by index) grouped by their signatures over the differing paths; an unknown position
 * matches any value, so a host that listed less joins the largest group it agrees with.
 */
function groupHosts(views: HostView[], differing: Differing[]): number[][] {
  const sigs = views.map((_, h) => differing.map((d) => d.keys[h]));
  const order = views.map((_, h) => h);
  const full = order.filter((h) => !sigs[h].includes(UNKNOWN));
  const partial = order.filter((h) => sigs[h].includes(UNKNOWN));
  const buckets = new Map<string, number[]>();
  for (const h of full) {
    const k = sigs[h].join('\u0001');
    const b = buckets.get(k);
    if (b) b.push(h);
    else buckets.set(k, [h]);
  }
  const groups = [...buckets.values()];
  const bySize = (a: number[], b: number[]) => b.length - a.length || a[0] - b[0];
  for (const h of partial) {
    groups.sort(bySize);
    const fits = groups.find((g) => sigs[h].every((k, i) => k === UNKNOWN || k === sigs[g[0]][i]));
    if (fits) fits.push(h);
    else groups.push([h]);
  }
  groups.sort(bySize);
  for (const g of groups) g.sort((a, b) => a - b);
  return groups;
}

/** One differing path: its values, in the order of the groups that hold them, and the hosts not compared. */
function difference(views: HostView[], d: Differing, rank: Map<number, number>): DiffDifference {
  const byKey = new Map<string, { value: DiffValue; hosts: number[] }>();
  const notCompared: string[] = [];
  d.keys.forEach((k, h) => {
    if (k === UNKNOWN) {
      notCompared.push(views[h].host);
      return;
    }
    let slot = byKey.get(k);
    if (!slot) {
      slot = { value: views[h].values.get(d.key)?.value ?? ABSENT, hosts: [] };
      byKey.set(k, slot);
    }
    slot.hosts.push(h);
  });
  const firstRank = (hosts: number[]) => Math.min(...hosts.map((h) => rank.get(h) as number));
  const values = [...byKey.values()]
    .sort(
      (a, b) => firstRank(a.hosts) - firstRank(b.hosts) || b.hosts.length - a.hosts.length || a.hosts[0] - b.hosts[0],
    )
    .map((s) => ({ value: s.value, hosts: s.hosts.map((h) => views[h].host) }));
  return { path: d.path, values, notCompared };
}
