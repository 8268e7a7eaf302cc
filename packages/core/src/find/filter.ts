// The find-like filters of list_files (and of the Walk contract): size, mtime, owner, group,
// permission bits and a base-name glob. Parsed once from what a person types (the gateway),
// checked again where a request arrives (the agent), and compiled to one row test that the
// walk engine applies while it walks, on every backend.

import type { Entry } from '../domain/types.js';
import { invalidArgument } from '../errors/errors.js';
import {
  FILTER_FEATURES,
  type FilterFeature,
  type FindFilter,
  type IdSpec,
  type Instant,
  PERM_MATCHES,
} from '../filter/filter-types.js';
import { MAX_ID, parseIdSpec } from '../filter/id-spec.js';
import { parsePerm, permMatches } from '../filter/perm-spec.js';
import { parseSize } from '../filter/size-spec.js';
import { compareInstant, parseTime } from '../filter/time-spec.js';
import { compileGlob } from '../glob/glob.js';
import { baseName } from '../order/order.js';

export { FILTER_FEATURES, type FilterFeature, type FindFilter } from '../filter/filter-types.js';

/** The filters as a tool takes them (strings a person types, or numbers). */
export interface FindFilterArgs {
  min_size?: unknown;
  max_size?: unknown;
  modified_after?: unknown;
  modified_before?: unknown;
  owner?: unknown;
  group?: unknown;
  perm?: unknown;
  name?: unknown;
}

/** Parses a tool's filter arguments; relative times count back from `nowMs`. Undefined when none is set. */
export function parseFindFilterArgs(args: FindFilterArgs, nowMs: number): FindFilter | undefined {
  const f: FindFilter = {};
  if (args.min_size !== undefined) f.minSize = parseSize('min_size', args.min_size);
  if (args.max_size !== undefined) f.maxSize = parseSize('max_size', args.max_size);
  if (args.modified_after !== undefined) f.modifiedAfter = parseTime('modified_after', args.modified_after, nowMs);
  if (args.modified_before !== undefined) f.modifiedBefore = parseTime('modified_before', args.modified_before, nowMs);
  if (args.owner !== undefined) f.owner = parseIdSpec('owner', args.owner);
  if (args.group !== undefined) f.group = parseIdSpec('group', args.group);
  if (args.perm !== undefined) f.perm = parsePerm('perm', args.perm);
  if (args.name !== undefined) f.name = args.name as string;
  const checked = checkFindFilter(f);
  return filterFeatures(checked).length > 0 ? checked : undefined;
}

function instant(arg: string, t: Instant): Instant {
  if (!Number.isSafeInteger(t.sec) || !Number.isInteger(t.nsec) || t.nsec < 0 || t.nsec > 999_999_999) {
    throw invalidArgument(`${arg}: must be seconds and nanoseconds (0 to 999999999)`);
  }
  return { sec: t.sec, nsec: t.nsec };
}

function id(arg: string, s: IdSpec): IdSpec {
  if ('id' in s) {
    if (!Number.isInteger(s.id) || s.id < 0 || s.id > MAX_ID)
      throw invalidArgument(`${arg}: ids run from 0 to ${MAX_ID}`);
    return { id: s.id };
  }
  return parseIdSpec(arg, s.name);
}

/**
 * Checks a filter that arrives already parsed (from the wire, or a tool): each value in its
 * bounds, the ranges not empty, the glob compilable. Returns a clean copy.
 */
