// One place where a walk request meets the server's ceilings: defaults filled in, every value
// checked once, and every refusal names the argument (as on the wire, snake_case) and its bounds.

import {
  ENTRY_TYPES,
  type EntryType,
  ORDER_BY,
  type OrderBy,
  RESUME_ROWS,
  type ResumeRow,
  type Shape,
  SORT_DIRECTIONS,
  type SortDirection,
  type WalkRequest,
} from '../domain/types.js';
import { FleetError, invalidArgument } from '../errors/errors.js';
import { checkFindFilter, type FindFilter, filterFeatures } from '../find/filter.js';
import { compileGlob } from '../glob/glob.js';
import { normalizeRequestPath } from '../policy/path-policy.js';

/** A walk request as it arrives: everything but `path` optional; 0 in a number means the default. */
export interface WalkRequestInput {
  path: string;
  maxDepth?: number;
  maxItemsPerDir?: number;
  capRoot?: boolean;
  maxEntries?: number;
  order?: OrderBy;
  direction?: SortDirection;
  shape?: Shape;
  topN?: number;
  offset?: number;
  include?: string[];
  exclude?: string[];
  types?: EntryType[];
  excludeHidden?: boolean;
  followSymlinks?: boolean;
  oneFileSystem?: boolean;
  dirSizes?: boolean;
  deadlineMs?: number;
  /** Find-like row filters, already parsed (owner and group may still be names). */
  filter?: FindFilter;
  /** Tree shape: resume after this row of an earlier page (a relative path; empty = not resuming). */
  after?: Uint8Array;
  afterRow?: ResumeRow;
}

/** The largest values a server accepts. */
export interface Ceilings {
  maxDepth: number;
  maxItemsPerDir: number;
  maxEntries: number;
  maxTopN: number;
  maxOffset: number;
  maxDeadlineMs: number;
  /** Patterns per glob list (include, exclude). */
  maxGlobs: number;
}

export const DEFAULT_CEILINGS: Readonly<Ceilings> = Object.freeze({
  maxDepth: 64,
  maxItemsPerDir: 100_000,
  maxEntries: 1_000_000,
  maxTopN: 100_000,
  maxOffset: 1_000_000,
  maxDeadlineMs: 120_000,
  maxGlobs: 32,
});

export const SHAPES = ['tree', 'ranked'] as const satisfies readonly Shape[];

/**
 * Entries a ranked walk holds at once, `top_n + offset`: its heap is that big whatever the
 * tree's size (walk/ranked.ts), so this bounds a ranked walk's memory (issue 35, F6: a top
 * 1000 at offset 999,000 held a million entries, 750 MiB). The gateway's deepest ranked page
 * asks for DEFAULT_CEILINGS.maxTopN at offset 0, which fits.
 */
export const MAX_RANKED_HELD = 100_000;

/** Refuses a ranked walk that would hold more than MAX_RANKED_HELD entries, naming both arguments and the bound. */
export function assertRankedHold(topN: number, offset: number): void {
  if (topN + offset > MAX_RANKED_HELD) {
    throw invalidArgument(
      `offset + top_n must be at most ${MAX_RANKED_HELD} for a ranked walk (the entries it holds at once), ` +
        `got offset ${offset} + top_n ${topN}`,
    );
  }
}

/** Defaults of every optional field. A default above a lower server ceiling is cut to it. */
export const WALK_DEFAULTS: Readonly<Omit<WalkRequest, 'path'>> = Object.freeze({
  maxDepth: 2,
  maxItemsPerDir: 100,
  capRoot: false,
  maxEntries: 100_000,
  order: 'name',
  direction: 'ascending',
  shape: 'tree',
  topN: 1000,
  offset: 0,
  include: [],
  exclude: [],
  types: [],
  excludeHidden: false,
  followSymlinks: false,
  oneFileSystem: false,
  dirSizes: false,
  deadlineMs: 20_000,
});

function shown(v: unknown): string {
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  return typeof v;
}

/** An integer in [min, ceiling]; undefined or 0 → the default (cut to the ceiling). */
function int(name: string, v: unknown, def: number, min: number, ceiling: number): number {
  if (v === undefined || v === 0) return Math.min(def, ceiling);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > ceiling) {
    throw invalidArgument(`${name} must be an integer between ${min} and ${ceiling}, got ${shown(v)}`);
  }
  return v;
}

function bool(name: string, v: unknown, def: boolean): boolean {
  if (v === undefined) return def;
  if (typeof v !== 'boolean') throw invalidArgument(`${name} must be true or false, got ${shown(v)}`);
  return v;
}

function oneOf<T extends string>(name: string, v: unknown, list: readonly T[], def: T): T {
  if (v === undefined) return def;
  if (typeof v !== 'string' || !(list as readonly string[]).includes(v)) {
    throw invalidArgument(`${name} must be one of ${list.join(', ')}, got ${shown(v)}`);
  }
  return v as T;
}

