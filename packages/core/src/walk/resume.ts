// Resume points of a tree walk: where page N+1 starts after the last row of page N. The
// walk skips to the point (walk/tree.ts); a gateway that gets rows from an agent that does
// not honour `after` drops what was shown with `compareResumePoints`.

import type { OrderBy, ResumeRow, Row, SortDirection } from '../domain/types.js';
import { compareNames } from '../order/order.js';

/**
 * How a tree directory is listed when resuming after `req.after` (a row of an earlier page):
 * - `path`: the directory is an ancestor of `after`: children before `after`'s component are
 *   skipped unread, the component is skipped but descended into, the rest follow;
 * - `skip-error`: the directory is `after` and its error row was shown: skip that row.
 */
export type ResumeMode = 'path' | 'skip-error' | undefined;

/** A row of a tree listing, as a resume point: its path and which of its rows it is. */
export interface ResumePoint {
  path: Buffer;
  row: ResumeRow;
}

/** The components of a relative path (split at '/'); a worker may hand a Uint8Array. */
export function pathParts(path: Uint8Array): Buffer[] {
  const buf = Buffer.isBuffer(path) ? path : Buffer.from(path.buffer, path.byteOffset, path.byteLength);
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= buf.length; i++) {
    if (i === buf.length || buf[i] === 0x2f) {
      parts.push(buf.subarray(start, i));
      start = i + 1;
    }
  }
  return parts;
}

/**
 * Resuming in a directory on the path of `after`: the index among its kept children (in
 * walk order) of `after`'s component `name` (`found`), or of the first child that sorts
 * after it when it is gone (by name; in other orders the directory starts over).
 */
export function resumeIndex(
  kept: readonly Buffer[],
  name: Buffer,
  order: OrderBy,
  direction: SortDirection,
): { at: number; found: boolean } {
  const at = kept.findIndex((n) => n.equals(name));
  if (at >= 0) return { at, found: true };
  if (order !== 'name') return { at: 0, found: false };
  const sign = direction === 'descending' ? -1 : 1;
  const next = kept.findIndex((n) => sign * compareNames(n, name) > 0);
  return { at: next < 0 ? kept.length : next, found: false };
}

export function resumePointOf(row: Row): ResumePoint {
  if (row.kind === 'truncation') return { path: row.truncation.dir, row: 'warning' };
  return { path: row.entry.path, row: row.entry.error ? 'error' : 'entry' };
}

/**
 * Where a row's resume point falls in the tree's depth-first name order against another:
 * components compare by name; an ancestor comes before its subtree, and its [WARNING]
 * after it; at one path the entry comes first, then its error row, then its [WARNING].
 */
export function compareResumePoints(left: ResumePoint, right: ResumePoint): number {
  const rank = { entry: 0, error: 1, warning: 2 } as const;
  const pa = left.path.length === 0 ? [] : pathParts(left.path);
  const pb = right.path.length === 0 ? [] : pathParts(right.path);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const d = compareNames(pa[i], pb[i]);
    if (d !== 0) return d;
  }
  if (pa.length < pb.length) return left.row === 'warning' ? 1 : -1;
  if (pa.length > pb.length) return right.row === 'warning' ? -1 : 1;
  return rank[left.row] - rank[right.row];
}
