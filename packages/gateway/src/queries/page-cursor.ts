// An opaque cursor for a ranked listing across hosts: the merged position to go on from,
// bound to the query it came from (a cursor of another query is refused, not misread).
import { createHash } from 'node:crypto';
import { invalidArgument } from '@fleetls/core';

interface CursorBody {
  v: 1;
  /** Rows of the merged list already handed out. */
  o: number;
  /** Fingerprint of the query. */
  f: string;
}

/** A short hash of the arguments that define the list (not the page). */
export function queryFingerprint(query: Record<string, unknown>): string {
  const keys = Object.keys(query).sort();
  const canon = JSON.stringify(keys.map((k) => [k, query[k] ?? null]));
  return createHash('sha256').update(canon).digest('base64url').slice(0, 16);
}

export function encodePageCursor(offset: number, fingerprint: string): string {
  const body: CursorBody = { v: 1, o: offset, f: fingerprint };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The offset a cursor stands for; throws invalid_argument naming `cursor` when it is not this query's. */
export function decodePageCursor(cursor: string, fingerprint: string, maxOffset: number): number {
  let body: Partial<CursorBody>;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidArgument('cursor is not one this server handed out (pass next_cursor unchanged)');
  }
  if (body?.v !== 1 || typeof body.o !== 'number' || !Number.isInteger(body.o) || typeof body.f !== 'string') {
    throw invalidArgument('cursor is not one this server handed out (pass next_cursor unchanged)');
  }
  if (body.f !== fingerprint) {
    throw invalidArgument(
      'cursor belongs to another query: keep host, path, order_by, sort, top_n, max_depth, pattern and type unchanged between pages',
    );
  }
  if (body.o < 0 || body.o > maxOffset) throw invalidArgument(`cursor position must be from 0 to ${maxOffset}`);
  return body.o;
}
