import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeSortedArrays } from './merge.js';
import { compareNames } from './order.js';

const num = (a: number, b: number) => a - b;

function rng(seed: number) {
  return (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >> 4) % n;
  };
}

describe('mergeSortedArrays', () => {
  const CASES: [string, number[][], number[]][] = [
    ['no lists', [], []],
    ['empty lists', [[], [], []], []],
    ['one list', [[1, 2, 3]], [1, 2, 3]],
    [
      'interleaved',
      [
        [1, 4, 7],
        [2, 5, 8],
        [3, 6, 9],
      ],
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    ],
    ['uneven', [[], [5], [1, 1, 1, 9], []], [1, 1, 1, 5, 9]],
  ];
  for (const [name, lists, want] of CASES) it(name, () => assert.deepEqual(mergeSortedArrays(lists, num), want));

  it('is stable across equal items by source index', () => {
    const lists = [
      [
        { k: 1, s: 'a0' },
        { k: 2, s: 'a1' },
      ],
      [
        { k: 1, s: 'b0' },
        { k: 1, s: 'b1' },
        { k: 2, s: 'b2' },
      ],
      [{ k: 1, s: 'c0' }],
    ];
    const out = mergeSortedArrays(lists, (x, y) => x.k - y.k).map((x) => x.s);
    assert.deepEqual(out, ['a0', 'b0', 'b1', 'c0', 'a1', 'b2']);
  });

  it('equals a full sort on random lists', () => {
    const r = rng(99);
    for (let round = 0; round < 200; round++) {
      const lists = Array.from({ length: r(8) }, () => Array.from({ length: r(30) }, () => r(20)).sort(num));
      assert.deepEqual(mergeSortedArrays(lists, num), lists.flat().sort(num));
    }
  });

  it('stops after limit items, the first ones of the full merge', () => {
    const r = rng(7);
    for (let round = 0; round < 100; round++) {
      const lists = Array.from({ length: 1 + r(8) }, () => Array.from({ length: r(30) }, () => r(20)).sort(num));
      const limit = r(40);
      assert.deepEqual(mergeSortedArrays(lists, num, limit), lists.flat().sort(num).slice(0, limit));
    }
  });

  it('merges byte names with the fleetls order', () => {
    const a = [Buffer.from('A'), Buffer.from('b')];
    const b = [Buffer.from('a'), Buffer.from([0xff])];
    const out = mergeSortedArrays([a, b], compareNames).map((x) => x.toString('latin1'));
    assert.deepEqual(out, ['A', 'a', 'b', '\xff']);
  });
});
