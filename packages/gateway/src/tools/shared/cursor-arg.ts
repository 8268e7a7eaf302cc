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
