import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError } from '../errors/errors.js';
import { assertAllowed, isInside, MAX_PATH_BYTES, normalizeRequestPath } from './path-policy.js';

const isInvalid = (re: RegExp) => (e: unknown) =>
  e instanceof FleetError && e.code === 'invalid_argument' && re.test(e.message);

describe('normalizeRequestPath', () => {
  const OK: [string, string][] = [
    ['/', '/'],
    ['//', '/'],
    ['/etc', '/etc'],
    ['/etc/', '/etc'],
    ['//etc///ssh//', '/etc/ssh'],
    ['/./etc/.', '/etc'],
    ['/etc/../var', '/var'],
    ['/..', '/'],
    ['/../../etc', '/etc'],
    ['/a/b/../../..', '/'],
    ['/a/.../b', '/a/.../b'],
    ['/a/..b/c', '/a/..b/c'],
    ['/srv/it\'s "q"\t\\x', '/srv/it\'s "q"\t\\x'],
    ['/日本/😀', '/日本/😀'],
    [`/${'a'.repeat(MAX_PATH_BYTES - 1)}`, `/${'a'.repeat(MAX_PATH_BYTES - 1)}`],
  ];
  for (const [input, want] of OK) {
    it(`${JSON.stringify(input.slice(0, 40))} → ${JSON.stringify(want.slice(0, 40))}`, () =>
      assert.equal(normalizeRequestPath(input), want));
  }

  const BAD: [unknown, RegExp][] = [
    ['', /^path must not be empty$/],
    ['etc', /^path must be absolute, got 'etc'$/],
    ['./etc', /^path must be absolute, got '\.\/etc'$/],
    ['~/x', /must be absolute/],
    ['/a\0b', /^path must not contain NUL bytes$/],
    ['/a\nb', /^path must not contain line breaks$/],
    ['/a\rb', /line breaks/],
    [`/${'a'.repeat(MAX_PATH_BYTES)}`, /^path must be at most 4096 bytes, got 4097$/],
    [`/${'é'.repeat(2048)}`, /at most 4096 bytes, got 4097/],
    [42, /^path must be a string, got number$/],
    [undefined, /must be a string, got undefined/],
  ];
  for (const [input, re] of BAD) {
    it(`rejects ${JSON.stringify(String(input).slice(0, 30))}`, () =>
      assert.throws(() => normalizeRequestPath(input as string), isInvalid(re)));
  }

  it('names the argument', () => {
    assert.throws(() => normalizeRequestPath('x', 'root'), isInvalid(/^root must be absolute, got 'x'$/));
  });
});

describe('isInside', () => {
  const CASES: [string, string, boolean][] = [
    ['/', '/', true],
    ['/', '/anything/at/all', true],
    ['/srv', '/srv', true],
    ['/srv', '/srv/a', true],
    ['/srv', '/srvx', false],
    ['/srv/a', '/srv/ab', false],
    ['/srv/a', '/srv/a/b', true],
    ['/srv/a', '/srv', false],
    ['/srv/a', '/', false],
  ];
  for (const [root, path, want] of CASES)
    it(`${root} ⊇ ${path}: ${want}`, () => assert.equal(isInside(root, path), want));
});

describe('assertAllowed', () => {
  it('passes paths inside a root', () => {
    assertAllowed('/srv/a/b', ['/var/log', '/srv']);
    assertAllowed('/var/log', ['/var/log']);
    assertAllowed('/etc', ['/']);
  });
  it('refuses paths outside every root, listing them', () => {
    assert.throws(
      () => assertAllowed('/x', ['/srv', '/var/log']),
      (e: unknown) =>
        e instanceof FleetError &&
        e.code === 'permission_denied' &&
        e.message === "path '/x' is outside the allowed roots (/srv, /var/log)",
    );
    assert.throws(() => assertAllowed('/srvx', ['/srv']), /outside the allowed roots/);
  });
  it('refuses everything when no root is configured', () => {
    assert.throws(
      () => assertAllowed('/srv', []),
      (e: unknown) =>
        e instanceof FleetError &&
        e.code === 'permission_denied' &&
        e.message === 'no allowed roots are configured; start the agent with --allow DIR',
    );
  });
});
