// The grants file and what a grant allows, table-driven: keys named in every refusal, plain
// tokens refused, tool globs with `!` denies, roots that narrow lexically, selectors narrowed
// or refused, rates, and a reload that keeps the last good file.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { FleetHost } from '../fleet/fleet-types.js';
import { parseGrants } from './file.js';
import { mayCall, narrowSelector, pathWithin } from './grant.js';
import { RateLimiter } from './rate.js';
import { Grants } from './source.js';

const sha = (t: string) => `sha256:${createHash('sha256').update(t).digest('hex')}`;
const quiet = pino({ level: 'silent' });

const FILE = `
principals:
  web-team:
    tokens: ["${sha('tok-a')}", "${sha('tok-a2')}"]
    tools: [list_files, stat]
    hosts: ["@web"]
    paths: [/var/log, /srv/www/]
  auditors:
    oauth: { scope: fleetls.audit }
    tools: ["*", "!diff_directory"]
    hosts: [all]
    paths: [/]
`;

const host = (name: string, groups: string[] = [], labels: Record<string, string> = {}): FleetHost => ({
  name,
  via: 'agent',
  address: `${name}:7443`,
  labels,
  groups,
  sshFallback: false,
});
const HOSTS = [host('web-1', ['web']), host('web-2', ['web'], { env: 'staging' }), host('db-1', ['db'])];

