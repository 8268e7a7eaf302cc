// Page cursors: the offset into a merged list plus a fingerprint of the query that shaped
// it, so a cursor is refused when the query changed, and optionally the handle of a
// gateway's short-lived snapshot of that list. The offset alone is enough to go on, so a
// cursor stays valid across gateway processes (which re-rank where the snapshot is gone). Pure JS (no node:crypto):
// the fingerprint detects mistakes, it is not a security boundary.

import type { ResumeRow } from '../domain/types.js';
import { invalidArgument } from '../errors/errors.js';

const CURSOR_VERSION = '1';
const MAX_CURSOR_LENGTH = 128;

function stable(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return JSON.stringify(`${v}n`);
  if (typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? 'null' : JSON.stringify(v);
  if (v instanceof Uint8Array) return JSON.stringify(`hex:${Buffer.from(v).toString('hex')}`);
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  // A loop, not filter and map arrows: those were closures made per call, whose optimized
  // code V8 dropped at each full collection and compiled again (every scanned call fingerprints).
  const record = v as Record<string, unknown>;
  const fields: string[] = [];
  for (const k of Object.keys(record).sort()) {
    const x = record[k];
    if (x !== undefined && typeof x !== 'function' && typeof x !== 'symbol')
      fields.push(`${JSON.stringify(k)}:${stable(x)}`);
  }
  return `{${fields.join(',')}}`;
}

/** FNV-1a 64 over bytes, as 16 hex digits, on two 32-bit halves (prime = 2^40 + 0x1b3). */
export function fnv1a64(bytes: Uint8Array): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]) >>> 0;
    const t = lo * 0x1b3;
    const carry = Math.floor(t / 0x100000000);
    hi = (hi * 0x1b3 + ((lo << 8) >>> 0) + carry) >>> 0;
    lo = t >>> 0;
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** Fingerprint of the parameters that shape a list: key order does not matter, values do. */
export function queryFingerprint(parts: unknown): string {
  return fnv1a64(Buffer.from(stable(parts), 'utf8'));
}

/** Where a page cursor goes on: a row of the merged list, and the snapshot of it that was kept, if any. */
export interface PageCursor {
  offset: number;
  /** A gateway's short-lived snapshot of the ranking (16 hex digits); absent on a first page's cursor. */
  snapshot?: string;
}

/** An opaque cursor for the row at `offset` of the list `fingerprint` names. */
export function encodeCursor(offset: number, fingerprint: string, snapshot?: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError(`cursor offset must be a safe integer ≥ 0, got ${offset}`);
  if (snapshot !== undefined && !/^[0-9a-f]{16}$/.test(snapshot))
    throw new RangeError('cursor snapshot must be 16 hex digits');
  const tail = snapshot === undefined ? '' : `:${snapshot}`;
  return Buffer.from(`${CURSOR_VERSION}:${offset}:${fingerprint}${tail}`, 'utf8').toString('base64url');
}

function invalidCursor() {
  return invalidArgument('cursor is not valid for this query; start again without cursor');
}

/** A cursor's bytes: non-empty base64url of at most `maxLength` characters, in its one spelling. */
function cursorBytes(cursor: string, maxLength: number): Buffer {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > maxLength) throw invalidCursor();
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  const buf = Buffer.from(cursor, 'base64url');
  if (buf.toString('base64url') !== cursor) throw invalidCursor();
  return buf;
}

/** The position a cursor points at; invalid_argument on garbage or on a cursor of another query. */
export function decodeCursor(cursor: string, fingerprint: string): PageCursor {
  const buf = cursorBytes(cursor, MAX_CURSOR_LENGTH);
  const m = /^(\d+):(\d{1,16}):([0-9a-f]{16})(?::([0-9a-f]{16}))?$/.exec(buf.toString('latin1'));
  if (!m || m[1] !== CURSOR_VERSION || m[3] !== fingerprint) throw invalidCursor();
  const offset = Number(m[2]);
  if (!Number.isSafeInteger(offset)) throw invalidCursor();
  return m[4] === undefined ? { offset } : { offset, snapshot: m[4] };
}

// ---- tree cursors ----
// A tree page ends after some row of some host: the cursor holds that host's index in the
// selector's order and the row's resume point (core's `after` + `afterRow`), so the next
// page resumes the walk there instead of walking everything before it again. Binary, then
// base64url: [version 0x02][row kind][host index u32 BE][fingerprint 8 bytes][after bytes].

const TREE_CURSOR_VERSION = 0x02;
const TREE_HEADER = 14;
/** Row kinds: 0 = start the host from its beginning (no row of it shown yet). */
const TREE_ROWS = [undefined, 'entry', 'error', 'warning'] as const;

/** Where a tree listing goes on: host `host` (an index), after the row `after`/`afterRow` of it. */
export interface TreeCursor {
  host: number;
  /** Absent: start host `host` from its first row. */
  after?: { path: Buffer; row: ResumeRow };
}

/** Longest tree cursor: the header and a 4096-byte path, in base64url. */
export const MAX_TREE_CURSOR_LENGTH = Math.ceil(((TREE_HEADER + 4096) * 4) / 3);

/** A binary cursor's bytes (tree, path order): its header at least, its version, a known row kind. */
function binaryCursorBytes(cursor: string, maxLength: number, header: number, version: number): Buffer {
  const buf = cursorBytes(cursor, maxLength);
  if (buf.length < header || buf[0] !== version || buf[1] >= TREE_ROWS.length) throw invalidCursor();
  return buf;
}

