// How raw values are shown to people and models: names (bytes on Linux) escaped losslessly,
// times in the host's offset, sizes, and modes the way `ls -l` and `stat` show them. The
// pure parts are render/display-text.ts (the dashboard bundles it); this file adds Buffer's paths.
import { isUtf8 } from 'node:buffer';
import { invalidArgument } from '../errors/errors.js';
import { escapeBytes, HEX, needsNoEscape, SPECIAL_UNICODE } from './display-text.js';

export { displayBytes, formatMtime, humanSize, modeString, octalMode } from './display-text.js';

/**
 * Raw name bytes → a readable string that `parseDisplayPath` turns back into the same bytes
 * (render/display-text.ts's displayBytes, with Node's faster UTF-8 check).
 */
export function displayPath(bytes: Buffer): string {
  if (needsNoEscape(bytes) && isUtf8(bytes)) {
    const s = bytes.toString('utf8');
    if (!SPECIAL_UNICODE.test(s)) return s;
  }
  return escapeBytes(bytes);
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
export function parseDisplayPath(text: string): Buffer {
  if (!text.includes('\\')) return Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) out.push(Buffer.from(text.slice(start, end), 'utf8'));
  };
  while (i < text.length) {
    if (text[i] !== '\\') {
      i++;
      continue;
    }
    flush(i);
    const c = text[i + 1];
    let bytes: Buffer;
    let len = 2;
    if (c === '\\') bytes = Buffer.from([0x5c]);
    else if (c === 'n') bytes = Buffer.from([0x0a]);
    else if (c === 't') bytes = Buffer.from([0x09]);
    else if (c === 'r') bytes = Buffer.from([0x0d]);
    else if (c === 'x' && hexValue(text, i + 2, 2) >= 0) {
      bytes = Buffer.from([hexValue(text, i + 2, 2)]);
      len = 4;
    } else if (c === 'u' && hexValue(text, i + 2, 4) >= 0) {
      bytes = Buffer.from(String.fromCharCode(hexValue(text, i + 2, 4)), 'utf8');
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
