// The find-like filters as tool arguments (list_files): their zod shapes for the MCP
// schema, the CLI flags, and the one parse into core's FindFilter. The schema only says
// "string or number"; core parses the value and names the argument and what it accepts.
import { type FindFilter, type FindFilterArgs, parseFindFilterArgs } from '@fleetls/core';
import { Option } from 'commander';
import { z } from 'zod';

const text = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .max(256, { error: `${name} must be at most 256 characters` })
    .optional();
const textOrNumber = (name: string) =>
  z.union([z.string().max(256), z.number()], { error: `${name} must be a string or a number` }).optional();

export const filterInput = {
  min_size: textOrNumber('min_size').describe('Size at least: bytes, 10K, 5M, 1.5G'),
  max_size: textOrNumber('max_size').describe('Size at most (as min_size)'),
  modified_after: text('modified_after').describe('ISO 8601 or an age: 30m, 12h, 7d'),
  modified_before: text('modified_before').describe('Modified before (as modified_after)'),
  owner: textOrNumber('owner').describe('User name or uid'),
  group: textOrNumber('group').describe('Group name or gid'),
  perm: text('perm').describe('As find -perm: 644, -u+x (all), /o+w (any)'),
  name: text('name').describe('Glob on the base name'),
};

export type FilterArgs = { [K in keyof typeof filterInput]?: string | number };

/** The filter of a call; relative times count back from `nowMs`, once for every host. */
export function planFilter(a: FilterArgs, nowMs: number): FindFilter | undefined {
  return parseFindFilterArgs(a as FindFilterArgs, nowMs);
}

/** The raw filter arguments, for a cursor's fingerprint (a cursor is valid for the same filters only). */
export function filterFingerprint(a: FilterArgs): Record<string, unknown> {
  return Object.fromEntries(Object.keys(filterInput).map((k) => [k, a[k as keyof FilterArgs]]));
}

export function filterOptions(): Option[] {
  return [
    new Option('--min-size <size>', 'only entries of at least SIZE (bytes, or 10K, 5M, 1G)'),
    new Option('--max-size <size>', 'only entries of at most SIZE'),
    new Option('--modified-after <time>', 'only entries modified after TIME (ISO 8601, or 30m, 12h, 7d ago)'),
    new Option('--modified-before <time>', 'only entries modified before TIME'),
    new Option('--owner <user>', 'only entries of this user (name or uid)'),
    new Option('--group <group>', 'only entries of this group (name or gid)'),
    new Option('--perm <mode>', "permission test as find's -perm: 644, -220 (all), /o+w (any)"),
    new Option('--name <glob>', 'only entries whose base name matches GLOB'),
  ];
}

/** The tool arguments of the filter flags (commander's camelCase keys). */
export function filterArgsOf(o: Record<string, unknown>): FilterArgs {
  return {
    min_size: o.minSize as string | undefined,
    max_size: o.maxSize as string | undefined,
    modified_after: o.modifiedAfter as string | undefined,
    modified_before: o.modifiedBefore as string | undefined,
    owner: o.owner as string | undefined,
    group: o.group as string | undefined,
    perm: o.perm as string | undefined,
    name: o.name as string | undefined,
  };
}
