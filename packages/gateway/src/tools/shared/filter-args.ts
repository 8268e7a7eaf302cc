// The find-like filters as tool arguments (list_files): their zod shapes for the MCP
// schema (the CLI flags are derived from them), and the one parse into core's FindFilter. The schema only says
// "string or number"; core parses the value and names the argument and what it accepts.
import { type FindFilter, type FindFilterArgs, parseFindFilterArgs } from '@fleetls/core';
import { z } from 'zod';
import { cliHelp } from '../schemas.js';

/** Longest filter value taken to core's parse (a size, a time, a name, a mode). */
const FILTER_LENGTH = 256;
const tooLong = (name: string) => ({ error: `${name} must be at most ${FILTER_LENGTH} characters` });
const text = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .max(FILTER_LENGTH, tooLong(name))
    .optional();
// The string branch names its bound itself: a union answers the issue of the branch the type
// matched, and zod's default ("Too big: expected string…") names no argument.
const textOrNumber = (name: string) =>
  z
    .union([z.string().max(FILTER_LENGTH, tooLong(name)), z.number()], {
      error: `${name} must be a string or a number`,
    })
    .optional();

export const filterInput = {
  min_size: textOrNumber('min_size').describe('Size at least: bytes, 10K, 5M, 1.5G'),
  max_size: textOrNumber('max_size').describe('Size at most (as min_size)'),
  modified_after: text('modified_after')
    .describe('ISO 8601 or an age: 30m, 12h, 7d')
    .register(cliHelp, { help: 'modified after: ISO 8601 or an age (30m, 12h, 7d)' }),
  modified_before: text('modified_before').describe('Modified before (as modified_after)'),
  owner: textOrNumber('owner').describe('User name or uid'),
  group: textOrNumber('group').describe('Group name or gid'),
  perm: text('perm').describe('As find -perm: 644, -u+x (all), /o+w (any)'),
  name: text('name').describe('Glob on the base name'),
};

export type FilterArgs = { [K in keyof typeof filterInput]?: string | number };

/** The filter of a call; relative times count back from `nowMs`, once for every host. */
export function planFilter(args: FilterArgs, nowMs: number): FindFilter | undefined {
  return parseFindFilterArgs(args as FindFilterArgs, nowMs);
}

/** The raw filter arguments, for a cursor's fingerprint (a cursor is valid for the same filters only). */
export function filterFingerprint(args: FilterArgs): Record<string, unknown> {
  return Object.fromEntries(Object.keys(filterInput).map((k) => [k, args[k as keyof FilterArgs]]));
}
