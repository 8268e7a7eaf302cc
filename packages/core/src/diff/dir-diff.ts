// diff_directory's pure part: the same tree listed on many hosts, hosts grouped by identical
// listings under the compared attributes, and only the entries that differ, each with which
// hosts have which value. Metadata only. A directory a host listed only in part (a cap
// bit) or not at all (an ancestor is missing there) is not evidence of absence: such hosts
// are left out of that entry's comparison, and the answer says so. The diff runs over the
// distinct listings (listing.ts), each host naming its own: its cost in memory is the
// distinct trees' rows, not every host's.

import type { Entry, Truncation } from '../domain/types.js';
import { compareNames } from '../order/order.js';
import { type CompareAttribute, type DiffValue, DistinctListings, type Listing } from './listing.js';

export {
  COMPARE_ATTRIBUTES,
  type CompareAttribute,
  DEFAULT_COMPARE,
  type DiffValue,
  DistinctListings,
  type KeptListing,
  parseCompare,
} from './listing.js';

/** One host's listing of the tree, as the walk gave it. */
export interface HostTree {
  host: string;
  /** Entry rows, error rows included (a directory's error row follows its entry row). */
  entries: Entry[];
  /** Every truncation the walk reported (per directory and whole-walk). */
  truncations: Truncation[];
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

/** A host of the diff and the listing it gave (its id in the DistinctListings). */
export interface ListedHost {
  host: string;
  listing: number;
}

const ABSENT: DiffValue = { present: false };
const UNKNOWN = '?';

function parentKey(key: string): string {
  const i = key.lastIndexOf('/');
  return i < 0 ? '' : key.slice(0, i);
}

/** The listing's value key at a path: listed, known absent, or UNKNOWN. */
function listingKey(v: Listing, key: string): string {
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
  /** Each distinct listing's value key at this path (UNKNOWN where it did not list it). */
  keys: string[];
}

/**
 * Groups hosts by their listings and lists the differing entries. Hosts come in the caller's
 * order (sorted by name is what the tools pass); groups are largest first, ties by first host.
 */
export function diffListings(listings: HostTree[], compare: readonly CompareAttribute[]): DirDiff {
  const kept = new DistinctListings(compare);
  const hosts = listings.map((l) => ({ host: l.host, listing: kept.add(l.entries, l.truncations).id }));
  return diffHosts(kept, hosts);
}

/**
 * diffListings over listings kept once each: `hosts` in the caller's order, each naming its
 * listing in `kept`. The work is per distinct listing, and per host only where hosts are named.
 */
export function diffHosts(kept: DistinctListings, hosts: readonly ListedHost[]): DirDiff {
  // The listings these hosts gave, each once, by first host; each host's index among them.
  const index = new Map<number, number>();
  const listings: Listing[] = [];
  const classOf = hosts.map((h) => {
    let i = index.get(h.listing);
    if (i === undefined) {
      i = listings.length;
      index.set(h.listing, i);
      listings.push(kept.get(h.listing));
    }
    return i;
  });
  const differing = differingPaths(listings);
  const groups = groupHosts(classOf, listings.length, differing);
  const rank = new Int32Array(hosts.length);
  groups.forEach((g, i) => {
    for (const h of g) rank[h] = i;
  });
  const capped = hosts.flatMap((h, i) =>
    listings[classOf[i]].capped.map((truncation) => ({ host: h.host, truncation })),
  );
  return {
    groups: groups.map((g, i) => ({ id: groupId(i), hosts: g.map((h) => hosts[h].host) })),
    differences: differing.map((d) => difference(hosts, listings, classOf, d, rank)),
    capped,
  };
}

/** The paths whose known values are not all the same, in name order. */
function differingPaths(listings: Listing[]): Differing[] {
  const paths = new Map<string, Buffer>();
  for (const v of listings) for (const [k, x] of v.values) if (!paths.has(k)) paths.set(k, x.path);
  const differing: Differing[] = [];
  for (const [key, path] of paths) {
    const keys = listings.map((v) => listingKey(v, key));
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
 * Hosts (by index) grouped by their listings' signatures over the differing paths; an unknown
 * position matches any value, so a host that listed less joins the largest group it agrees with.
 */
function groupHosts(classOf: readonly number[], classes: number, differing: Differing[]): number[][] {
  const sigs = Array.from({ length: classes }, (_, c) => differing.map((d) => d.keys[c]));
  const partial = sigs.map((s) => s.includes(UNKNOWN));
  const buckets = new Map<string, number[]>();
  const partialHosts: number[] = [];
  classOf.forEach((c, h) => {
    if (partial[c]) {
      partialHosts.push(h);
      return;
    }
    const k = sigs[c].join('\u0001');
    const b = buckets.get(k);
    if (b) b.push(h);
    else buckets.set(k, [h]);
  });
  const groups = [...buckets.values()];
  const bySize = (a: number[], b: number[]) => b.length - a.length || a[0] - b[0];
  // Whether a listing agrees with a group's first listing wherever it knows: once per pair.
  const fitsOnce = new Map<number, boolean>();
  const fits = (c: number, g: number[]) => {
    const first = classOf[g[0]];
    const pair = c * classes + first;
    let ok = fitsOnce.get(pair);
    if (ok === undefined) {
      ok = sigs[c].every((k, i) => k === UNKNOWN || k === sigs[first][i]);
      fitsOnce.set(pair, ok);
    }
    return ok;
  };
  for (const h of partialHosts) {
    groups.sort(bySize);
    const joins = groups.find((g) => fits(classOf[h], g));
    if (joins) joins.push(h);
    else groups.push([h]);
  }
  groups.sort(bySize);
  for (const g of groups) g.sort((a, b) => a - b);
  return groups;
}

/** One differing path: its values, in the order of the groups that hold them, and the hosts not compared. */
function difference(
  hosts: readonly ListedHost[],
  listings: Listing[],
  classOf: readonly number[],
  d: Differing,
  rank: Int32Array,
): DiffDifference {
  const byKey = new Map<string, { value: DiffValue; hosts: number[]; firstRank: number }>();
  const notCompared: string[] = [];
  classOf.forEach((c, h) => {
    const k = d.keys[c];
    if (k === UNKNOWN) {
      notCompared.push(hosts[h].host);
      return;
    }
    let slot = byKey.get(k);
    if (!slot) {
      slot = { value: listings[c].values.get(d.key)?.value ?? ABSENT, hosts: [], firstRank: rank[h] };
      byKey.set(k, slot);
    }
    slot.hosts.push(h);
    if (rank[h] < slot.firstRank) slot.firstRank = rank[h];
  });
  const values = [...byKey.values()]
    .sort((a, b) => a.firstRank - b.firstRank || b.hosts.length - a.hosts.length || a.hosts[0] - b.hosts[0])
    .map((s) => ({ value: s.value, hosts: s.hosts.map((h) => hosts[h].host) }));
  return { path: d.path, values, notCompared };
}
