// The one order of fleetls, used by the agent, the SSH backend and the gateway's merge.
// Names compare as bytes with ASCII letters folded to lower case, raw bytes breaking
// ties: locale-free, identical on every host and path. Name order on relative paths is
// path order: component by component, so `/` sorts before every other byte and a
// directory's entries follow it directly (tree order, as `find | sort` and a file manager
// show it). Ties on the primary key fall back to path order (ascending), then the host.
import type { Entry, OrderBy, SortDirection } from '../domain/types.js';

const SLASH = 0x2f;

/** Final component of a relative path (the path itself when it has no '/'). */
export function baseName(path: Buffer): Buffer {
  const i = path.lastIndexOf(SLASH);
  return i < 0 ? path : path.subarray(i + 1);
}

function fold(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

/** Bytes with ASCII letters folded; raw bytes break ties. */
export function compareNames(left: Buffer, right: Buffer): number {
  return compareRange(left, 0, left.length, right, 0, right.length);
}

const UPPER = /[A-Z]/;
const UPPERS = /[A-Z]+/g;
const lower = (s: string): string => s.toLowerCase();

/**
 * A string that sorts as `compareNames` sorts, up to ties: the name's bytes as latin1 chars
 * with ASCII letters folded. Strings compare by char code, so `nameKey(a) < nameKey(b)`
 * whenever `compareNames(a, b) < 0`, at the cost of one native string comparison; equal
 * keys (names differing only in case) are left to `compareNames`.
 */
export function nameKey(name: Buffer): string {
  const s = name.toString('latin1');
  return UPPER.test(s) ? s.replace(UPPERS, lower) : s;
}

/** compareNames of a[as..ae) and b[bs..be). */
function compareRange(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): number {
  const la = ae - as;
  const lb = be - bs;
  const n = Math.min(la, lb);
  for (let i = 0; i < n; i++) {
    const d = fold(a[as + i]) - fold(b[bs + i]);
    if (d !== 0) return d;
  }
  if (la !== lb) return la - lb;
  return a.compare(b, bs, be, as, ae);
}

/**
 * Path order of two relative paths: components compare by `compareNames` (times `sign`:
 * -1 lists each level descending), and a directory always comes before what is under it,
 * in either direction, as a tree walk yields them.
 */
export function comparePaths(left: Buffer, right: Buffer, sign = 1): number {
  // The requested path itself (empty) is above everything.
  if (left.length === 0 || right.length === 0) return Number(right.length === 0) - Number(left.length === 0);
  let ai = 0;
  let bi = 0;
  for (;;) {
    let ae = left.indexOf(SLASH, ai);
    if (ae < 0) ae = left.length;
    let be = right.indexOf(SLASH, bi);
    if (be < 0) be = right.length;
    const d = compareRange(left, ai, ae, right, bi, be);
    if (d !== 0) return sign * d;
    const aDone = ae >= left.length;
    const bDone = be >= right.length;
    if (aDone || bDone) return Number(bDone) - Number(aDone);
    ai = ae + 1;
    bi = be + 1;
  }
}

function compareMtime(a: Entry, b: Entry): number {
  return a.mtimeSec - b.mtimeSec || a.mtimeNsec - b.mtimeNsec;
}

function primary(order: Exclude<OrderBy, 'name'>): (a: Entry, b: Entry) => number {
  switch (order) {
    case 'size':
      return (a, b) => a.size - b.size;
    case 'modified':
      return compareMtime;
  }
}

/**
 * Comparator for entries: the requested key in the requested direction, then path order;
 * a directory's own row before its error row (an unlistable directory gives both). By name
 * it is path order in the requested direction: the order of a tree walk's rows.
 */
export function entryComparator(order: OrderBy, direction: SortDirection): (a: Entry, b: Entry) => number {
  return comparatorOf(entryComparators, order, direction, makeEntryComparator);
}

/** Comparator for rows of several hosts: entries first by the entry order, then by host name. */
export function hostEntryComparator(
  order: OrderBy,
  direction: SortDirection,
): (a: { host: string; entry: Entry }, b: { host: string; entry: Entry }) => number {
  return comparatorOf(hostEntryComparators, order, direction, makeHostEntryComparator);
}

// Each comparator is made once per order and direction (six of each at most) and kept: a
// merge calls it for every row, and V8 keeps a closure's optimized code only while a closure
// of it lives, so one made per call lost its code at each full collection and was compiled
// again within the next calls.
type Comparators<T> = Map<`${OrderBy} ${SortDirection}`, (a: T, b: T) => number>;
const entryComparators: Comparators<Entry> = new Map();
const hostEntryComparators: Comparators<{ host: string; entry: Entry }> = new Map();

function comparatorOf<T>(
  made: Comparators<T>,
  order: OrderBy,
  direction: SortDirection,
  make: (order: OrderBy, direction: SortDirection) => (a: T, b: T) => number,
): (a: T, b: T) => number {
  const key = `${order} ${direction}` as const;
  let compare = made.get(key);
  if (!compare) {
    compare = make(order, direction);
    made.set(key, compare);
  }
  return compare;
}

function makeEntryComparator(order: OrderBy, direction: SortDirection): (a: Entry, b: Entry) => number {
  const sign = direction === 'descending' ? -1 : 1;
  const errorLast = (a: Entry, b: Entry) => Number(a.error !== undefined) - Number(b.error !== undefined);
  if (order === 'name') return (a, b) => comparePaths(a.path, b.path, sign) || errorLast(a, b);
  const key = primary(order);
  return (a, b) => sign * key(a, b) || comparePaths(a.path, b.path) || errorLast(a, b);
}

function makeHostEntryComparator(
  order: OrderBy,
  direction: SortDirection,
): (a: { host: string; entry: Entry }, b: { host: string; entry: Entry }) => number {
  const byEntry = entryComparator(order, direction);
  return (a, b) => byEntry(a.entry, b.entry) || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0);
}
