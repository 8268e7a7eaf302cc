// Page cursors: the offset into a merged list plus a fingerprint of the query that shaped
// it, so a cursor is refused when the query changed. They hold no host state, so they stay
// valid across gateway processes and whichever hosts answer. Pure JS (no node:crypto):
// the fingerprint detects mistakes, it is not a security boundary.
import { invalidArgument } from './errors.js';

const CURSOR_VERSION = '1';
const MAX_CURSOR_LENGTH = 128;

function stable(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return JSON.stringify(`${v}n`);
  if (typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? 'null' : JSON.stringify(v);
  if (v instanceof Uint8Array) return JSON.stringify(`hex:${Buffer.from(v).toString('hex')}`);
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  const keys = Object.keys(v)
    .filter((k) => {
      const x = (v as Record<string, unknown>)[k];
      return x !== undefined && typeof x !== 'function' && typeof x !== 'symbol';
    })
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`).join(',')}}`;
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

/** An opaque cursor for the row at `offset` of the list `fingerprint` names. */
export function encodeCursor(offset: number, fingerprint: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError(`cursor offset must be a safe integer ≥ 0, got ${offset}`);
  return Buffer.from(`${CURSOR_VERSION}:${offset}:${fingerprint}`, 'utf8').toString('base64url');
}

/** The offset a cursor points at; invalid_argument on garbage or on a cursor of another query. */
export function decodeCursor(cursor: string, fingerprint: string): number {
  const bad = () => invalidArgument('cursor is not valid for this query; start again without cursor');
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw bad();
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  const buf = Buffer.from(cursor, 'base64url');
  if (buf.toString('base64url') !== cursor) throw bad();
  const m = /^(\d+):(\d{1,16}):([0-9a-f]{16})$/.exec(buf.toString('latin1'));
  if (!m || m[1] !== CURSOR_VERSION || m[3] !== fingerprint) throw bad();
  const offset = Number(m[2]);
  if (!Number.isSafeInteger(offset)) throw bad();
  return offset;
}
