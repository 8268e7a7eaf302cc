import { type FleetError, invalidArgument } from '@fleetls/core';

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

/** `unchanged`: the arguments a page must repeat, as the tool names them. */
export function invalidCursor(unchanged: string): FleetError {
  return invalidArgument(
    `cursor is not valid for this query: pass next_cursor unchanged, with ${unchanged} as on the first page`,
  );
}
