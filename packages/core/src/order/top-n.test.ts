import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TopN } from './top-n.js';

function rng(seed: number) {
  return (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >> 4) % n;
  };
}

// A total order (value, then id) so "the best `limit`" is one well-defined set.
type Item = { v: number; id: number };
const byValue = (a: Item, b: Item) => a.v - b.v || a.id - b.id;

describe('TopN', () => {
  it('keeps the same items as a full sort, for random input and limits', () => {
    const r = rng(1);
    for (let round = 0; round < 300; round++) {
      const n = r(200);
      const limit = r(60);
      const items = Array.from({ length: n }, (_, id) => ({ v: r(25), id }));
      const top = new TopN(limit, byValue);
      for (const x of items) top.push(x);
      assert.deepEqual(top.sorted(), [...items].sort(byValue).slice(0, limit), `n=${n} limit=${limit}`);
      assert.equal(top.seen, n);
      assert.equal(top.size, Math.min(n, limit));
    }
  });

  it('keeps the largest with a descending comparator', () => {
    const top = new TopN<number>(3, (a, b) => b - a);
    for (const x of [5, 1, 9, 3, 9, 7, 2]) top.push(x);
    assert.deepEqual(top.sorted(), [9, 9, 7]);
  });

  it('says of each item whether it is kept: an item refused can never rank within the limit', () => {
    const top = new TopN<number>(2, (a, b) => a - b);
    // 5, 3 kept; 7 ranks after both; 1 takes 5's place; a tie with the worst kept is refused.
    assert.deepEqual(
      [5, 3, 7, 1, 3].map((x) => top.push(x)),
      [true, true, false, true, false],
    );
    assert.deepEqual(top.sorted(), [1, 3]);
    assert.equal(new TopN<number>(0, (a, b) => a - b).push(1), false);
  });

  it('keeps nothing with limit 0 but counts what it saw', () => {
    const top = new TopN<number>(0, (a, b) => a - b);
    for (let i = 0; i < 10; i++) top.push(i);
    assert.deepEqual(top.sorted(), []);
    assert.equal(top.seen, 10);
    assert.equal(top.size, 0);
  });

  it('keeps everything when limit exceeds the input', () => {
    const top = new TopN<number>(1000, (a, b) => a - b);
    for (const x of [3, 1, 2]) top.push(x);
    assert.deepEqual(top.sorted(), [1, 2, 3]);
  });

  it('handles an empty stream', () => {
    assert.deepEqual(new TopN<number>(5, (a, b) => a - b).sorted(), []);
  });

  it('stays bounded over a long stream', () => {
    const top = new TopN<number>(100, (a, b) => b - a);
    for (let i = 0; i < 200_000; i++) top.push((i * 7919) % 200_003);
    assert.equal(top.size, 100);
    assert.equal(top.seen, 200_000);
    const best = top.sorted();
    assert.equal(best.length, 100);
    for (let i = 1; i < best.length; i++) assert.ok(best[i - 1] >= best[i]);
  });

  it('does not let sorted() disturb the heap', () => {
    const top = new TopN<number>(2, (a, b) => a - b);
    top.push(5);
    top.push(3);
    top.sorted();
    top.push(1);
    top.push(4);
    assert.deepEqual(top.sorted(), [1, 3]);
  });
});
