// One host's listing as diff_directory compares it (each entry's value under the compared
// attributes, the directories listed in part, whether the walk stopped early), and the
// listings of many hosts kept once per distinct listing: hosts of the same tree share one
// copy, so a diff over 10,000 hosts of a few distinct trees holds a few trees, not 10,000
// (it held 80 rows of each). Each listing is found by a digest of its entries and then
// compared whole, so two hosts share a listing only when their listings are equal.

import type { Entry, EntryErrorCode, EntryType, Truncation } from '../domain/types.js';
import { invalidArgument } from '../errors/errors.js';

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

/** One path of a listing: its value and that value's key (equal keys, equal values). */
export interface ListedValue {
  path: Buffer;
  value: DiffValue;
  key: string;
  /** A directory whose own listing did not fail: what it does not list is absent there. */
  dirOk: boolean;
}

/** A host's listing as the diff reads it. */
export interface Listing {
  /** By path (latin1 of its bytes); the compared path itself is not in it. */
  values: Map<string, ListedValue>;
  /** Directories listed only in part (latin1 keys). */
  cut: Set<string>;
  /** The whole walk stopped early: nothing unlisted is known to be absent. */
  stopped: boolean;
  /** The truncations that bit (all but depth), in the walk's order: what the answer reports. */
  capped: Truncation[];
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

export function keyOf(value: DiffValue): string {
  if (!value.present) return '-';
  return [
    value.type ?? '',
    value.size ?? '',
    value.mode ?? '',
    value.uid ?? '',
    value.gid ?? '',
    value.mtimeSec ?? '',
    value.mtimeNsec ?? '',
    value.linkTarget?.toString('latin1') ?? '',
    value.error ?? '',
  ].join('\0');
}

/**
 * A listing from a host's rows: entries (error rows included) and every truncation it
 * reported. `broken`: the walk ended partway (its stream broke), so, as a walk stopped early,
 * nothing it did not list is known to be absent.
 */
export function listingOf(
  entries: Iterable<Entry>,
  truncations: readonly Truncation[],
  compare: ReadonlySet<CompareAttribute>,
  broken = false,
): Listing {
  const values: Listing['values'] = new Map();
  for (const e of entries) {
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
  let stopped = broken;
  const capped: Truncation[] = [];
  for (const t of truncations) {
    if (t.reason === 'depth') continue;
    capped.push(t);
    if (t.reason === 'items_per_dir') cut.add(t.dir.toString('latin1'));
    else stopped = true;
  }
  return { values, cut, stopped, capped };
}

/** Two 32-bit hashes of a string (FNV-1a, and a multiply-xor one), to sum over a listing. */
function hashes(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, b >>> 0];
}

function cappedKey(capped: readonly Truncation[]): string {
  return capped.map((t) => `${t.reason}\0${t.shown}\0${t.total}\0${t.dir.toString('latin1')}`).join('\u0001');
}

/**
 * The listing's digest: its entries' hashes summed (so the order the host sent them in does not
 * matter), their count, and its cuts. Equal listings have equal digests; the converse is checked.
 */
function digestOf(l: Listing): string {
  let a = 0;
  let b = 0;
  for (const [path, x] of l.values) {
    const [ha, hb] = hashes(`${path}\u0001${x.key}\u0001${x.dirOk ? 1 : 0}`);
    a = (a + ha) >>> 0;
    b = (b + hb) >>> 0;
  }
  return `${l.values.size}:${a}:${b}:${l.stopped ? 1 : 0}:${cappedKey(l.capped)}`;
}

function sameListing(x: Listing, y: Listing): boolean {
  if (x.values.size !== y.values.size || x.stopped !== y.stopped || x.capped.length !== y.capped.length) return false;
  for (const [path, v] of x.values) {
    const w = y.values.get(path);
    if (!w || w.key !== v.key || w.dirOk !== v.dirOk) return false;
  }
  return cappedKey(x.capped) === cappedKey(y.capped);
}

/** Where a host's listing was kept: its id, and whether it was new (its rows are then held). */
export interface KeptListing {
  id: number;
  fresh: boolean;
  /** The entries the listing holds (0 when it was not new: it costs nothing more). */
  rows: number;
}

/** A host's rows as they came, the listing they make: the fast path's sample of that order. */
interface RowsSample {
  id: number;
  entries: readonly Entry[];
  truncations: readonly Truncation[];
  broken: boolean;
}

const TYPE_CODES: Record<string, number> = { file: 1, dir: 2, symlink: 3 };

/** A hash of a host's rows in the order they came: path bytes, type, size, mode and owner. */
function rowsDigest(entries: readonly Entry[], truncations: readonly Truncation[], broken: boolean): string {
  let a = 0x811c9dc5;
  for (const e of entries) {
    const p = e.path;
    for (let i = 0; i < p.length; i++) a = Math.imul(a ^ p[i], 0x01000193);
    a = Math.imul(a ^ (TYPE_CODES[e.type] ?? 9), 0x01000193);
    a = Math.imul(a ^ (e.size % 0x100000000), 0x01000193);
    a = Math.imul(a ^ Math.floor(e.size / 0x100000000), 0x01000193);
    a = Math.imul(a ^ e.mode, 0x01000193);
    a = Math.imul(a ^ e.uid, 0x01000193);
    a = Math.imul(a ^ e.gid, 0x01000193);
  }
  return `${entries.length}:${a >>> 0}:${broken ? 1 : 0}:${cappedKey(truncations)}`;
}

function sameBytes(x: Buffer | undefined, y: Buffer | undefined): boolean {
  return x === undefined || y === undefined ? x === y : x.equals(y);
}

/**
 * Two rows alike in all that listingOf reads of them under `compare` (their type always: it
 * says whether a directory's absence speaks for its children).
 */
function sameRow(x: Entry, y: Entry, compare: ReadonlySet<CompareAttribute>): boolean {
  if (x.type !== y.type || x.error?.code !== y.error?.code || !x.path.equals(y.path)) return false;
  if (compare.has('type') && !sameBytes(x.linkTarget, y.linkTarget)) return false;
  if (compare.has('size') && x.size !== y.size) return false;
  if (compare.has('mode') && (x.mode & 0o7777) !== (y.mode & 0o7777)) return false;
  if (compare.has('owner') && (x.uid !== y.uid || x.gid !== y.gid)) return false;
  if (compare.has('mtime') && (x.mtimeSec !== y.mtimeSec || x.mtimeNsec !== y.mtimeNsec)) return false;
  return true;
}

/**
 * The distinct listings of a call's hosts, each kept once: a host's listing is its id here.
 * Belongs to one call (a diff's plan): its listings go with it. A host whose rows match, row
 * for row, those of a host before it (the same tree from the same kind of walk: the common
 * case) costs a hash and a comparison of its rows; only a new order or a new tree is read
 * into a listing, and then found by the listing's own digest.
 */
export class DistinctListings {
  private readonly compare: ReadonlySet<CompareAttribute>;
  private readonly kept: Listing[] = [];
  private readonly byDigest = new Map<string, number[]>();
  private readonly byRows = new Map<string, RowsSample[]>();

