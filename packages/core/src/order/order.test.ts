import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry } from '../domain/types.js';
import { entryAt } from '../testing/index.js';
import { baseName, compareNames, comparePaths, entryComparator, hostEntryComparator } from './order.js';

const b = (s: string | number[]) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : Buffer.from(s));
const sign = (n: number) => Math.sign(n);

const entry = (path: string, over: Partial<Entry> = {}): Entry => entryAt(b(path), over);

describe('baseName', () => {
  const CASES: [string, string][] = [
    ['', ''],
    ['a', 'a'],
    ['a/b', 'b'],
    ['a/b/c.txt', 'c.txt'],
    ['a/', ''],
  ];
  for (const [p, want] of CASES) it(JSON.stringify(p), () => assert.equal(baseName(b(p)).toString(), want));
});

describe('compareNames', () => {
  // [a, b, sign of compare(a, b)]
  const CASES: [string | number[], string | number[], number][] = [
    ['a', 'a', 0],
    ['', '', 0],
    ['', 'a', -1],
    ['a', 'b', -1],
    ['B', 'a', 1], // folded: b > a (raw ASCII would put 'B' first)
    ['a', 'B', -1],
    ['A', 'a', -1], // equal when folded: raw bytes break the tie, 'A' (0x41) first
    ['abc', 'ABC', 1],
    ['Zeta', 'alpha', 1],
    ['file10', 'file9', -1], // bytes, not natural order
    ['ab', 'abc', -1], // prefix first
    ['AB', 'abc', -1],
    ['_', 'a', -1], // '_' 0x5f < 'a' 0x61 once folded ...
    ['_', 'A', -1], // ... and also before 'A', which folds to 'a'
    ['[', 'a', -1],
    ['é', 'f', 1], // non-ASCII bytes are not folded: 0xc3 > 'f'
    ['É', 'é', -1], // no Unicode folding: 0xc3 0x89 < 0xc3 0xa9
    [[0xff], 'z', 1],
    [[0x80], [0x7f], 1],
    [[0x00], 'a', -1],
    ['a\nb', 'a b', -1],
    ['x😀', 'x～', 1], // bytes: f0 9f > ef bd; JS strings order them the other way (d83d < ff5e)
  ];
  for (const [x, y, want] of CASES) {
    it(`${JSON.stringify(x)} vs ${JSON.stringify(y)} → ${want}`, () => {
      assert.equal(sign(compareNames(b(x), b(y))), want);
      assert.equal(sign(compareNames(b(y), b(x))), -want || 0);
    });
  }

  it('differs from JS string order where UTF-16 and UTF-8 disagree', () => {
    const names = ['x～', 'x😀'];
    assert.deepEqual([...names].sort(), ['x😀', 'x～']);
    assert.deepEqual(
      names
        .map((n) => b(n))
        .sort(compareNames)
        .map((x) => x.toString()),
      ['x～', 'x😀'],
    );
  });

  it('is a total order on random byte strings (antisymmetric, transitive, 0 only when equal)', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return (seed >> 4) % n;
    };
    const alphabet = [0x41, 0x42, 0x61, 0x62, 0x5f, 0x2e, 0xc3, 0xa9, 0xff, 0x00];
    const names = Array.from({ length: 300 }, () =>
      Buffer.from(Array.from({ length: rnd(5) }, () => alphabet[rnd(10)])),
    );
    const sorted = [...names].sort(compareNames);
    for (let i = 1; i < sorted.length; i++) assert.ok(compareNames(sorted[i - 1], sorted[i]) <= 0);
    for (const x of names) {
      for (const y of names.slice(0, 40)) {
        const c = compareNames(x, y);
        assert.equal(sign(c), -sign(compareNames(y, x)) || 0);
        assert.equal(c === 0, x.equals(y));
      }
    }
  });
});

