import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError } from '../errors/errors.js';
import { compileGlob, compileGlobs, MAX_GLOB_LENGTH } from './glob.js';

// [pattern, path, expected]
const CASES: [string, string, boolean][] = [
  // base-name patterns match at any depth
  ['*.log', 'x.log', true],
  ['*.log', 'a/b/x.log', true],
  ['*.log', 'a/b/x.log/c', false],
  ['*.log', 'x.logs', false],
  ['*', 'a/b/c', true],
  ['*', '.hidden', true],
  ['*.conf', 'etc/.x.conf', true],
  ['core.*', 'var/core.1234', true],
  ['core.*', 'var/core', false],
  ['x', 'a/x', true],
  ['x', 'x/a', false],
  // anchored patterns with '/'
  ['a/*.log', 'a/x.log', true],
  ['a/*.log', 'b/a/x.log', false],
  ['a/*.log', 'a/b/x.log', false],
  ['/a', 'a', true],
  ['/a', 'b/a', false],
  ['a/', 'a', true],
  ['a//b', 'a/b', true],
  // `*` does not cross '/'
  ['a*b', 'a/b', false],
  ['a/*', 'a/b/c', false],
  ['a/*', 'a/.git', true],
  // `**`
  ['**', 'a/b/c', true],
  ['**', '', true],
  ['**/x', 'x', true],
  ['**/x', 'a/b/x', true],
  ['**/x', 'a/b/xy', false],
  ['a/**', 'a', true],
  ['a/**', 'a/b/c', true],
  ['a/**', 'b/a/c', false],
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['a/**/b', 'a/x/y/c', false],
  ['a/**/b/**/c', 'a/b/c', true],
  ['a/**/b/**/c', 'a/1/b/2/3/c', true],
  ['a/**/b/**/c', 'a/1/c/2/3/b', false],
  ['**/.git/**', 'src/.git/objects/ab', true],
  ['a**b/c', 'axyzb/c', true],
  ['a**b/c', 'ax/yb/c', false],
  ['**/*.log', '.x.log', true],
  // `?`
  ['?.txt', 'a.txt', true],
  ['?.txt', 'ab.txt', false],
  ['?.txt', '.txt', false],
  ['a?b', 'a/b', false], // `?` does not match '/' (and the base name is 'b')
  ['a?b', 'a.b', true],
  // classes
  ['[abc].c', 'b.c', true],
  ['[abc].c', 'd.c', false],
  ['[a-z]1', 'q1', true],
  ['[a-z]1', 'Q1', false],
  ['[!a-z]1', 'Q1', true],
  ['[^a-z]1', 'q1', false],
  ['[]]x', ']x', true],
  ['[!]]x', ']x', false],
  ['[!]]x', 'ax', true],
  ['[a-]x', '-x', true],
  ['[\\]]x', ']x', true],
  ['[z-a]', 'm', false],
  ['x[😀a]', 'x😀', true],
  ['x?', 'x😀', true],
  // braces
  ['*.{js,ts}', 'a/b.ts', true],
  ['*.{js,ts}', 'a/b.tsx', false],
  ['{a,b/c}', 'x/a', true],
  ['{a,b/c}', 'b/c', true],
  ['{a,b/c}', 'x/b/c', false],
  ['{a,{b,c}d}', 'cd', true],
  ['x{,y}', 'x', true],
  ['x{,y}', 'xy', true],
  ['[{]', '{', true],
  // escapes
  ['\\*', '*', true],
  ['\\*', 'a', false],
  ['a\\?', 'a?', true],
  ['a\\?', 'ab', false],
  ['\\{a,b\\}', '{a,b}', true],
  ['a,b', 'a,b', true],
  ['x\\', 'x\\', true],
  // hostile names
  ['*', 'new\nline', true],
  ["*'*", "it's", true],
  ['a\tb', 'a\tb', true],
  ['*\\\\*', 'back\\slash', true],
  ['é*', 'éclair', true],
  ['*', '', true],
];

