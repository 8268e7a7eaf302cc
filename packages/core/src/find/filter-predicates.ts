// The find-like filters as `find` predicates, so an SSH host sends back only the rows that
// can pass them (the walk engine applies the same filters again over what arrives, so the
// predicates only ever need to keep at least what the engine keeps). Every value is
// computed here from parsed numbers (the name glob aside), and the command builder
// single-quotes each one. Owner and group names are resolved on the remote host first.

import type { WalkRequest } from '../domain/types.js';
import { FleetError } from '../errors/errors.js';
import type { IdSpec } from '../filter/id-spec.js';
import { permArgument } from '../filter/perm-spec.js';
import type { Instant } from '../filter/time-spec.js';
import type { FindFilter } from './filter.js';

/** `@SEC.NNNNNNNNN`, find -newermt's form of an instant (negative seconds too). */
export function newermtArgument(instant: Instant): string {
  if (instant.sec >= 0 || instant.nsec === 0) return `@${instant.sec}.${String(instant.nsec).padStart(9, '0')}`;
  // -1.5 s is sec -2 + 0.5 s: written as -1.500000000.
  return `@-${-instant.sec - 1}.${String(1_000_000_000 - instant.nsec).padStart(9, '0')}`;
}

function minusOneNs(t: Instant): Instant {
  return t.nsec > 0 ? { sec: t.sec, nsec: t.nsec - 1 } : { sec: t.sec - 1, nsec: 999_999_999 };
}

function numericId(s: IdSpec | undefined): number | undefined {
  if (s === undefined) return undefined;
  if ('name' in s) throw new FleetError('internal', `the name "${s.name}" must be resolved before find is built`);
  return s.id;
}

/**
 * The predicates (unquoted argv words) that a row other than a directory must pass, joined
 * by find's implicit AND; undefined when the request is not worth filtering remotely: tree walks cap each
 * directory before they filter, so there every row must arrive.
 */
export function filterPredicates(req: WalkRequest): string[] | undefined {
  const f: FindFilter | undefined = req.filter;
  if (f === undefined || req.shape !== 'ranked') return undefined;
  const p: string[] = [];
  if (f.minSize !== undefined && f.minSize > 0) p.push('-size', `+${f.minSize - 1}c`);
  if (f.maxSize !== undefined) p.push('-size', `-${f.maxSize + 1}c`);
  if (f.modifiedAfter !== undefined) p.push('-newermt', newermtArgument(f.modifiedAfter));
  // Strictly before T is "not newer than T minus 1 ns".
  if (f.modifiedBefore !== undefined) p.push('-not', '-newermt', newermtArgument(minusOneNs(f.modifiedBefore)));
  const uid = numericId(f.owner);
  if (uid !== undefined) p.push('-uid', String(uid));
  const gid = numericId(f.group);
  if (gid !== undefined) p.push('-gid', String(gid));
  if (f.perm !== undefined) p.push('-perm', permArgument(f.perm));
  // find's -name has no {a,b}: such a glob is left to the engine alone.
  if (f.name !== undefined && !f.name.includes('{')) p.push('-name', f.name);
  return p.length > 0 ? p : undefined;
}

/**
 * Do the predicates keep exactly the rows the engine's filter keeps? Then what reaches a
 * remote ranking all matched. Not for a name glob with {a,b} (find has none) or with
 * non-ASCII text (find matches bytes, core matches characters).
 */
export function filterExactRemotely(req: WalkRequest): boolean {
  const name = req.filter?.name;
  return name === undefined || (!name.includes('{') && /^[\x20-\x7e]*$/.test(name));
}
