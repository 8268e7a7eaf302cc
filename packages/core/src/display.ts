// How raw values are shown to people and models: names (bytes on Linux) escaped losslessly,
// times in the host's offset, sizes, and modes the way `ls -l` and `stat` show them.
import { isUtf8 } from 'node:buffer';
import { invalidArgument } from './errors.js';
import type { EntryType } from './types.js';

const HEX = '0123456789abcdef';

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

const SPECIAL_UNICODE = /[\u0080-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

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
function utf8SeqLen(buf: Buffer, i: number): number {
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

function needsNoEscape(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0x20 || b === 0x5c || b === 0x7f) return false;
  }
  return true;
}

/**
 * Raw name bytes → a readable string that `parseDisplayPath` turns back into the same bytes.
 * Valid UTF-8 is kept; `\` → `\\`; newline, tab, CR → `\n`, `\t`, `\r`; other control bytes,
 * DEL and every byte of invalid UTF-8 → `\xNN`; confusing code points → `\uXXXX`.
 */
export function displayPath(bytes: Buffer): string {
  if (needsNoEscape(bytes) && isUtf8(bytes)) {
    const s = bytes.toString('utf8');
    if (!SPECIAL_UNICODE.test(s)) return s;
  }
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
    const s = bytes.toString('utf8', i, i + n);
    const cp = s.codePointAt(0)!;
    out += needsUnicodeEscape(cp) ? `\\u${cp.toString(16).padStart(4, '0')}` : s;
    i += n;
  }
  return out;
}

function hexValue(s: string, at: number, digits: number): number {
  let v = 0;
  for (let k = 0; k < digits; k++) {
    const c = s[at + k];
    const d = c === undefined ? -1 : HEX.indexOf(c.toLowerCase());
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** Inverse of `displayPath`: a displayed name back to its raw bytes. Unknown escapes are refused. */
export function parseDisplayPath(s: string): Buffer {
  if (!s.includes('\\')) return Buffer.from(s, 'utf8');
  const out: Buffer[] = [];
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) out.push(Buffer.from(s.slice(start, end), 'utf8'));
  };
  while (i < s.length) {
    if (s[i] !== '\\') {
      i++;
      continue;
    }
    flush(i);
    const c = s[i + 1];
    let bytes: Buffer;
    let len = 2;
    if (c === '\\') bytes = Buffer.from([0x5c]);
    else if (c === 'n') bytes = Buffer.from([0x0a]);
    else if (c === 't') bytes = Buffer.from([0x09]);
    else if (c === 'r') bytes = Buffer.from([0x0d]);
    else if (c === 'x' && hexValue(s, i + 2, 2) >= 0) {
      bytes = Buffer.from([hexValue(s, i + 2, 2)]);
      len = 4;
    } else if (c === 'u' && hexValue(s, i + 2, 4) >= 0) {
      bytes = Buffer.from(String.fromCharCode(hexValue(s, i + 2, 4)), 'utf8');
      len = 6;
    } else {
      throw invalidArgument(
        `path has an invalid escape at character ${i} (use \\\\ for a backslash, \\xNN for a raw byte)`,
      );
    }
    out.push(bytes);
    i += len;
    start = i;
  }
  flush(i);
  return Buffer.concat(out);
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
