// How raw values are shown, without Node: names (bytes) escaped losslessly, times in the
// host's offset, sizes and modes as `ls -l` shows them. display.ts adds Buffer's fast paths;
// the web dashboard bundles this file as it is, so a name reads the same in both.
import type { EntryType } from '../domain/types.js';

export const HEX = '0123456789abcdef';

function hexByte(b: number): string {
  return `\\x${HEX[b >> 4]}${HEX[b & 15]}`;
}

/**
 * Code points that valid UTF-8 may carry but that would break a line or mislead a reader:
 * C1 controls (U+0085 is a newline to some), the Unicode line and paragraph separators,
 * and bidirectional overrides ("Trojan Source" names). Shown as `\uXXXX`.
 */
function needsUnicodeEscape(cp: number): boolean {
  return (
    (cp >= 0x80 && cp <= 0x9f) ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069)
  );
}

export const SPECIAL_UNICODE = /[\u0080-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function escapeAscii(b: number): string {
  switch (b) {
    case 0x5c:
      return '\\\\';
    case 0x0a:
      return '\\n';
    case 0x09:
      return '\\t';
    case 0x0d:
      return '\\r';
    default:
      return b < 0x20 || b === 0x7f ? hexByte(b) : String.fromCharCode(b);
  }
}

/** Length of the valid UTF-8 sequence starting at i (2–4), or 0 when it is not one. */
function utf8SeqLen(buf: Uint8Array, i: number): number {
  const b0 = buf[i];
  const cont = (k: number) => i + k < buf.length && (buf[i + k] & 0xc0) === 0x80;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    const b1 = buf[i + 1];
    if (b0 === 0xe0 && b1 < 0xa0) return 0; // overlong
    if (b0 === 0xed && b1 >= 0xa0) return 0; // UTF-16 surrogate
    return 3;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const b1 = buf[i + 1];
    if (b0 === 0xf0 && b1 < 0x90) return 0; // overlong
    if (b0 === 0xf4 && b1 >= 0x90) return 0; // beyond U+10FFFF
    return 4;
  }
  return 0;
}

export function needsNoEscape(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0x20 || b === 0x5c || b === 0x7f) return false;
  }
  return true;
}

/** The code point of the valid UTF-8 sequence of n bytes at i (utf8SeqLen checked it). */
function codePointAt(b: Uint8Array, i: number, n: number): number {
  if (n === 2) return ((b[i] & 0x1f) << 6) | (b[i + 1] & 0x3f);
  if (n === 3) return ((b[i] & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
  return ((b[i] & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
}

/** Every byte of `bytes` shown escaped where it must be (the slow path of displayPath). */
export function escapeBytes(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      out += escapeAscii(b);
      i++;
      continue;
    }
    const n = utf8SeqLen(bytes, i);
    if (n === 0) {
      out += hexByte(b);
      i++;
      continue;
    }
    const cp = codePointAt(bytes, i, n);
    out += needsUnicodeEscape(cp) ? `\\u${cp.toString(16).padStart(4, '0')}` : String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Raw name bytes → a readable string that `parseDisplayPath` turns back into the same bytes.
 * Valid UTF-8 is kept; `\` → `\\`; newline, tab, CR → `\n`, `\t`, `\r`; other control bytes,
 * DEL and every byte of invalid UTF-8 → `\xNN`; confusing code points → `\uXXXX`.
 * Pure (no Buffer): the dashboard shows names with it exactly as the text answers do.
 */
export function displayBytes(bytes: Uint8Array): string {
  if (needsNoEscape(bytes)) {
    let s: string | undefined;
    try {
      s = strictUtf8.decode(bytes);
    } catch {
      s = undefined;
    }
    if (s !== undefined && !SPECIAL_UNICODE.test(s)) return s;
  }
  return escapeBytes(bytes);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * mtime → ISO 8601 to the second in the host's UTC offset, e.g. "2023-11-15T03:58:21+05:45".
 * Nanoseconds are dropped (floored), as `ls --full-time` would round them down too.
 */
export function formatMtime(sec: number, _nsec: number, utcOffsetMin: number): string {
  const off = Math.trunc(utcOffsetMin) || 0;
  const d = new Date((Math.floor(sec) + off * 60) * 1000);
  const y = d.getUTCFullYear();
  if (Number.isNaN(y)) return `@${sec}`;
  const year =
    y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}`;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return (
    `${year}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}` +
    `${sign}${pad2(Math.floor(a / 60))}:${pad2(a % 60)}`
  );
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** Bytes → "0 B", "999 B", "1.5 KiB", "12 MiB": one decimal below 10, none above, as `ls -h`. */
export function humanSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${bytes} B`;
  let u = 0;
  let v = bytes;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const tenths = Math.round(v * 10) / 10;
  let text = tenths < 10 ? tenths.toFixed(1) : String(Math.round(v));
  // Rounding may carry into the next unit: 1023.6 KiB is "1.0 MiB".
  if (Number(text) >= 1024 && u < UNITS.length - 1) {
    u++;
    text = '1.0';
  }
  return `${text} ${UNITS[u]}`;
}

const TYPE_CHAR: Record<EntryType, string> = {
  file: '-',
  dir: 'd',
  symlink: 'l',
  fifo: 'p',
  socket: 's',
  char: 'c',
  block: 'b',
  unknown: '?',
};

/** Mode → `ls -l`'s "drwxr-xr-x", with setuid/setgid/sticky as s/S and t/T. */
export function modeString(mode: number, type: EntryType): string {
  const bit = (mask: number, ch: string) => (mode & mask ? ch : '-');
  const exec = (x: number, special: number, on: string, off: string) => {
    if (mode & special) return mode & x ? on : off;
    return mode & x ? 'x' : '-';
  };
  return (
    (TYPE_CHAR[type] ?? '?') +
    bit(0o400, 'r') +
    bit(0o200, 'w') +
    exec(0o100, 0o4000, 's', 'S') +
    bit(0o040, 'r') +
    bit(0o020, 'w') +
    exec(0o010, 0o2000, 's', 'S') +
    bit(0o004, 'r') +
    bit(0o002, 'w') +
    exec(0o001, 0o1000, 't', 'T')
  );
}

/** Permission and special bits as four octal digits: "0755", "4755", "1777". */
export function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
