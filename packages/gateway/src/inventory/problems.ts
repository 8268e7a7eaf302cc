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

export function describe(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

export function isObject(v: Json): v is { [k: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function keyPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

export function unknownKeys(p: Problems, path: string, obj: { [k: string]: Json }, known: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) p.add(keyPath(path, k), `unknown key (expected one of: ${known.join(', ')})`);
  }
}

/** One error listing every problem. */
export function fail(source: string, p: Problems): never {
  const n = p.list.length;
  throw new FleetError(
    'invalid_argument',
    `invalid inventory ${source}: ${n} problem${n === 1 ? '' : 's'}:\n${p.list.map((l) => `  - ${l}`).join('\n')}`,
  );
}