describe('entryComparator', () => {
  const names = (es: Entry[]) => es.map((e) => e.path.toString());

  it('orders by name as path order: component by component, `/` first, a directory before its entries', () => {
    // What `fleetls ls localhost:/etc` showed by base name (directories interleaved), in path order.
    const etc = ['skel/.bash_logout', 'skel/.bashrc', 'sensors.d/.placeholder', 'skel/.profile', '.pwd.lock', 'skel'];
    assert.deepEqual(names(etc.map((p) => entry(p)).sort(entryComparator('name', 'ascending'))), [
      '.pwd.lock',
      'sensors.d/.placeholder',
      'skel',
      'skel/.bash_logout',
      'skel/.bashrc',
      'skel/.profile',
    ]);
    // `/` before every other byte ('-' 0x2d and '.' 0x2e sort after it), as `find | LC_ALL=C sort` would.
    const es = ['a.b', 'a-b', 'a/b', 'a', 'A/z', 'B'].map((p) => entry(p));
    assert.deepEqual(names([...es].sort(entryComparator('name', 'ascending'))), ['A/z', 'a', 'a/b', 'a-b', 'a.b', 'B']);
    // Descending: each level reversed, a directory still before its entries (tree order).
    assert.deepEqual(names([...es].sort(entryComparator('name', 'descending'))), [
      'B',
      'a.b',
      'a-b',
      'a',
      'a/b',
      'A/z',
    ]);
  });

  it('puts the requested path itself (the empty path) first in either direction', () => {
    for (const dir of ['ascending', 'descending'] as const) {
      const cmp = entryComparator('name', dir);
      assert.ok(cmp(entry(''), entry('a')) < 0);
      assert.ok(cmp(entry('a'), entry('')) > 0);
      assert.equal(comparePaths(b(''), b('')), 0);
    }
  });

  it('orders by size, ties in path order (always ascending)', () => {
    const es = [
      entry('d2/b', { size: 10 }),
      entry('d1/b', { size: 10 }),
      entry('a', { size: 10 }),
      entry('big', { size: 2 ** 40 }),
      entry('zero', { size: 0 }),
    ];
    assert.deepEqual(names([...es].sort(entryComparator('size', 'ascending'))), ['zero', 'a', 'd1/b', 'd2/b', 'big']);
    assert.deepEqual(names([...es].sort(entryComparator('size', 'descending'))), ['big', 'a', 'd1/b', 'd2/b', 'zero']);
  });

  it('orders by mtime with nanoseconds', () => {
    const es = [
      entry('late', { mtimeSec: 100, mtimeNsec: 2 }),
      entry('early', { mtimeSec: 100, mtimeNsec: 1 }),
      entry('old', { mtimeSec: -5, mtimeNsec: 999_999_999 }),
      entry('tie', { mtimeSec: 100, mtimeNsec: 1 }),
    ];
    assert.deepEqual(names([...es].sort(entryComparator('modified', 'ascending'))), ['old', 'early', 'tie', 'late']);
    assert.deepEqual(names([...es].sort(entryComparator('modified', 'descending'))), ['late', 'early', 'tie', 'old']);
  });

  it('returns 0 only for the same path', () => {
    const cmp = entryComparator('size', 'descending');
    assert.equal(cmp(entry('a/x'), entry('a/x')), 0);
    assert.notEqual(cmp(entry('a/x'), entry('b/x')), 0);
    assert.notEqual(cmp(entry('x'), entry('X')), 0);
  });

  it("puts a directory's row before its error row, whatever the input order", () => {
    const row = entry('locked', { type: 'dir' });
    const denied = entry('locked', { type: 'dir', error: { code: 'DENIED', detail: 'permission denied' } });
    for (const cmp of [entryComparator('name', 'descending'), entryComparator('size', 'ascending')]) {
      assert.ok(cmp(row, denied) < 0);
      assert.ok(cmp(denied, row) > 0);
    }
  });
});

describe('hostEntryComparator', () => {
  it('breaks full ties by host name', () => {
    const cmp = hostEntryComparator('name', 'descending');
    const rows = [
      { host: 'web-2', entry: entry('a') },
      { host: 'web-1', entry: entry('a') },
      { host: 'db', entry: entry('b') },
    ];
    assert.deepEqual(
      [...rows].sort(cmp).map((r) => r.host),
      ['db', 'web-1', 'web-2'],
    );
    assert.equal(cmp(rows[0], rows[0]), 0);
  });
});