describe('compileGlob', () => {
  for (const [pattern, path, expected] of CASES) {
    it(`${JSON.stringify(pattern)} vs ${JSON.stringify(path)} → ${expected}`, () => {
      assert.equal(compileGlob(pattern)(path), expected);
    });
  }

  it('matches case-sensitively', () => {
    assert.equal(compileGlob('*.LOG')('x.log'), false);
  });

  const BAD: [string, RegExp][] = [
    ['', /pattern must not be empty/],
    ['x'.repeat(MAX_GLOB_LENGTH + 1), /pattern must be at most 1024 characters, got 1025/],
    ['[abc', /unbalanced '\['/],
    ['a/[b', /unbalanced '\['/],
    ['{a,b', /unbalanced '\{'/],
    ['a}', /unbalanced '\}'/],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}', /more than 64 alternatives/],
    ['{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}{a,b}', /more than 64 alternatives/],
    ['/', /nothing to match/],
  ];
  for (const [pattern, re] of BAD) {
    it(`rejects ${JSON.stringify(pattern.slice(0, 40))}`, () => {
      assert.throws(
        () => compileGlob(pattern),
        (err: unknown) => err instanceof FleetError && err.code === 'invalid_argument' && re.test(err.message),
      );
    });
  }

  it('accepts exactly 64 alternatives and a 1024-character pattern', () => {
    const m = compileGlob('{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}');
    assert.equal(m('hh'), true);
    assert.equal(m('hi'), false);
    assert.equal(compileGlob('x'.repeat(MAX_GLOB_LENGTH))('x'.repeat(MAX_GLOB_LENGTH)), true);
  });

  it('rejects a non-string pattern', () => {
    assert.throws(() => compileGlob(42 as unknown as string), /pattern must be a string/);
  });

  // Hostile input: a backtracking matcher would take exponential (or n^k) time on these.
  it('finishes hostile patterns on long names quickly', () => {
    const a = 'a'.repeat(10_000);
    assert.equal(compileGlob('*a*a*a*a*a*a*a*b')(a), false);
    assert.equal(compileGlob('*a*a*a*a*a*a*a*a')(a), true);
    assert.equal(compileGlob('*?*?*?*?*?*?*b')(a), false);
    assert.equal(compileGlob('[a]*[a]*[a]*[a]*[!a]')(a), false);
    const deep = Array(5_000).fill('a').join('/');
    assert.equal(compileGlob('**/a/**/a/**/a/**/a/**/b')(deep), false);
    assert.equal(compileGlob('**/a/**/a/**/a/**/a/**/a')(deep), true);
    assert.equal(compileGlob('**/*a*a*a*a*b/**')(`${deep}/${a}`), false);
  });

  it('matches random patterns like a reference backtracking matcher', () => {
    // Reference: the obvious recursive definition, on short inputs only.
    const ref = (p: string, s: string): boolean => {
      if (p === '') return s === '';
      if (p[0] === '*') return ref(p.slice(1), s) || (s !== '' && s[0] !== '/' && ref(p, s.slice(1)));
      if (s === '') return false;
      if (p[0] === '?') return s[0] !== '/' && ref(p.slice(1), s.slice(1));
      return p[0] === s[0] && ref(p.slice(1), s.slice(1));
    };
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pick = (alphabet: string, n: number) =>
      Array.from({ length: n }, () => alphabet[rnd(alphabet.length)]).join('');
    for (let k = 0; k < 3000; k++) {
      const p = `/${pick('ab*?', 1 + rnd(6))}`;
      const s = pick('ab', rnd(8));
      assert.equal(compileGlob(p)(s), ref(p.slice(1), s), `${p} vs ${s}`);
    }
  });
});

describe('compileGlobs', () => {
  it('never matches with an empty list', () => {
    const m = compileGlobs([]);
    assert.equal(m('a'), false);
    assert.equal(m(''), false);
  });

  it('matches when any pattern does', () => {
    const m = compileGlobs(['*.log', 'etc/**', '*.log']);
    assert.equal(m('x/y.log'), true);
    assert.equal(m('etc/passwd'), true);
    assert.equal(m('var/passwd'), false);
  });

  it('fails on the first bad pattern', () => {
    assert.throws(() => compileGlobs(['ok', '[bad']), /unbalanced/);
  });
});
