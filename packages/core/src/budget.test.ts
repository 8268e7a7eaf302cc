import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES, reserveFor, TextBudget } from './budget.js';

/** The lines a budget takes, in order, stopping at the first refusal. */
function fit(lines: string[], maxBytes: number, reserve = 0): { taken: string[]; dropped: number } {
  const b = new TextBudget(maxBytes, reserve);
  const taken = lines.filter((l) => b.take(l));
  return { taken, dropped: b.dropped };
}

describe('TextBudget', () => {
  // [name, lines, maxBytes, lines kept]; every line costs its UTF-8 bytes plus a newline.
  const CASES: [string, string[], number, number][] = [
    ['nothing', [], 10, 0],
    ['all fit exactly', ['abc', 'de'], 7, 2],
    ['one byte short', ['abc', 'de'], 6, 1],
    ['first line too big', ['abcdef'], 6, 0],
    ['zero budget', ['a'], 0, 0],
    ['empty lines cost their newline', ['', '', ''], 3, 3],
    ['multi-byte counted in bytes', ['日本', 'x'], 8, 1],
    ['emoji', ['😀', '😀'], 10, 2],
  ];
  for (const [name, lines, max, kept] of CASES) {
    it(name, () => {
      const r = fit(lines, max);
      assert.deepEqual(r.taken, lines.slice(0, kept));
      assert.equal(r.dropped, lines.length - kept);
    });
  }

  it('cuts at the first misfit and never slips a later shorter line in', () => {
    const r = fit(['aaaa', 'bbbbbbbb', 'c'], 8);
    assert.deepEqual(r.taken, ['aaaa']);
    assert.equal(r.dropped, 2);
  });

  it('keeps room for closing lines, at most half the budget', () => {
    assert.deepEqual(fit(['x'.repeat(90)], 100, 20).taken, []);
    assert.deepEqual(fit(['x'.repeat(40)], 100, 1000).taken, ['x'.repeat(40)], 'a reserve never takes over half');
    assert.equal(reserveFor(3), 1024 + 3 * 256);
  });

  it('bounds a huge listing by the default budget, as many lines as fit', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `[FILE] dir/file-${i}\twith "quotes" and \\ and ünïcode`);
    const { taken, dropped } = fit(lines, DEFAULT_MAX_ANSWER_BYTES);
    const bytes = taken.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    assert.ok(bytes <= DEFAULT_MAX_ANSWER_BYTES);
    assert.ok(bytes + Buffer.byteLength(lines[taken.length]) + 1 > DEFAULT_MAX_ANSWER_BYTES);
    assert.equal(dropped, lines.length - taken.length);
    assert.equal(DEFAULT_MAX_ANSWER_BYTES, 262_144);
  });
});
