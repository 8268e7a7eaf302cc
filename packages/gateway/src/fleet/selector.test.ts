import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError } from '@fleetls/core';
import type { FleetHost } from './fleet-types.js';
import { globToRegExp, selectHosts } from './selector.js';

function host(name: string, groups: string[] = [], labels: Record<string, string> = {}): FleetHost {
  return { name, via: 'agent', address: `${name}:7443`, labels, groups, sshFallback: false };
}

const HOSTS = [
  host('web-1', ['prod'], { role: 'web' }),
  host('web-2', ['prod', 'canary'], { role: 'web' }),
  host('db-1', ['prod'], { role: 'db' }),
  host('web-10', [], { role: 'web', zone: 'b' }),
  host('edge'),
];
const names = (sel: string, hosts = HOSTS) => selectHosts(sel, hosts).map((h) => h.name);

describe('selectHosts', () => {
  const table: [string, string[]][] = [
    ['web-1', ['web-1']],
    ['all', ['web-1', 'web-2', 'db-1', 'web-10', 'edge']],
    ['db-1,web-1', ['db-1', 'web-1']],
    [' web-2 , edge ', ['web-2', 'edge']],
    ['web-*', ['web-1', 'web-2', 'web-10']],
    ['web-?', ['web-1', 'web-2']],
    ['web-[12]', ['web-1', 'web-2']],
    ['web-[!1]', ['web-2']],
    ['@prod', ['web-1', 'web-2', 'db-1']],
    ['@canary', ['web-2']],
    ['label:role=web', ['web-1', 'web-2', 'web-10']],
    ['label:zone=b', ['web-10']],
    ['edge,@prod', ['edge', 'web-1', 'web-2', 'db-1']],
    ['web-2,web-*,all', ['web-2', 'web-1', 'web-10', 'db-1', 'edge']],
    ['db-1,db-1', ['db-1']],
    ['*', ['web-1', 'web-2', 'db-1', 'web-10', 'edge']],
  ];
  for (const [sel, expected] of table)
    it(`${sel} → ${expected.join(',')}`, () => assert.deepEqual(names(sel), expected));

  const errors: [string, RegExp][] = [
    ['', /^host: expected a host selector/],
    [' , ', /^host: expected a host selector/],
    ['nope', /^unknown host 'nope'; known hosts: web-1, web-2, db-1, web-10, edge$/],
    ['web-1,nope', /^unknown host 'nope'/],
    ['@', /^host: '@' needs a group name/],
    ['@ghost', /^host: no host in group 'ghost'; known groups: prod, canary$/],
    ['label:role', /^host: expected label:key=value, got 'label:role'/],
    ['label:=x', /^host: expected label:key=value/],
    ['label:role=cache', /^host: 'label:role=cache' selects no host; known hosts: web-1/],
    ['zz-*', /^host: 'zz-\*' selects no host/],
  ];
  for (const [sel, re] of errors) {
    it(`rejects ${JSON.stringify(sel)}`, () =>
      assert.throws(
        () => selectHosts(sel, HOSTS),
        (e: unknown) => e instanceof FleetError && e.code === 'invalid_argument' && re.test(e.message),
      ));
  }

  it('lists at most 20 known names', () => {
    const many = Array.from({ length: 25 }, (_, i) => host(`h${i}`));
    assert.throws(
      () => selectHosts('x', many),
      (e: unknown) =>
        e instanceof Error &&
        e.message ===
          `unknown host 'x'; known hosts: ${many
            .slice(0, 20)
            .map((h) => h.name)
            .join(', ')}, … (25 in all)`,
    );
  });

  it('names only hosts a caller can select: no host reachable by name but left out of the list', () => {
    const hosts = [host('a'), host('b')];
    assert.throws(() => selectHosts('localhost', hosts), /unknown host 'localhost'; known hosts: a, b$/);
    assert.throws(() => selectHosts('localhost,a', hosts), /unknown host 'localhost'; known hosts: a, b/);
  });
});

describe('globToRegExp', () => {
  it('escapes regex metacharacters', () => {
    assert.ok(globToRegExp('a.b').test('a.b'));
    assert.ok(!globToRegExp('a.b').test('axb'));
    assert.ok(globToRegExp('a+(b)').test('a+(b)'));
    assert.ok(globToRegExp('a[').test('a['));
  });
});