function globs(name: string, v: unknown, max: number): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw invalidArgument(`${name} must be a list of glob patterns`);
  if (v.length > max) throw invalidArgument(`${name} must have at most ${max} patterns, got ${v.length}`);
  v.forEach((pattern, i) => {
    try {
      compileGlob(pattern);
    } catch (err) {
      throw invalidArgument(`${name}[${i}]: ${FleetError.from(err).message}`);
    }
  });
  return [...v];
}

function types(v: unknown): EntryType[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw invalidArgument('types must be a list of entry types');
  if (v.length > ENTRY_TYPES.length * 2) {
    throw invalidArgument(`types must have at most ${ENTRY_TYPES.length * 2} items, got ${v.length}`);
  }
  const out = new Set<EntryType>();
  v.forEach((t, i) => {
    out.add(oneOf(`types[${i}]`, t, ENTRY_TYPES, 'file'));
  });
  return [...out];
}

/** Longest resume point (`after`), in bytes. */
export const MAX_AFTER_BYTES = 4096;

/** A resume point: a relative path of a row shown earlier (no leading '/', no empty or dot component, no NUL). */
function resumePoint(v: unknown, row: unknown, shape: Shape): Pick<WalkRequest, 'after' | 'afterRow'> {
  const afterRow = oneOf('after_row', row, RESUME_ROWS, 'entry');
  if (v === undefined || v === null) return {};
  if (!(v instanceof Uint8Array)) throw invalidArgument('after must be bytes: a relative path');
  // Empty: not resuming, unless after the root's own error or [WARNING] row.
  if (v.length === 0 && afterRow === 'entry') return {};
  if (shape !== 'tree') throw invalidArgument('after resumes the tree shape only');
  if (v.length > MAX_AFTER_BYTES)
    throw invalidArgument(`after must be at most ${MAX_AFTER_BYTES} bytes, got ${v.length}`);
  const after = Buffer.from(v);
  if (after.includes(0)) throw invalidArgument('after must not contain NUL bytes');
  if (after.length > 0) {
    for (const part of after.toString('latin1').split('/')) {
      if (part === '' || part === '.' || part === '..') {
        throw invalidArgument("after must be a relative path without empty, '.' or '..' components");
      }
    }
  }
  return { after, afterRow };
}

function findFilter(v: FindFilter | undefined): Pick<WalkRequest, 'filter'> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object') throw invalidArgument('filter must be an object');
  const filter = checkFindFilter(v);
  return filterFeatures(filter).length > 0 ? { filter } : {};
}

/** Validates a request once against the ceilings and fills in defaults; throws invalid_argument. */
export function resolveWalkRequest(input: WalkRequestInput, ceilings: Ceilings = DEFAULT_CEILINGS): WalkRequest {
  if (typeof input !== 'object' || input === null) throw invalidArgument('walk request must be an object');
  const d = WALK_DEFAULTS;
  const req: WalkRequest = {
    path: normalizeRequestPath(input.path, 'path'),
    maxDepth: int('max_depth', input.maxDepth, d.maxDepth, 1, ceilings.maxDepth),
    maxItemsPerDir: int('max_items_per_dir', input.maxItemsPerDir, d.maxItemsPerDir, 1, ceilings.maxItemsPerDir),
    capRoot: bool('cap_root', input.capRoot, d.capRoot),
    maxEntries: int('max_entries', input.maxEntries, d.maxEntries, 1, ceilings.maxEntries),
    order: oneOf('order', input.order, ORDER_BY, d.order),
    direction: oneOf('direction', input.direction, SORT_DIRECTIONS, d.direction),
    shape: oneOf('shape', input.shape, SHAPES, d.shape),
    topN: int('top_n', input.topN, d.topN, 1, ceilings.maxTopN),
    offset: int('offset', input.offset, d.offset, 0, ceilings.maxOffset),
    include: globs('include', input.include, ceilings.maxGlobs),
    exclude: globs('exclude', input.exclude, ceilings.maxGlobs),
    types: types(input.types),
    excludeHidden: bool('exclude_hidden', input.excludeHidden, d.excludeHidden),
    followSymlinks: bool('follow_symlinks', input.followSymlinks, d.followSymlinks),
    oneFileSystem: bool('one_file_system', input.oneFileSystem, d.oneFileSystem),
    dirSizes: bool('dir_sizes', input.dirSizes, d.dirSizes),
    deadlineMs: int('deadline_ms', input.deadlineMs, d.deadlineMs, 1, ceilings.maxDeadlineMs),
    ...resumePoint(input.after, input.afterRow, oneOf('shape', input.shape, SHAPES, d.shape)),
    ...findFilter(input.filter),
  };
  if (req.shape === 'ranked') assertRankedHold(req.topN, req.offset);
  return req;
}
