// Owners and groups as the filters take them: a numeric id, or a name that the edge nearest
// the host resolves (the agent locally, the SSH backend on the remote host). Core compares
// numbers only.
import { invalidArgument } from '../errors/errors.js';
import { quoted } from '../errors/quoted.js';
import type { IdSpec } from './filter-types.js';

export type { IdSpec } from './filter-types.js';

/** Largest id accepted (uid_t is 32 bits; 2^32-1 means "no id"). */
export const MAX_ID = 4_294_967_294;
/** A POSIX-portable user or group name (plus the '$' of machine accounts). */
const NAME = /^[A-Za-z_][A-Za-z0-9._-]{0,31}\$?$/;

/** `owner` or `group`: what it accepts, for error messages. */
export function idHelp(arg: string): string {
  return `a ${arg === 'group' ? 'group name or a numeric gid' : 'user name or a numeric uid'} (0 to ${MAX_ID})`;
}

export function parseIdSpec(arg: string, value: unknown): IdSpec {
  const bad = () => invalidArgument(`${arg}: ${quoted(value)} is not ${idHelp(arg)}`);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > MAX_ID) throw bad();
    return { id: value };
  }
  if (typeof value !== 'string') throw bad();
  const s = value.trim();
  if (/^\d{1,10}$/.test(s)) return parseIdSpec(arg, Number(s));
  if (!NAME.test(s)) throw bad();
  return { name: s };
}
