import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeSorted, mergeSortedArrays } from './merge.js';
import { compareNames } from './order.js';

const num = (a: number, b: number) => a - b;

function rng(seed: number) {
  return (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >> 4) % n;
  };
}

async function* from<T>(items: T[], log?: string[], name = ''): AsyncGenerator<T> {
  try {
    for (const x of items) {
      log?.push(`${name}:${String(x)}`);
      yield x;
    }
  } finally {
    log?.push(`${name}:closed`);
  }
}

async function collect<T>(g: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
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

  it('merges byte names with the fleetls order', () => {
    const a = [Buffer.from('A'), Buffer.from('b')];
    const b = [Buffer.from('a'), Buffer.from([0xff])];
    const out = mergeSortedArrays([a, b], compareNames).map((x) => x.toString('latin1'));
    assert.deepEqual(out, ['A', 'a', 'b', '\xff']);
  });
});

describe('mergeSorted', () => {
  it('merges async streams in order, stably', async () => {
    const r = rng(5);
    for (let round = 0; round < 100; round++) {
      const lists = Array.from({ length: r(6) }, () => Array.from({ length: r(20) }, () => r(10)).sort(num));
      const tagged = lists.map((l, src) => l.map((v) => ({ v, src })));
      const out = await collect(
        mergeSorted(
          tagged.map((l) => from(l)),
          (a, b) => a.v - b.v,
        ),
      );
      const want = tagged.flat().sort((a, b) => a.v - b.v || a.src - b.src);
      assert.deepEqual(out, want);
    }
  });

  it('handles no sources and empty sources', async () => {
    assert.deepEqual(await collect(mergeSorted<number>([], num)), []);
    assert.deepEqual(await collect(mergeSorted([from<number>([]), from([2]), from<number>([])], num)), [2]);
  });

  it('pulls lazily: one item per source ahead of what was emitted', async () => {
    const log: string[] = [];
    const m = mergeSorted([from([1, 3, 5], log, 'a'), from([2, 4, 6], log, 'b')], num);
    assert.deepEqual((await m.next()).value, 1);
    assert.deepEqual(log, ['a:1', 'b:2']);
    assert.deepEqual((await m.next()).value, 2);
    assert.deepEqual(log, ['a:1', 'b:2', 'a:3']);
  });

  it('closes open sources when the consumer stops early', async () => {
    const log: string[] = [];
    const m = mergeSorted([from([1, 3, 5], log, 'a'), from([2], log, 'b'), from([9, 10], log, 'c')], num);
    for await (const x of m) if (x === 2) break;
    assert.ok(log.includes('a:closed'));
    assert.ok(log.includes('c:closed'));
    assert.ok(!log.includes('c:10'));
  });

  it('fails when a source fails', async () => {
    async function* bad(): AsyncGenerator<number> {
      yield 1;
      throw new Error('host gone');
    }
    await assert.rejects(collect(mergeSorted([bad(), from([2, 3])], num)), /host gone/);
  });
});