  constructor(compare: readonly CompareAttribute[]) {
    this.compare = new Set(compare);
  }

  /** Keeps one host's listing unless an equal one is kept already (`broken`: listingOf's). */
  add(entries: readonly Entry[], truncations: readonly Truncation[], broken = false): KeptListing {
    const rowsKey = rowsDigest(entries, truncations, broken);
    const samples = this.byRows.get(rowsKey);
    const sample = samples?.find((x) => this.sameRows(x, entries, truncations, broken));
    if (sample) return { id: sample.id, fresh: false, rows: 0 };
    const kept = this.addListing(listingOf(entries, truncations, this.compare, broken));
    const next: RowsSample = { id: kept.id, entries, truncations, broken };
    if (samples) samples.push(next);
    else this.byRows.set(rowsKey, [next]);
    return kept;
  }

  private sameRows(x: RowsSample, entries: readonly Entry[], truncations: readonly Truncation[], broken: boolean) {
    if (x.broken !== broken || x.entries.length !== entries.length) return false;
    if (cappedKey(x.truncations) !== cappedKey(truncations)) return false;
    for (let i = 0; i < entries.length; i++) if (!sameRow(x.entries[i], entries[i], this.compare)) return false;
    return true;
  }

  private addListing(listing: Listing): KeptListing {
    const digest = digestOf(listing);
    const ids = this.byDigest.get(digest);
    const same = ids?.find((id) => sameListing(this.kept[id], listing));
    if (same !== undefined) return { id: same, fresh: false, rows: 0 };
    const id = this.kept.length;
    this.kept.push(listing);
    if (ids) ids.push(id);
    else this.byDigest.set(digest, [id]);
    return { id, fresh: true, rows: listing.values.size };
  }

  /** The listing kept as `id`. */
  get(id: number): Listing {
    const l = this.kept[id];
    if (!l) throw new RangeError(`listing ${id}: none kept (${this.kept.length} are)`);
    return l;
  }

  /** How many distinct listings are kept. */
  get size(): number {
    return this.kept.length;
  }
}