/** The path of the row a binary cursor resumes after: what follows the header, at most 4096 bytes, no NUL. */
function resumePath(buf: Buffer, header: number): Buffer {
  const path = Buffer.from(buf.subarray(header));
  if (path.length > 4096 || path.includes(0)) throw invalidCursor();
  return path;
}

export function encodeTreeCursor(pos: TreeCursor, fingerprint: string): string {
  if (!Number.isSafeInteger(pos.host) || pos.host < 0 || pos.host > 0xffffffff)
    throw new RangeError(`cursor host index must be an integer from 0 to 2^32-1, got ${pos.host}`);
  if (!/^[0-9a-f]{16}$/.test(fingerprint)) throw new RangeError('cursor fingerprint must be 16 hex digits');
  const path = pos.after?.path ?? Buffer.alloc(0);
  const header = Buffer.alloc(TREE_HEADER);
  header[0] = TREE_CURSOR_VERSION;
  header[1] = pos.after ? TREE_ROWS.indexOf(pos.after.row) : 0;
  header.writeUInt32BE(pos.host, 2);
  header.write(fingerprint, 6, 'hex');
  return Buffer.concat([header, path]).toString('base64url');
}

/** The position a tree cursor holds; invalid_argument on garbage or on a cursor of another query. */
export function decodeTreeCursor(cursor: string, fingerprint: string): TreeCursor {
  const buf = binaryCursorBytes(cursor, MAX_TREE_CURSOR_LENGTH, TREE_HEADER, TREE_CURSOR_VERSION);
  if (buf.toString('hex', 6, TREE_HEADER) !== fingerprint) throw invalidCursor();
  const host = buf.readUInt32BE(2);
  const row = TREE_ROWS[buf[1]];
  const path = resumePath(buf, TREE_HEADER);
  if (row === undefined) {
    if (path.length > 0) throw invalidCursor();
    return { host };
  }
  return { host, after: { path, row } };
}

// ---- path-order cursors (list_files in name order) ----
// A page in path order ends after a row; the next resumes every host's walk after it, so
// any tree pages through to its last entry. When the cut falls inside a group of rows with
// the same path on several hosts, `host` says which hosts (by index in the selector's
// order, up to and including it) showed that path. `index` is the next row's position in
// the whole listing (for "Showing 201-400"); `snapshot` names a gateway's kept chunk of
// rows, an optimisation only. Binary, then base64url:
// [version 0x03][row kind][index u32][host u32, all = 2^32-1][fingerprint 8][snapshot 8, 0 = none][after].

const PATH_CURSOR_VERSION = 0x03;
const PATH_HEADER = 26;
const ALL_HOSTS = 0xffffffff;

export interface PathCursor {
  /** Position of the next row in the whole listing. */
  index: number;
  /** The last row shown; absent: start from the beginning. */
  after?: { path: Buffer; row: ResumeRow };
  /** The cut is inside `after`'s group: only hosts 0..host showed it. */
  host?: number;
  snapshot?: string;
}

/** Longest path cursor: the header and a 4096-byte path, in base64url. */
export const MAX_PATH_CURSOR_LENGTH = Math.ceil(((PATH_HEADER + 4096) * 4) / 3);

export function encodePathCursor(pos: PathCursor, fingerprint: string): string {
  if (!Number.isSafeInteger(pos.index) || pos.index < 0 || pos.index > 0xffffffff)
    throw new RangeError(`cursor index must be an integer from 0 to 2^32-1, got ${pos.index}`);
  if (pos.host !== undefined && (!Number.isSafeInteger(pos.host) || pos.host < 0 || pos.host >= ALL_HOSTS))
    throw new RangeError(`cursor host index must be an integer from 0 to 2^32-2, got ${pos.host}`);
  if (!/^[0-9a-f]{16}$/.test(fingerprint)) throw new RangeError('cursor fingerprint must be 16 hex digits');
  if (pos.snapshot !== undefined && !/^[0-9a-f]{16}$/.test(pos.snapshot))
    throw new RangeError('cursor snapshot must be 16 hex digits');
  const header = Buffer.alloc(PATH_HEADER);
  header[0] = PATH_CURSOR_VERSION;
  header[1] = pos.after ? TREE_ROWS.indexOf(pos.after.row) : 0;
  header.writeUInt32BE(pos.index, 2);
  header.writeUInt32BE(pos.host ?? ALL_HOSTS, 6);
  header.write(fingerprint, 10, 'hex');
  if (pos.snapshot !== undefined) header.write(pos.snapshot, 18, 'hex');
  return Buffer.concat([header, pos.after?.path ?? Buffer.alloc(0)]).toString('base64url');
}

/** The position a path cursor holds; invalid_argument on garbage or on a cursor of another query. */
export function decodePathCursor(cursor: string, fingerprint: string): PathCursor {
  const buf = binaryCursorBytes(cursor, MAX_PATH_CURSOR_LENGTH, PATH_HEADER, PATH_CURSOR_VERSION);
  if (buf.toString('hex', 10, 18) !== fingerprint) throw invalidCursor();
  const index = buf.readUInt32BE(2);
  const host = buf.readUInt32BE(6);
  const snap = buf.toString('hex', 18, PATH_HEADER);
  const row = TREE_ROWS[buf[1]];
  const path = resumePath(buf, PATH_HEADER);
  if ((row === undefined) !== (path.length === 0) || (row === undefined && host !== ALL_HOSTS)) throw invalidCursor();
  return {
    index,
    ...(row !== undefined ? { after: { path, row } } : {}),
    ...(host !== ALL_HOSTS ? { host } : {}),
    ...(snap !== '0000000000000000' ? { snapshot: snap } : {}),
  };
}
