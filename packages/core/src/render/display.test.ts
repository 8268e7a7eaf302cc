import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EntryType } from '../domain/types.js';
import { FleetError } from '../errors/errors.js';
import { displayPath, formatMtime, humanSize, modeString, octalMode, parseDisplayPath } from './display.js';
import { displayBytes } from './display-text.js';

const b = (...xs: (number | string)[]) =>
  Buffer.concat(xs.map((x) => (typeof x === 'string' ? Buffer.from(x, 'utf8') : Buffer.from([x]))));

describe('displayPath', () => {
  const CASES: [string, Buffer, string][] = [
    ['empty', b(), ''],
    ['plain ASCII', b('a/b.txt'), 'a/b.txt'],
    ['UTF-8 kept', b('café/日本/x😀'), 'café/日本/x😀'],
    ['quotes kept', b(`it's "q"`), `it's "q"`],
    ['backslash', b('a\\b'), 'a\\\\b'],
    ['newline, tab, CR', b('a\nb\tc\rd'), 'a\\nb\\tc\\rd'],
    ['NUL and ESC', b(0, 0x1b), '\\x00\\x1b'],
    ['DEL', b('x', 0x7f), 'x\\x7f'],
    ['latin-1 byte', b('caf', 0xe9), 'caf\\xe9'],
    ['lone continuation', b(0x80, 'a'), '\\x80a'],
    ['truncated 3-byte', b(0xe6, 0x97, 'x'), '\\xe6\\x97x'],
    ['overlong slash', b(0xc0, 0xaf), '\\xc0\\xaf'],
    ['overlong 3-byte', b(0xe0, 0x80, 0xaf), '\\xe0\\x80\\xaf'],
    ['surrogate', b(0xed, 0xa0, 0x80), '\\xed\\xa0\\x80'],
    ['beyond U+10FFFF', b(0xf4, 0x90, 0x80, 0x80), '\\xf4\\x90\\x80\\x80'],
    ['0xff', b(0xff, 0xfe), '\\xff\\xfe'],
    ['C1 NEL', b('a\u0085b'), 'a\\u0085b'],
    ['line separator', b('a\u2028b'), 'a\\u2028b'],
    ['bidi override', b('a\u202eb'), 'a\\u202eb'],
    ['escape-looking text', b('\\x41'), '\\\\x41'],
  ];
  for (const [name, input, want] of CASES) {
    it(name, () => {
      assert.equal(displayPath(input), want);
      assert.equal(displayBytes(new Uint8Array(input)), want, 'the dashboard shows it alike');
      assert.deepEqual(parseDisplayPath(want), input);
    });
  }

  it('never emits a line break or control character', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the test
    assert.doesNotMatch(displayPath(all), /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  });

  it('round-trips random bytes', () => {
    let seed = 12345;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed >> 8;
    };
    const pool = [0x00, 0x0a, 0x5c, 0x78, 0x7f, 0x80, 0xc3, 0xa9, 0xe2, 0x80, 0xa8, 0xf0, 0x9f, 0x98, 0x80, 0xff];
    for (let k = 0; k < 5000; k++) {
      const len = rnd() % 24;
      const bytes = Buffer.from(
        Array.from({ length: len }, () => (rnd() % 2 ? pool[rnd() % pool.length] : rnd() % 256)),
      );
      const shown = displayPath(bytes);
      assert.deepEqual(parseDisplayPath(shown), bytes, `${bytes.toString('hex')} → ${shown}`);
      assert.equal(displayBytes(new Uint8Array(bytes)), shown, `${bytes.toString('hex')}: without Buffer`);
    }
  });

  it('handles a huge name', () => {
    const big = Buffer.alloc(1 << 16, 0xff);
    const shown = displayPath(big);
    assert.equal(shown.length, 4 << 16);
    assert.deepEqual(parseDisplayPath(shown), big);
  });
});

describe('parseDisplayPath', () => {
  it('refuses unknown or short escapes', () => {
    for (const s of ['a\\q', 'a\\', '\\x4', '\\xzz', '\\u12']) {
      assert.throws(
        () => parseDisplayPath(s),
        (e: unknown) => e instanceof FleetError && e.code === 'invalid_argument' && /invalid escape/.test(e.message),
        s,
      );
    }
  });
  it('accepts upper-case hex', () => {
    assert.deepEqual(parseDisplayPath('\\xFF'), Buffer.from([0xff]));
  });
});

describe('formatMtime', () => {
  const CASES: [number, number, number, string][] = [
    [0, 0, 0, '1970-01-01T00:00:00+00:00'],
    [1700000001, 999_999_999, 345, '2023-11-15T03:58:21+05:45'],
    [1700000301, 0, 0, '2023-11-14T22:18:21+00:00'],
    [1700000301, 0, -210, '2023-11-14T18:48:21-03:30'],
    [-1, 500_000_000, 0, '1969-12-31T23:59:59+00:00'],
    [253402300799, 0, 0, '9999-12-31T23:59:59+00:00'],
    [253402300800, 0, 0, '+010000-01-01T00:00:00+00:00'],
  ];
  for (const [sec, nsec, off, want] of CASES) {
    it(`${sec}.${nsec} ${off} → ${want}`, () => assert.equal(formatMtime(sec, nsec, off), want));
  }
  it('does not throw out of range', () => {
    assert.equal(formatMtime(1e300, 0, 0), '@1e+300');
  });
});

describe('humanSize', () => {
  const CASES: [number, string][] = [
    [0, '0 B'],
    [1, '1 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [10239, '10 KiB'],
    [12 * 1024 * 1024, '12 MiB'],
    [1024 * 1024 - 1, '1.0 MiB'],
    [5 * 1024 ** 3, '5.0 GiB'],
    [2 ** 53, '8.0 PiB'],
    [2 ** 70, '1024 EiB'],
  ];
  for (const [n, want] of CASES) it(`${n} → ${want}`, () => assert.equal(humanSize(n), want));
});

describe('modeString and octalMode', () => {
  const CASES: [number, EntryType, string, string][] = [
    [0o40755, 'dir', 'drwxr-xr-x', '0755'],
    [0o100644, 'file', '-rw-r--r--', '0644'],
    [0o120777, 'symlink', 'lrwxrwxrwx', '0777'],
    [0o104755, 'file', '-rwsr-xr-x', '4755'],
    [0o104644, 'file', '-rwSr--r--', '4644'],
    [0o102755, 'file', '-rwxr-sr-x', '2755'],
    [0o102745, 'file', '-rwxr-Sr-x', '2745'],
    [0o41777, 'dir', 'drwxrwxrwt', '1777'],
    [0o41776, 'dir', 'drwxrwxrwT', '1776'],
    [0o10600, 'fifo', 'prw-------', '0600'],
    [0o140755, 'socket', 'srwxr-xr-x', '0755'],
    [0o20620, 'char', 'crw--w----', '0620'],
    [0o60660, 'block', 'brw-rw----', '0660'],
    [0, 'unknown', '?---------', '0000'],
  ];
  for (const [mode, type, str, oct] of CASES) {
    it(`${mode.toString(8)} ${type}`, () => {
      assert.equal(modeString(mode, type), str);
      assert.equal(octalMode(mode), oct);
    });
  }
});
