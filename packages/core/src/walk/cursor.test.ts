import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError } from '../errors/errors.js';
import {
  decodeCursor,
  decodeTreeCursor,
  encodeCursor,
  encodeTreeCursor,
  fnv1a64,
  MAX_TREE_CURSOR_LENGTH,
  queryFingerprint,
  type TreeCursor,
} from './cursor.js';

const invalidCursor = (e: unknown) =>
  e instanceof FleetError &&
  e.code === 'invalid_argument' &&
  e.message === 'cursor is not valid for this query; start again without cursor';

describe('fnv1a64', () => {
  // Reference vectors of FNV-1a 64 (Fowler, Noll, Vo).
  const CASES: [string, string][] = [
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ];
  for (const [input, want] of CASES) it(JSON.stringify(input), () => assert.equal(fnv1a64(Buffer.from(input)), want));

  it('matches a BigInt reference on random bytes', () => {
    const mask = (1n << 64n) - 1n;
    let seed = 3;
    for (let k = 0; k < 200; k++) {
      const bytes = Buffer.from(
        Array.from({ length: k }, () => {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          return seed & 0xff;
        }),
      );
      let h = 0xcbf29ce484222325n;
      for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & mask;
      assert.equal(fnv1a64(bytes), h.toString(16).padStart(16, '0'));
    }
  });
});

describe('queryFingerprint', () => {
  it('ignores key order and undefined fields', () => {
    assert.equal(
      queryFingerprint({ path: '/srv', order: 'size', hosts: ['a', 'b'] }),
      queryFingerprint({ hosts: ['a', 'b'], order: 'size', path: '/srv', cursor: undefined }),
    );
  });
  it('changes with any value, array order and type', () => {
    const base = queryFingerprint({ path: '/srv', n: 1, hosts: ['a', 'b'] });
    for (const other of [
      { path: '/srv/', n: 1, hosts: ['a', 'b'] },
      { path: '/srv', n: 2, hosts: ['a', 'b'] },
      { path: '/srv', n: '1', hosts: ['a', 'b'] },
      { path: '/srv', n: 1, hosts: ['b', 'a'] },
      { path: '/srv', n: 1, hosts: ['a', 'b'], pattern: '*' },
    ]) {
      assert.notEqual(queryFingerprint(other), base, JSON.stringify(other));
    }
  });
  it('takes hostile strings, bytes and nesting', () => {
    const fp = queryFingerprint({ p: 'a\n\0"\\😀', b: Buffer.from([0xff, 0]), deep: { x: [null, true, 1.5, 10n] } });
    assert.match(fp, /^[0-9a-f]{16}$/);
    assert.notEqual(queryFingerprint({ b: Buffer.from([1]) }), queryFingerprint({ b: Buffer.from([2]) }));
  });
});

describe('encodeCursor / decodeCursor', () => {
  const fp = queryFingerprint({ path: '/srv' });

  it('round-trips offsets', () => {
    for (const offset of [0, 1, 200, 999_999, Number.MAX_SAFE_INTEGER]) {
      const c = encodeCursor(offset, fp);
      assert.match(c, /^[A-Za-z0-9_-]+$/);
      assert.deepEqual(decodeCursor(c, fp), { offset });
    }
  });

  it('refuses a cursor of another query', () => {
    const c = encodeCursor(10, fp);
    assert.throws(() => decodeCursor(c, queryFingerprint({ path: '/var' })), invalidCursor);
  });

  const GARBAGE = [
    '',
    'x',
    'not a cursor',
    '!!!!',
    'a'.repeat(129),
    `${encodeCursor(10, fp)}=`,
    `${encodeCursor(10, fp)}A`,
    Buffer.from(`2:10:${fp}`).toString('base64url'),
    Buffer.from(`1:-1:${fp}`).toString('base64url'),
    Buffer.from(`1:99999999999999999:${fp}`).toString('base64url'),
    Buffer.from(`1:10:${fp}\n`).toString('base64url'),
    Buffer.from([0xff, 0xfe, 0x00]).toString('base64url'),
  ];
  for (const g of GARBAGE) {
    it(`refuses ${JSON.stringify(g.slice(0, 30))}`, () => assert.throws(() => decodeCursor(g, fp), invalidCursor));
  }

  it('refuses a non-string cursor', () => {
    assert.throws(() => decodeCursor(42 as unknown as string, fp), invalidCursor);
  });

  it('refuses to encode a bad offset', () => {
    assert.throws(() => encodeCursor(-1, fp), RangeError);
    assert.throws(() => encodeCursor(1.5, fp), RangeError);
    assert.throws(() => encodeCursor(1, fp, 'not-hex'), RangeError);
  });

  it('carries a snapshot handle when one was kept', () => {
    const fp = queryFingerprint({ path: '/srv' });
    const c = encodeCursor(300, fp, '0123456789abcdef');
    assert.deepEqual(decodeCursor(c, fp), { offset: 300, snapshot: '0123456789abcdef' });
    assert.throws(() => decodeCursor(c, queryFingerprint({ path: '/var' })), invalidCursor);
  });
});

describe('tree cursors', () => {
  const fp = queryFingerprint({ tool: 'list_directory', path: '/srv' });
  const positions: TreeCursor[] = [
    { host: 0 },
    { host: 3 },
    { host: 0, after: { path: Buffer.from('a/b'), row: 'entry' } },
    { host: 1, after: { path: Buffer.from([0x61, 0xff, 0x0a, 0x2f, 0x7a]), row: 'error' } },
    { host: 2 ** 32 - 1, after: { path: Buffer.from('d'), row: 'warning' } },
    { host: 0, after: { path: Buffer.alloc(0), row: 'warning' } },
    { host: 7, after: { path: Buffer.alloc(4096, 0x78), row: 'entry' } },
  ];

  it('round-trips every position as opaque base64url', () => {
    for (const pos of positions) {
      const c = encodeTreeCursor(pos, fp);
      assert.match(c, /^[A-Za-z0-9_-]+$/);
      assert.ok(c.length <= MAX_TREE_CURSOR_LENGTH);
      assert.deepEqual(decodeTreeCursor(c, fp), pos);
    }
  });

  it('refuses a cursor of another query, an offset cursor, garbage and tampering', () => {
    const c = encodeTreeCursor({ host: 1, after: { path: Buffer.from('x'), row: 'entry' } }, fp);
    const other = queryFingerprint({ tool: 'list_directory', path: '/other' });
    assert.throws(() => decodeTreeCursor(c, other), invalidCursor);
    assert.throws(() => decodeTreeCursor(encodeCursor(5, fp), fp), invalidCursor);
    assert.throws(() => decodeCursor(c, fp), invalidCursor);
    for (const junk of ['', 'x', '!!!!', `${c}=`, c.slice(0, 10), 'A'.repeat(MAX_TREE_CURSOR_LENGTH + 1)]) {
      assert.throws(() => decodeTreeCursor(junk, fp), invalidCursor, junk.slice(0, 20));
    }
    const raw = Buffer.from(c, 'base64url');
    const tamper = (i: number, v: number) => {
      const b = Buffer.from(raw);
      b[i] = v;
      return b.toString('base64url');
    };
    assert.throws(() => decodeTreeCursor(tamper(0, 1), fp), invalidCursor, 'version');
    assert.throws(() => decodeTreeCursor(tamper(1, 4), fp), invalidCursor, 'row kind');
    assert.throws(() => decodeTreeCursor(tamper(1, 0), fp), invalidCursor, 'start of host with a path');
    assert.throws(() => decodeTreeCursor(tamper(14, 0), fp), invalidCursor, 'NUL in the path');
  });
});
