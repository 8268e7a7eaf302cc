import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError } from '../errors/errors.js';
import {
  type Ceilings,
  DEFAULT_CEILINGS,
  MAX_RANKED_HELD,
  resolveWalkRequest,
  WALK_DEFAULTS,
  type WalkRequestInput,
} from './limits.js';

const isInvalid = (re: RegExp) => (e: unknown) =>
  e instanceof FleetError && e.code === 'invalid_argument' && re.test(e.message);

describe('resolveWalkRequest', () => {
  it('fills every default', () => {
    assert.deepEqual(resolveWalkRequest({ path: '/srv/' }), { path: '/srv', ...WALK_DEFAULTS });
  });

  it('treats 0 as the default (the wire sends 0 for unset)', () => {
    const r = resolveWalkRequest({
      path: '/',
      maxDepth: 0,
      maxItemsPerDir: 0,
      maxEntries: 0,
      topN: 0,
      offset: 0,
      deadlineMs: 0,
    });
    assert.equal(r.maxDepth, 2);
    assert.equal(r.maxItemsPerDir, 100);
    assert.equal(r.maxEntries, 100_000);
    assert.equal(r.topN, 1000);
    assert.equal(r.offset, 0);
    assert.equal(r.deadlineMs, 20_000);
  });

  it('keeps valid values, at the bounds too', () => {
    const input: WalkRequestInput = {
      path: '/a/./b/../c',
      maxDepth: 64,
      maxItemsPerDir: 1,
      capRoot: true,
      maxEntries: 1_000_000,
      order: 'size',
      direction: 'descending',
      // The tree shape: a ranked walk takes at most MAX_RANKED_HELD for top_n + offset together (below).
      shape: 'tree',
      topN: 100_000,
      offset: 1_000_000,
      include: ['*.log', 'a/**'],
      exclude: ['.git'],
      types: ['file', 'symlink', 'file'],
      excludeHidden: true,
      followSymlinks: true,
      oneFileSystem: true,
      dirSizes: true,
      deadlineMs: 120_000,
    };
    assert.deepEqual(resolveWalkRequest(input), {
      ...input,
      path: '/a/c',
      types: ['file', 'symlink'],
    });
  });

  it('bounds what a ranked walk holds: offset + top_n at most MAX_RANKED_HELD (issue 35, F6)', () => {
    assert.equal(MAX_RANKED_HELD, DEFAULT_CEILINGS.maxTopN, "the gateway's deepest page fits");
    const ranked = (topN: number, offset: number) => resolveWalkRequest({ path: '/', shape: 'ranked', topN, offset });
    assert.equal(ranked(1000, MAX_RANKED_HELD - 1000).offset, MAX_RANKED_HELD - 1000);
    assert.equal(ranked(MAX_RANKED_HELD, 0).topN, MAX_RANKED_HELD);
    assert.throws(
      () => ranked(1000, 999_000),
      (e) =>
        e instanceof FleetError &&
        e.code === 'invalid_argument' &&
        e.message ===
          'offset + top_n must be at most 100000 for a ranked walk (the entries it holds at once), got offset 999000 + top_n 1000',
    );
    assert.throws(() => ranked(MAX_RANKED_HELD, 1), /offset \+ top_n must be at most 100000/);
    // The tree shape holds no heap: its top_n and offset are not summed.
    assert.equal(resolveWalkRequest({ path: '/', topN: 1000, offset: 999_000 }).offset, 999_000);
  });

  it('cuts defaults to a lower server ceiling', () => {
    const ceilings: Ceilings = {
      ...DEFAULT_CEILINGS,
      maxDepth: 1,
      maxItemsPerDir: 10,
      maxEntries: 50,
      maxTopN: 5,
      maxDeadlineMs: 1000,
    };
    const r = resolveWalkRequest({ path: '/' }, ceilings);
    assert.equal(r.maxDepth, 1);
    assert.equal(r.maxItemsPerDir, 10);
    assert.equal(r.maxEntries, 50);
    assert.equal(r.topN, 5);
    assert.equal(r.deadlineMs, 1000);
    assert.throws(
      () => resolveWalkRequest({ path: '/', maxDepth: 2 }, ceilings),
      isInvalid(/^max_depth must be an integer between 1 and 1, got 2$/),
    );
  });

  const BAD: [Partial<Record<keyof WalkRequestInput, unknown>>, RegExp][] = [
    [{ path: 'etc' }, /^path must be absolute, got 'etc'$/],
    [{ path: '' }, /^path must not be empty$/],
    [{ path: '/a\0' }, /^path must not contain NUL bytes$/],
    [{ maxDepth: 100 }, /^max_depth must be an integer between 1 and 64, got 100$/],
    [{ maxDepth: -1 }, /^max_depth must be an integer between 1 and 64, got -1$/],
    [{ maxDepth: 1.5 }, /^max_depth must be an integer between 1 and 64, got 1.5$/],
    [{ maxDepth: Number.NaN }, /^max_depth must be an integer between 1 and 64, got NaN$/],
    [{ maxDepth: '3' }, /^max_depth must be an integer between 1 and 64, got '3'$/],
    [{ maxItemsPerDir: 100_001 }, /^max_items_per_dir must be an integer between 1 and 100000, got 100001$/],
    [{ maxEntries: 1e7 }, /^max_entries must be an integer between 1 and 1000000, got 10000000$/],
    [{ topN: 100_001 }, /^top_n must be an integer between 1 and 100000, got 100001$/],
    [{ offset: -1 }, /^offset must be an integer between 0 and 1000000, got -1$/],
    [{ deadlineMs: 120_001 }, /^deadline_ms must be an integer between 1 and 120000, got 120001$/],
    [{ deadlineMs: Number.POSITIVE_INFINITY }, /^deadline_ms must be an integer .* got Infinity$/],
    [{ order: 'random' }, /^order must be one of name, size, modified, got 'random'$/],
    [{ direction: 'up' }, /^direction must be one of ascending, descending, got 'up'$/],
    [{ shape: 'flat' }, /^shape must be one of tree, ranked, got 'flat'$/],
    [{ types: ['file', 'dirs'] }, /^types\[1\] must be one of file, dir, symlink, .*, got 'dirs'$/],
    [{ types: 'file' }, /^types must be a list/],
    [{ include: ['[a'] }, /^include\[0\]: pattern '\[a' has an unbalanced '\['$/],
    [{ exclude: ['ok', '{a'] }, /^exclude\[1\]: pattern '\{a' has an unbalanced '\{'$/],
    [{ include: Array(33).fill('*') }, /^include must have at most 32 patterns, got 33$/],
    [{ include: '*.log' }, /^include must be a list of glob patterns$/],
    [{ capRoot: 'yes' }, /^cap_root must be true or false, got 'yes'$/],
    [{ excludeHidden: 1 }, /^exclude_hidden must be true or false, got 1$/],
    [{ followSymlinks: null }, /^follow_symlinks must be true or false, got null$/],
    [{ oneFileSystem: 0 }, /^one_file_system must be true or false/],
    [{ dirSizes: {} }, /^dir_sizes must be true or false, got object$/],
  ];
  for (const [fields, re] of BAD) {
    it(`rejects ${JSON.stringify(fields).slice(0, 60)}`, () => {
      const input = { path: '/srv', ...fields } as WalkRequestInput;
      assert.throws(() => resolveWalkRequest(input), isInvalid(re));
    });
  }

  it('does not share default arrays between requests', () => {
    const a = resolveWalkRequest({ path: '/' });
    a.include.push('x');
    assert.deepEqual(resolveWalkRequest({ path: '/' }).include, []);
  });
});

