// The inventory parsers' shared vocabulary: every problem collected with its key path, and
// the small checks each section uses.
import { FleetError } from '@fleetls/core';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every problem of an inventory, each with its place (key path or file:line). */
export class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(path ? `${path}: ${message}` : message);
  }
  /** The error for a file refused as a whole. */
  refuse(source: string, message: string): FleetError {
    return new FleetError('invalid_argument', `inventory ${source}: ${message}`);
  }
}

export function describe(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

export function isObject(value: Json): value is { [k: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function keyPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

export function unknownKeys(
  problems: Problems,
  path: string,
  obj: { [k: string]: Json },
  known: readonly string[],
): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) problems.add(keyPath(path, k), `unknown key (expected one of: ${known.join(', ')})`);
  }
}

/** One error listing every problem. */
export function fail(source: string, problems: Problems): never {
  const n = problems.list.length;
  throw new FleetError(
    'invalid_argument',
    `invalid inventory ${source}: ${n} problem${n === 1 ? '' : 's'}:\n${problems.list.map((l) => `  - ${l}`).join('\n')}`,
  );
}
