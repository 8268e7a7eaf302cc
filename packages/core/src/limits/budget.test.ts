import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES, fitRows } from './budget.js';

/** An answer of `header` bytes, rows of the given sizes, and `cut` bytes more when some row is left out. */
function answer(header: number, rows: number[], cut: number) {
  return {
    rows: rows.length,
    rowCost: (i: number) => rows[i],
    size: (n: number) => header + rows.slice(0, n).reduce((a, b) => a + b, 0) + (n < rows.length ? cut : 0),
  };
}

describe('fitRows', () => {
  // [name, header, rows, cut, maxBytes, minRows, rows shown]
  const CASES: [string, number, number[], number, number, number, number][] = [
    ['nothing to show', 10, [], 5, 10, 0, 0],
    ['all fit exactly', 10, [3, 4], 5, 17, 0, 2],
    ['all fit once the cut warning goes', 10, [3, 4], 50, 17, 0, 2],
    ['one short: the warning costs room too', 10, [3, 4], 5, 16, 0, 0],
    ['cut leaves room for the warning', 10, [3, 3, 3, 3], 4, 21, 0, 2],
    ['header alone too big', 30, [1], 0, 20, 0, -1],
    ['one row must show and cannot', 10, [20, 1], 5, 25, 1, -1],
    ['one row must show and can', 10, [10, 10], 5, 25, 1, 1],
    ['wide rows after narrow ones', 0, [1, 1, 1, 100, 1], 2, 50, 0, 3],
  ];
  for (const [name, header, rows, cut, maxBytes, minRows, want] of CASES) {
    it(name, () => {
      const a = answer(header, rows, cut);
      const n = fitRows({ ...a, maxBytes }, minRows);
      assert.equal(n, want);
      if (n >= 0) assert.ok(a.size(n) <= maxBytes);
      if (n >= 0 && n < rows.length) assert.ok(a.size(n + 1) > maxBytes, 'the next row would not fit');
    });
  }

  it('stays under the budget when the row costs aim low', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => 10 + (i % 7));
    const n = fitRows({ rows: rows.length, rowCost: () => 5, size: (k) => 100 + k * 13 + 40, maxBytes: 4096 });
    assert.ok(100 + n * 13 + 40 <= 4096);
    assert.ok(100 + (n + 1) * 13 + 40 > 4096);
  });

  it("defaults to 48,000 bytes: under Claude Code's 50,000 characters", () => {
    assert.equal(DEFAULT_MAX_ANSWER_BYTES, 48_000);
  });
});
