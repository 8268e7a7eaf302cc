// Sizes as find and du take them: bytes, or a number with K, M, G, T or P in powers of 1024.
import { invalidArgument } from '../errors/errors.js';
import { quoted } from '../errors/quoted.js';

const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };
const SIZE = /^(\d{1,16})(?:\.(\d{1,6}))?\s?([KMGTP]?)(?:I?B)?$/;

/** What a size argument accepts, for error messages. */
export const SIZE_HELP = 'bytes, or a number with K, M, G, T or P (powers of 1024), e.g. 512, 10K, 5M, 1.5G';

/** A byte count from a number of bytes or a string such as `10K`, `5M`, `1G` (case-insensitive). */
export function parseSize(arg: string, value: unknown): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    throw invalidArgument(`${arg}: ${value} is not a size; use ${SIZE_HELP}`);
  }
  const m = typeof value === 'string' ? SIZE.exec(value.trim().toUpperCase()) : null;
  if (!m) throw invalidArgument(`${arg}: ${quoted(value)} is not a size; use ${SIZE_HELP}`);
  const unit = UNITS[m[3]];
  const whole = Number(m[1]) * unit;
  const frac = m[2] === undefined ? 0 : Math.floor(Number(`0.${m[2]}`) * unit + 1e-9);
  const bytes = whole + frac;
  if (!Number.isSafeInteger(bytes)) throw invalidArgument(`${arg}: ${quoted(value)} is too large (at most 8P)`);
  return bytes;
}
