import { decodeCursor, queryFingerprint } from '@fleetls/core';
import { invalidCursor } from '../../scans/cursor.js';

// Declared with the scan cursor (scans/, below tools/, refuses with it too); tools take it here.
export { invalidCursor };

/**
 * A cursor argument decoded against this query's fingerprint. A cursor of another query (or
 * garbage) is refused with the one message every tool gives, naming what must not change.
 */
export function decodeCursorArg<T>(
  decode: (cursor: string, fingerprint: string) => T,
  cursor: string,
  fingerprint: string,
  unchanged: string,
): T {
  try {
    return decode(cursor, fingerprint);
  } catch {
    throw invalidCursor(unchanged);
  }
}

/**
 * A paged call's query: the fingerprint of the tool, the arguments its pages share (`same`)
 * and what else they share that is no argument (`also`), and the cursor if one is given,
 * decoded against it by `decode`. A cursor of another query, or one `decode` refuses, is
 * refused naming `same`.
 */
export function pagedQuery<T>(
  tool: string,
  args: Record<string, unknown> & { cursor?: string },
  same: readonly string[],
  decode: (cursor: string, fingerprint: string) => T,
  also: Record<string, unknown> = {},
): { fingerprint: string; at: T | undefined } {
  const fingerprint = queryFingerprint({ tool, ...also, ...Object.fromEntries(same.map((k) => [k, args[k]])) });
  if (args.cursor === undefined) return { fingerprint, at: undefined };
  const unchanged = `${same.slice(0, -1).join(', ')} and ${same.at(-1)}`;
  return { fingerprint, at: decodeCursorArg(decode, args.cursor, fingerprint, unchanged) };
}

/** An offset-paged call's query (`pagedQuery`): its fingerprint, and where this page starts (0, or a cursor's offset). */
export function offsetQuery(
  tool: string,
  args: Record<string, unknown> & { cursor?: string },
  same: readonly string[],
): { fingerprint: string; start: number } {
  const { fingerprint, at } = pagedQuery(tool, args, same, decodeCursor);
  return { fingerprint, start: at?.offset ?? 0 };
}
