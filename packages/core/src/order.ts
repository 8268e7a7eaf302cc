// The one order of fleetls, used by the agent, the SSH backend and the gateway's merge.
// Names compare as bytes with ASCII letters folded to lower case, raw bytes breaking
// ties: locale-free, identical on every host and path. Ties on the primary key fall back
// to the name, then the relative path (always ascending), then the host.
import type { Entry, OrderBy, SortDirection } from './types.js';

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
export function compareNames(a: Buffer, b: Buffer): number {
  return compareFrom(a, 0, b, 0);
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

/** compareNames of a[ai..] and b[bi..], without slicing: it runs on every heap comparison. */
function compareFrom(a: Buffer, ai: number, b: Buffer, bi: number): number {
  const la = a.length - ai;
  const lb = b.length - bi;
  const n = Math.min(la, lb);
  for (let i = 0; i < n; i++) {
    const d = fold(a[ai + i]) - fold(b[bi + i]);
    if (d !== 0) return d;
  }
  if (la !== lb) return la - lb;
  return a.compare(b, bi, b.length, ai, a.length);
}

/** compareNames of the base names of two relative paths. */
function compareBaseNames(a: Buffer, b: Buffer): number {
  return compareFrom(a, a.lastIndexOf(SLASH) + 1, b, b.lastIndexOf(SLASH) + 1);
}

function compareMtime(a: Entry, b: Entry): number {
  return a.mtimeSec - b.mtimeSec || a.mtimeNsec - b.mtimeNsec;
}

function primary(order: OrderBy): (a: Entry, b: Entry) => number {
  switch (order) {
    case 'name':
      return (a, b) => compareBaseNames(a.path, b.path);
    case 'size':
      return (a, b) => a.size - b.size;
    case 'modified':
      return compareMtime;
  }
}

/**
 * Comparator for entries: the requested key in the requested direction, then name, then
 * path; a directory's own row before its error row (an unlistable directory gives both).
 */
export function entryComparator(order: OrderBy, direction: SortDirection): (a: Entry, b: Entry) => number {
  const key = primary(order);
  const sign = direction === 'descending' ? -1 : 1;
  return (a, b) =>
    sign * key(a, b) ||
    compareBaseNames(a.path, b.path) ||
    Buffer.compare(a.path, b.path) ||
    Number(a.error !== undefined) - Number(b.error !== undefined);
}

/** Comparator for rows of several hosts: entries first by the entry order, then by host name. */
export function hostEntryComparator(
  order: OrderBy,
  direction: SortDirection,
): (a: { host: string; entry: Entry }, b: { host: string; entry: Entry }) => number {
  const byEntry = entryComparator(order, direction);
  return (a, b) => byEntry(a.entry, b.entry) || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0);
}