function problems(text: string): string {
  try {
    parseGrants(text, 'g.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

describe('grants file', () => {
  it('reads principals in order, tokens as digests, roots normalised', () => {
    const g = parseGrants(FILE, 'g.yaml');
    assert.deepEqual(
      g.principals.map((p) => p.name),
      ['web-team', 'auditors'],
    );
    assert.equal(g.principals[0].tokens.length, 2);
    assert.deepEqual(g.principals[0].paths, ['/var/log', '/srv/www']);
    assert.deepEqual(g.principals[1].oauth, { claim: 'scope', value: 'fleetls.audit' });
    assert.equal(g.principals[0].callsPerMinute, 600);
  });

  it('refuses with the key named: plain tokens, unknown keys, missing lists, relative roots, two claims', () => {
    const cases: [string, RegExp][] = [
      [
        'principals:\n  a:\n    tokens: [hunter2]\n    tools: ["*"]\n    hosts: [all]\n    paths: [/]\n',
        /g\.yaml: principals\.a\.tokens\[0\]: expected "sha256:".*plain tokens are refused/,
      ],
      [
        'principals:\n  a:\n    tokens: ["' +
          sha('x') +
          '"]\n    tool: ["*"]\n    tools: ["*"]\n    hosts: [all]\n    paths: [/]\n',
        /principals\.a: unknown key 'tool'; known: tokens, oauth/,
      ],
      [
        `principals:\n  a:\n    tokens: ["${sha('x')}"]\n    tools: ["*"]\n    paths: [/]\n`,
        /principals\.a\.hosts: expected a list of host selectors/,
      ],
      [
        'principals:\n  a:\n    tokens: ["' +
          sha('x') +
          '"]\n    tools: ["*"]\n    hosts: [all]\n    paths: [var/log]\n',
        /principals\.a\.paths\[0\]: expected an absolute path/,
      ],
      [
        'principals:\n  a:\n    oauth: { scope: x, sub: y }\n    tools: ["*"]\n    hosts: [all]\n    paths: [/]\n',
        /principals\.a\.oauth: expected exactly one claim/,
      ],
      [
        'principals:\n  a:\n    tools: ["*"]\n    hosts: [all]\n    paths: [/]\n',
        /principals\.a: needs tokens or oauth/,
      ],
      ['principal: {}\n', /\(top level\): unknown key 'principal'; known: principals/],
      ['principals: [\n', /g\.yaml: not YAML/],
      [
        `principals:\n  a:\n    tokens: ["${sha('x')}"]\n    tools: ["*"]\n    hosts: [all]\n    paths: [/]\n  b:\n    tokens: ["${sha('x')}"]\n    tools: ["*"]\n    hosts: [all]\n    paths: [/]\n`,
        /principals\.b\.tokens\[0\]: the same token as a's/,
      ],
    ];
    for (const [text, want] of cases) assert.match(problems(text), want);
  });

  it('lets `local` have neither tokens nor oauth', () => {
    assert.equal(problems('principals:\n  local:\n    tools: [stat]\n    hosts: [all]\n    paths: [/tmp]\n'), '');
  });
});

describe('a grant', () => {
  const [web, auditors] = parseGrants(FILE, 'g.yaml').principals;

  it('allows tools by name and glob; a `!` denies wherever it stands', () => {
    assert.equal(mayCall(web, 'list_files'), true);
    assert.equal(mayCall(web, 'list_directory'), false);
    assert.equal(mayCall(auditors, 'disk_usage'), true);
    assert.equal(mayCall(auditors, 'diff_directory'), false);
    assert.equal(mayCall({ ...web, tools: ['!stat', 'list_*', 'stat'] }, 'stat'), false);
    assert.equal(mayCall({ ...web, tools: ['list_*'] }, 'list_hosts'), true);
  });

  it('holds paths within its roots, lexically, and refuses any `..`', () => {
    const table: [string, boolean][] = [
      ['/var/log', true],
      ['/var/log/', true],
      ['/var/log/nginx/access.log', true],
      ['/var/logs', false],
      ['/var', false],
      ['/', false],
      ['/var/log/../../etc', false],
      ['/var/log/nginx/..', false],
      ['/srv/www/site', true],
      ['//var/log', true],
      ['var/log', false],
    ];
    for (const [p, want] of table) assert.equal(pathWithin(web, p), want, p);
    assert.equal(pathWithin(auditors, '/etc/../root'), true);
  });

  it('narrows wide selectors to the granted hosts and says so; refuses a named host outside', () => {
    assert.deepEqual(narrowSelector(web, 'web-1', HOSTS), { hosts: [HOSTS[0]] });
    const all = narrowSelector(web, 'all', HOSTS);
    assert.deepEqual(
      all.hosts.map((h) => h.name),
      ['web-1', 'web-2'],
    );
    assert.match(all.note ?? '', /'all' narrowed to the 2 hosts web-team may ask \(@web\)/);
    assert.deepEqual(
      narrowSelector(web, '*-1', HOSTS).hosts.map((h) => h.name),
      ['web-1'],
    );
    assert.equal(narrowSelector(web, '@web', HOSTS).note, undefined);
    // The same refusal whether or not the host exists: the grant's hosts are what it names.
    for (const sel of ['db-1', 'nosuch', 'web-1,db-1']) {
      assert.throws(
        () => narrowSelector(web, sel, HOSTS),
        (e: Error & { code?: string }) =>
          e.code === 'permission_denied' &&
          /is outside web-team's hosts; web-team may call list_files, stat on hosts @web under \/var\/log, \/srv\/www/.test(
            e.message,
          ),
      );
    }
    assert.throws(() => narrowSelector(web, '@db', HOSTS), /'@db' reaches no host web-team may ask/);
    // An unknown group is refused with the granted hosts' words: no group outside is named.
    assert.throws(() => narrowSelector(web, '@nope', HOSTS), /known groups: web$/);
    assert.deepEqual(
      narrowSelector(auditors, 'all', HOSTS).hosts.map((h) => h.name),
      ['web-1', 'web-2', 'db-1'],
    );
  });
});

describe('rates and callers', () => {
  it('lets a minute of calls through, then says when to come back', () => {
    let now = 0;
    const r = new RateLimiter(3, () => now);
    for (let i = 0; i < 3; i++) r.take('web-team');
    assert.throws(() => r.take('web-team'), /web-team may make 3 calls a minute and has made them: retry in 20 s/);
    now += 20_000;
    r.take('web-team');
  });

  it('finds a caller by bearer token or by claims; `local` is all unless named', () => {
    const g = Grants.of(parseGrants(FILE, 'g.yaml'), quiet);
    assert.equal(g.byBearer('Bearer tok-a2')?.principal, 'web-team');
    assert.equal(g.byBearer('bearer tok-a')?.principal, 'web-team');
    assert.equal(g.byBearer('Bearer tok-b'), undefined);
    assert.equal(g.byBearer(undefined), undefined);
    assert.equal(g.byBearer(`Bearer ${sha('tok-a')}`), undefined, 'the hash is not the token');
    assert.equal(g.byClaims({ scope: 'openid fleetls.audit' })?.principal, 'auditors');
    assert.equal(g.byClaims({ scp: ['fleetls.audit'] })?.principal, 'auditors');
    assert.equal(g.byClaims({ scope: 'fleetls.auditx' }), undefined);
    assert.deepEqual(g.local(), { principal: 'local' });
    assert.deepEqual(g.scopes(), ['fleetls.audit']);
  });

  it('reloads a changed file; a malformed one keeps the last good grants and logs why', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-grants-'));
    const file = path.join(dir, 'grants.yaml');
    fs.writeFileSync(file, FILE);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
    const g = Grants.fromFile(file, logger);
    fs.writeFileSync(file, FILE.replace(sha('tok-a2'), sha('tok-c')));
    assert.equal(g.reload('SIGHUP'), true);
    assert.equal(g.byBearer('Bearer tok-a2'), undefined);
    assert.equal(g.byBearer('Bearer tok-c')?.principal, 'web-team');
    fs.writeFileSync(file, FILE.replace(sha('tok-a2'), 'tok-plain'));
    assert.equal(g.reload('SIGHUP'), false);
    assert.equal(g.byBearer('Bearer tok-c')?.principal, 'web-team');
    const last = JSON.parse(lines.at(-1) ?? '{}');
    assert.equal(last.msg, 'grants file not reloaded: keeping the last good grants');
    assert.match(last.err, /principals\.web-team\.tokens\[1\]: expected "sha256:"/);
    assert.throws(() => Grants.fromFile(path.join(dir, 'none.yaml'), logger), /--grants: cannot read/);
    fs.rmSync(dir, { recursive: true });
  });
});