describe('resolveWalkRequest, resume point', () => {
  it('keeps a relative path and the row kind, as a Buffer', () => {
    const r = resolveWalkRequest({ path: '/', after: new Uint8Array(Buffer.from('a/b c')), afterRow: 'error' });
    assert.ok(Buffer.isBuffer(r.after));
    assert.deepEqual(r.after, Buffer.from('a/b c'));
    assert.equal(r.afterRow, 'error');
    assert.equal(resolveWalkRequest({ path: '/', after: Buffer.from('x') }).afterRow, 'entry');
    const odd = Buffer.from([0x61, 0xff, 0x2f, 0x0a]);
    assert.deepEqual(resolveWalkRequest({ path: '/', after: Buffer.concat([odd, Buffer.from('z')]) }).after?.length, 5);
  });

  it('reads an empty resume point as none, except after the root’s own rows', () => {
    const none = resolveWalkRequest({ path: '/', after: Buffer.alloc(0) });
    assert.equal('after' in none, false);
    assert.deepEqual(resolveWalkRequest({ path: '/' }), { path: '/', ...WALK_DEFAULTS });
    const root = resolveWalkRequest({ path: '/', after: Buffer.alloc(0), afterRow: 'warning' });
    assert.deepEqual(root.after, Buffer.alloc(0));
    assert.equal(root.afterRow, 'warning');
  });

  it('refuses what is not a relative path of a row', () => {
    const bad: [Uint8Array, RegExp][] = [
      [Buffer.from('/abs'), /after must be a relative path/],
      [Buffer.from('a//b'), /after must be a relative path/],
      [Buffer.from('a/'), /after must be a relative path/],
      [Buffer.from('a/../b'), /after must be a relative path/],
      [Buffer.from('./a'), /after must be a relative path/],
      [Buffer.from('a\0b'), /after must not contain NUL/],
      [Buffer.alloc(4097, 0x61), /after must be at most 4096 bytes, got 4097/],
    ];
    for (const [after, re] of bad) assert.throws(() => resolveWalkRequest({ path: '/', after }), isInvalid(re));
    assert.equal(resolveWalkRequest({ path: '/', after: Buffer.alloc(4096, 0x61) }).after?.length, 4096);
    assert.throws(
      () => resolveWalkRequest({ path: '/', after: Buffer.from('a'), afterRow: 'bogus' as 'entry' }),
      isInvalid(/after_row must be one of entry, error, warning/),
    );
    assert.throws(
      () => resolveWalkRequest({ path: '/', shape: 'ranked', after: Buffer.from('a') }),
      isInvalid(/after resumes the tree shape only/),
    );
  });
});
