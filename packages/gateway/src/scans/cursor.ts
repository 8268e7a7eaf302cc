// A scan's cursor: `scan.<id>.<batch>.<row>`, the scan's handle and where in its deliveries
// the next page starts. A tool's own cursors are base64url (no dots), so the two never meet.
import { type FleetError, invalidArgument } from '@fleetls/core';

export interface ScanPosition {
  id: string;
  batch: number;
  row: number;
}

const PATTERN = /^scan\.([0-9a-f]{16})\.(\d{1,9})\.(\d{1,9})$/;

export function encodeScanCursor(position: ScanPosition): string {
  return `scan.${position.id}.${position.batch}.${position.row}`;
}

export function isScanCursor(cursor: unknown): cursor is string {
  return typeof cursor === 'string' && cursor.startsWith('scan.');
}

/** The position a scan cursor names; invalid_argument naming the argument on garbage. */
export function decodeScanCursor(cursor: string, argument = 'cursor'): ScanPosition {
  const m = PATTERN.exec(cursor);
  if (!m) throw invalidArgument(`${argument} is not a scan cursor: pass next_cursor unchanged`);
  return { id: m[1], batch: Number(m[2]), row: Number(m[3]) };
}

/**
 * A cursor of another query, or garbage (a tool's own cursor or a scan's). `unchanged`: the
 * arguments a page must repeat, as the tool names them.
 */
export function invalidCursor(unchanged: string): FleetError {
  return invalidArgument(
    `cursor is not valid for this query: pass next_cursor unchanged, with ${unchanged} as on the first page`,
  );
}
