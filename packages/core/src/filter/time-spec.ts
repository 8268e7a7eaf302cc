// Points in time as the filters take them: ISO 8601 (UTC unless an offset is given), or a
// duration before now (`30m`, `12h`, `7d`). `now` is injected so the same bound is sent to
// every host of a call and tests need no clock.
import { invalidArgument } from '../errors/errors.js';
import { quoted } from '../errors/quoted.js';
import type { Instant } from './filter-types.js';

export type { Instant } from './filter-types.js';

/** An instant with the precision of an mtime. */

export const TIME_HELP =
  'ISO 8601 (2026-11-30, 2026-11-30T12:00:00Z, 2026-11-30T12:00+02:00; UTC unless an offset is given) or a duration before now (90s, 30m, 12h, 7d, 2w)';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^(\d{1,6})(s|m|h|d|w)$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?)?$/;
/** Durations reach back at most this far. */
const MAX_BACK_MS = 200 * 365 * 86_400_000;

function fromMs(ms: number): Instant {
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: (ms - sec * 1000) * 1_000_000 };
}

/** An Instant from an ISO 8601 time or a duration before `nowMs`; `arg` names the argument in errors. */
export function parseTime(arg: string, value: unknown, nowMs: number): Instant {
  const bad = () => invalidArgument(`${arg}: ${quoted(value)} is not a time; use ${TIME_HELP}`);
  if (typeof value !== 'string') throw bad();
  const s = value.trim();
  const rel = RELATIVE.exec(s);
  if (rel) {
    const back = Number(rel[1]) * UNIT_MS[rel[2]];
    if (back > MAX_BACK_MS) throw invalidArgument(`${arg}: ${quoted(value)} reaches back more than 200 years`);
    return fromMs(nowMs - back);
  }
  const m = ISO.exec(s);
  if (!m) throw bad();
  const [y, mo, d, h = 0, mi = 0, se = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) =>
    x === undefined ? undefined : Number(x),
  ) as number[];
  const offsetMin = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  const check = new Date(ms);
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    se > 59 ||
    Number(m[10] ?? 0) > 23 ||
    Number(m[11] ?? 0) > 59
  ) {
    throw invalidArgument(`${arg}: ${quoted(value)} is not a valid date or time`);
  }
  const nsec = m[7] === undefined ? 0 : Number(m[7].padEnd(9, '0'));
  return { sec: ms / 1000 - offsetMin * 60, nsec };
}

/** Compares an mtime with an instant: negative when it is earlier. */
export function compareInstant(sec: number, nsec: number, instant: Instant): number {
  return sec !== instant.sec ? sec - instant.sec : nsec - instant.nsec;
}
