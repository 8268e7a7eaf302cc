import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES, fitToBudget } from './budget.js';

describe('fitToBudget', () => {
  // [lines, maxBytes, kept lines]
  const CASES: [string, string[], number, number][] = [
    ['nothing', [], 10, 0],
    ['all fit exactly', ['abc', 'de'], 6, 2], // "abc\nde"
    ['one byte short', ['abc', 'de'], 5, 1],
    ['first line too big', ['abcdef'], 5, 0],
    ['zero budget', ['a'], 0, 0],
    ['empty lines cost their separator', ['', '', ''], 2, 3],
    ['empty lines over budget', ['', '', ''], 1, 2],
    ['multi-byte counted in bytes', ['日本', 'x'], 6, 1], // 6 bytes, then "\nx" does not fit
    ['emoji', ['😀', '😀'], 9, 2],
    ['stops at the first misfit', ['aaaa', 'bbbbbbbb', 'c'], 7, 1],
    ['negative budget', ['a'], -5, 0],
    ['NaN budget', ['a'], Number.NaN, 0],
    ['infinite budget', ['a', 'b'], Number.POSITIVE_INFINITY, 2],
  ];
  for (const [name, lines, max, kept] of CASES) {
    it(name, () => {
      const r = fitToBudget(lines, max);
      assert.deepEqual(r.lines, lines.slice(0, kept));
      assert.equal(r.cut, kept < lines.length);
      if (Number.isFinite(max)) assert.ok(Buffer.byteLength(r.lines.join('\n')) <= Math.max(0, max));
    });
  }

  it('bounds a huge listing by the default budget', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `[FILE] dir/file-${i}\twith "quotes" and \\ and ünïcode`);
    const r = fitToBudget(lines, DEFAULT_MAX_ANSWER_BYTES);
    assert.equal(r.cut, true);
    const bytes = Buffer.byteLength(r.lines.join('\n'));
    assert.ok(bytes <= DEFAULT_MAX_ANSWER_BYTES);
    const next = Buffer.byteLength(lines[r.lines.length]) + 1;
    assert.ok(bytes + next > DEFAULT_MAX_ANSWER_BYTES, 'kept as many lines as fit');
    assert.equal(DEFAULT_MAX_ANSWER_BYTES, 262_144);
  });
});
