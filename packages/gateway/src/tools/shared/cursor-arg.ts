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
 * An offset-paged call's query: the fingerprint of the tool and the arguments its pages share
 * (`same`), and where this page starts (0, or a cursor's offset; a cursor of another query is
 * refused naming `same`).
 */
export function offsetQuery(
  tool: string,
  args: Record<string, unknown> & { cursor?: string },
  same: readonly string[],
): { fingerprint: string; start: number } {
  const fingerprint = queryFingerprint({ tool, ...Object.fromEntries(same.map((k) => [k, args[k]])) });
  if (args.cursor === undefined) return { fingerprint, start: 0 };
  const unchanged = `${same.slice(0, -1).join(', ')} and ${same.at(-1)}`;
  return { fingerprint, start: decodeCursorArg(decodeCursor, args.cursor, fingerprint, unchanged).offset };
}