export function checkFindFilter(filter: FindFilter): FindFilter {
  const out: FindFilter = {};
  if (filter.minSize !== undefined) out.minSize = parseSize('min_size', filter.minSize);
  if (filter.maxSize !== undefined) out.maxSize = parseSize('max_size', filter.maxSize);
  if (out.minSize !== undefined && out.maxSize !== undefined && out.minSize > out.maxSize) {
    throw invalidArgument(`min_size (${out.minSize} bytes) must not be larger than max_size (${out.maxSize} bytes)`);
  }
  if (filter.modifiedAfter !== undefined) out.modifiedAfter = instant('modified_after', filter.modifiedAfter);
  if (filter.modifiedBefore !== undefined) out.modifiedBefore = instant('modified_before', filter.modifiedBefore);
  if (
    out.modifiedAfter !== undefined &&
    out.modifiedBefore !== undefined &&
    compareInstant(out.modifiedBefore.sec, out.modifiedBefore.nsec, out.modifiedAfter) <= 0
  ) {
    throw invalidArgument('modified_after must be earlier than modified_before (nothing can match)');
  }
  if (filter.owner !== undefined) out.owner = id('owner', filter.owner);
  if (filter.group !== undefined) out.group = id('group', filter.group);
  if (filter.perm !== undefined) {
    const { match, mode } = filter.perm;
    if (!PERM_MATCHES.includes(match) || !Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
      throw invalidArgument(`perm: mode must be within 07777 and match one of ${PERM_MATCHES.join(', ')}`);
    }
    out.perm = { match, mode };
  }
  if (filter.name !== undefined) {
    if (typeof filter.name !== 'string' || filter.name.includes('/')) {
      throw invalidArgument(
        `name: a glob on the base name, without '/' (use pattern for paths), got ${JSON.stringify(filter.name)}`,
      );
    }
    try {
      compileGlob(filter.name);
    } catch (err) {
      throw invalidArgument(`name: ${(err as Error).message}`);
    }
    out.name = filter.name;
  }
  return out;
}

const FIELD_OF: Record<FilterFeature, keyof FindFilter> = {
  min_size: 'minSize',
  max_size: 'maxSize',
  modified_after: 'modifiedAfter',
  modified_before: 'modifiedBefore',
  owner: 'owner',
  group: 'group',
  perm: 'perm',
  name: 'name',
};

/** The features a filter uses, in FILTER_FEATURES order: what an agent must echo as applied. */
export function filterFeatures(filter: FindFilter | undefined): FilterFeature[] {
  if (filter === undefined) return [];
  return FILTER_FEATURES.filter((k) => filter[FIELD_OF[k]] !== undefined);
}

/** The filter without the given features (what a peer that lacks them would apply); undefined when nothing is left. */
export function withoutFeatures(filter: FindFilter, drop: readonly FilterFeature[]): FindFilter | undefined {
  const out: FindFilter = { ...filter };
  for (const k of drop) delete out[FIELD_OF[k]];
  return filterFeatures(out).length > 0 ? out : undefined;
}

/** Does the filter look at anything an lstat gives (all but the name)? */
export function filterNeedsStat(filter: FindFilter | undefined): boolean {
  return filterFeatures(filter).some((k) => k !== 'name');
}

function numericId(arg: string, s: IdSpec | undefined): number | undefined {
  if (s === undefined) return undefined;
  if ('name' in s) throw invalidArgument(`${arg}: the name ${JSON.stringify(s.name)} was not resolved to an id`);
  return s.id;
}

/**
 * One test for an entry (sizes, times, ids and modes as the entry holds them; a directory's
 * size is its recursive size when dir sizes were asked for). Names in owner and group must
 * have been resolved to ids at the edge first.
 */
export function compileFindFilter(filter: FindFilter): (e: Entry) => boolean {
  const uid = numericId('owner', filter.owner);
  const gid = numericId('group', filter.group);
  const name = filter.name === undefined ? undefined : compileGlob(filter.name);
  const { minSize, maxSize, modifiedAfter: after, modifiedBefore: before, perm } = filter;
  return (e) =>
    (minSize === undefined || e.size >= minSize) &&
    (maxSize === undefined || e.size <= maxSize) &&
    (after === undefined || compareInstant(e.mtimeSec, e.mtimeNsec, after) > 0) &&
    (before === undefined || compareInstant(e.mtimeSec, e.mtimeNsec, before) < 0) &&
    (uid === undefined || e.uid === uid) &&
    (gid === undefined || e.gid === gid) &&
    (perm === undefined || permMatches(perm, e.mode)) &&
    (name === undefined || name(baseName(e.path).toString('utf8')));
}
