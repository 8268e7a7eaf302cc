import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry } from '../domain/types.js';
import { FleetError } from '../errors/errors.js';
import { parseIdSpec } from '../filter/id-spec.js';
import { parsePerm, permArgument, permMatches } from '../filter/perm-spec.js';
import { parseSize } from '../filter/size-spec.js';
import { parseTime } from '../filter/time-spec.js';
import { entryAt } from '../testing/index.js';
import {
  checkFindFilter,
  compileFindFilter,
  type FindFilter,
  filterFeatures,
  filterNeedsStat,
  parseFindFilterArgs,
} from './filter.js';

const invalid = (re: RegExp) => (e: unknown) =>
  e instanceof FleetError && e.code === 'invalid_argument' && re.test(e.message);

const NOW = Date.UTC(2026, 11, 1, 9, 0, 0, 250); // 2026-12-01T09:00:00.250Z

describe('parseSize', () => {
  const good: [unknown, number][] = [
    [0, 0],
    [512, 512],
    ['512', 512],
    ['0', 0],
    ['10K', 10 * 1024],
    ['10k', 10 * 1024],
    ['5M', 5 * 1024 ** 2],
    ['1G', 1024 ** 3],
    ['1GiB', 1024 ** 3],
    ['1 GB', 1024 ** 3],
    ['1.5G', 1.5 * 1024 ** 3],
    ['2T', 2 * 1024 ** 4],
    ['1P', 1024 ** 5],
    ['7B', 7],
    [' 3K ', 3072],
  ];
  for (const [input, want] of good) {
    it(`${JSON.stringify(input)} → ${want}`, () => assert.equal(parseSize('min_size', input), want));
  }
  const bad: unknown[] = [
    'huge',
    '',
    '-1',
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '1X',
    '1KK',
    '10 K B',
    '0x10',
    '1e3',
    '99999999999999999P',
    '9000P',
    '1\n2',
    '１Ｋ',
    null,
    {},
    [],
    true,
  ];
  for (const input of bad) {
    it(`refuses ${JSON.stringify(input) ?? String(input)}`, () =>
      assert.throws(() => parseSize('min_size', input), invalid(/^min_size: .*(not a size|too large)/)));
  }
  it('names the argument, the value and what it accepts', () => {
    assert.throws(
      () => parseSize('min_size', 'huge'),
      (e: unknown) =>
        e instanceof FleetError &&
        e.message.startsWith('min_size: "huge" is not a size; use bytes') &&
        /10K/.test(e.message),
    );
  });
  it('cuts a very long value in the message', () => {
    assert.throws(
      () => parseSize('max_size', 'x'.repeat(10_000)),
      (e: unknown) => (e as Error).message.length < 300,
    );
  });
});

describe('parseTime', () => {
  const at = (iso: string) => Date.parse(iso) / 1000;
  const good: [string, number, number][] = [
    ['30m', Math.floor((NOW - 30 * 60_000) / 1000), 250_000_000],
    ['12h', Math.floor((NOW - 12 * 3_600_000) / 1000), 250_000_000],
    ['7d', Math.floor((NOW - 7 * 86_400_000) / 1000), 250_000_000],
    ['2w', Math.floor((NOW - 14 * 86_400_000) / 1000), 250_000_000],
    ['90s', Math.floor((NOW - 90_000) / 1000), 250_000_000],
    ['0s', Math.floor(NOW / 1000), 250_000_000],
    ['2026-11-30', at('2026-11-30T00:00:00Z'), 0],
    ['2026-11-30T12:00', at('2026-11-30T12:00:00Z'), 0],
    ['2026-11-30T12:00:01Z', at('2026-11-30T12:00:01Z'), 0],
    ['2026-11-30 12:00:01', at('2026-11-30T12:00:01Z'), 0],
    ['2026-11-30T12:00:00+02:00', at('2026-11-30T10:00:00Z'), 0],
    ['2026-11-30T12:00:00-0130', at('2026-11-30T13:30:00Z'), 0],
    ['2026-11-30T12:00:00.123456789Z', at('2026-11-30T12:00:00Z'), 123_456_789],
    ['2026-11-30T12:00:00,5Z', at('2026-11-30T12:00:00Z'), 500_000_000],
    ['1969-12-31T23:59:59Z', -1, 0],
    ['2024-02-29', at('2024-02-29T00:00:00Z'), 0],
  ];
  for (const [input, sec, nsec] of good) {
    it(`${input}`, () => assert.deepEqual(parseTime('modified_after', input, NOW), { sec, nsec }));
  }
  const bad: unknown[] = [
    'yesterday-ish',
    'yesterday',
    '',
    '7',
    '7 d',
    '-7d',
    '7D',
    '1y',
    '2026-13-01',
    '2026-02-30',
    '2025-02-29',
    '2026-11-30T24:00',
    '2026-11-30T12:60',
    '2026-11-30T12:00:61',
    '2026-11-30T12:00+25:00',
    '26-11-30',
    '2026-11-30T12',
    '2026-11-30Z',
    '2026-11-30T12:00:00.1234567890Z',
    '999999d',
    1_700_000_000,
    null,
    {},
  ];
  for (const input of bad) {
    it(`refuses ${JSON.stringify(input)}`, () =>
      assert.throws(() => parseTime('modified_after', input, NOW), invalid(/^modified_after: /)));
  }
  it('names the argument, the value and what it accepts', () => {
    assert.throws(
      () => parseTime('modified_before', 'yesterday-ish', NOW),
      (e: unknown) =>
        (e as Error).message.startsWith('modified_before: "yesterday-ish" is not a time; use ISO 8601') &&
        /7d/.test((e as Error).message),
    );
  });
});

describe('parsePerm', () => {
  const good: [string, string, number][] = [
    ['644', 'exact', 0o644],
    ['0644', 'exact', 0o644],
    ['4755', 'exact', 0o4755],
    ['-220', 'all', 0o220],
    ['/022', 'any', 0o22],
    ['/000', 'any', 0],
    ['/o+w', 'any', 0o2],
    ['-u+x', 'all', 0o100],
    ['g+w,o+w', 'exact', 0o22],
    ['-g+w,u+w', 'all', 0o220],
    ['u=rwx,go=rx', 'exact', 0o755],
    ['a+r', 'exact', 0o444],
    ['=r', 'exact', 0o444],
    ['u+rw-w', 'exact', 0o400],
    ['/u+s,g+s', 'any', 0o6000],
    ['-o+t', 'all', 0o1000],
    ['u=', 'exact', 0],
  ];
  for (const [input, match, mode] of good) {
    it(`${input} → ${match} ${mode.toString(8)}`, () => assert.deepEqual(parsePerm('perm', input), { match, mode }));
  }
  const bad: unknown[] = [
    'rwx',
    '',
    '-',
    '/',
    '+222',
    '8',
    '99999',
    '07777a',
    'u+q',
    'x+r',
    'u+r,',
    ',u+r',
    'u',
    'g=u',
    '0o644',
    644,
    null,
  ];
  for (const input of bad) {
    it(`refuses ${JSON.stringify(input)}`, () => assert.throws(() => parsePerm('perm', input), invalid(/^perm: /)));
  }
  it('explains the three forms', () => {
    assert.throws(
      () => parsePerm('perm', 'rwx'),
      (e: unknown) =>
        (e as Error).message.startsWith('perm: "rwx" is not a mode') && /-MODE = all/.test((e as Error).message),
    );
    assert.throws(() => parsePerm('perm', '+222'), invalid(/obsolete \+MODE; write \/MODE/));
  });

  it("matches with find's meaning", () => {
    const file = 0o100000;
    const cases: [string, number, boolean][] = [
      ['644', 0o644, true],
      ['644', 0o664, false],
      ['644', 0o4644, false],
      ['-220', 0o660, true],
      ['-220', 0o600, false],
      ['/022', 0o600, false],
      ['/022', 0o620, true],
      ['/022', 0o602, true],
      ['/000', 0o000, true],
      ['/o+w', 0o777, true],
      ['/o+w', 0o775, false],
      ['-u+s', 0o4755, true],
    ];
    for (const [spec, mode, want] of cases) {
      assert.equal(permMatches(parsePerm('perm', spec), file | mode), want, `${spec} vs ${mode.toString(8)}`);
    }
  });

  it('writes find arguments in octal', () => {
    assert.equal(permArgument(parsePerm('perm', '/o+w')), '/0002');
    assert.equal(permArgument(parsePerm('perm', '-g+w,u+w')), '-0220');
    assert.equal(permArgument(parsePerm('perm', '644')), '0644');
  });
});

describe('parseIdSpec', () => {
  const good: [unknown, object][] = [
    [0, { id: 0 }],
    ['0', { id: 0 }],
    ['1000', { id: 1000 }],
    [4_294_967_294, { id: 4_294_967_294 }],
    ['root', { name: 'root' }],
    ['www-data', { name: 'www-data' }],
    ['_apt', { name: '_apt' }],
    ['host$', { name: 'host$' }],
  ];
  for (const [input, want] of good) {
    it(`${JSON.stringify(input)}`, () => assert.deepEqual(parseIdSpec('owner', input), want));
  }
  const bad: unknown[] = [
    '',
    '-root',
    'a b',
    'root;id',
    '$(id)',
    'x'.repeat(40),
    -1,
    1.5,
    4_294_967_295,
    '99999999999',
    'rööt',
    null,
  ];
  for (const input of bad) {
    it(`refuses ${JSON.stringify(input)}`, () =>
      assert.throws(() => parseIdSpec('group', input), invalid(/^group: .* is not a group name or a numeric gid/)));
  }
});

const entry = (over: Partial<Entry> = {}): Entry =>
  entryAt('var/log/syslog.1', {
    size: 2048,
    mtimeSec: 1_764_000_000,
    mtimeNsec: 500,
    mode: 0o100644,
    uid: 1000,
    gid: 4,
    depth: 3,
    ...over,
  });

describe('parseFindFilterArgs + compileFindFilter', () => {
  it('is undefined when no filter is given', () => {
    assert.equal(parseFindFilterArgs({}, NOW), undefined);
    assert.deepEqual(filterFeatures(undefined), []);
  });

  it('parses every filter and lists its features in a fixed order', () => {
    const f = parseFindFilterArgs(
      {
        name: '*.1',
        perm: '/o+w',
        group: 'adm',
        owner: 1000,
        modified_before: '2026-12-01',
        modified_after: '7d',
        max_size: '1M',
        min_size: '1K',
      },
      NOW,
    ) as FindFilter;
    // Every feature, in the order the vocabulary declares them: written out, as agents echo these
    // names on the wire and the gateway refuses what a peer lacks.
    assert.deepEqual(filterFeatures(f), [
      'min_size',
      'max_size',
      'modified_after',
      'modified_before',
      'owner',
      'group',
      'perm',
      'name',
    ]);
    assert.equal(filterNeedsStat(f), true);
    assert.equal(filterNeedsStat({ name: '*.log' }), false);
  });

  it('bounds sizes inclusively and times strictly', () => {
    const t = { sec: 1_764_000_000, nsec: 500 };
    const cases: [FindFilter, Partial<Entry>, boolean][] = [
      [{ minSize: 2048 }, {}, true],
      [{ minSize: 2049 }, {}, false],
      [{ maxSize: 2048 }, {}, true],
      [{ maxSize: 2047 }, {}, false],
      [{ modifiedAfter: t }, {}, false],
      [{ modifiedAfter: { ...t, nsec: 499 } }, {}, true],
      [{ modifiedBefore: t }, {}, false],
      [{ modifiedBefore: { ...t, nsec: 501 } }, {}, true],
      [{ owner: { id: 1000 } }, {}, true],
      [{ owner: { id: 0 } }, {}, false],
      [{ group: { id: 4 } }, {}, true],
      [{ perm: { match: 'any', mode: 0o2 } }, {}, false],
      [{ perm: { match: 'any', mode: 0o2 } }, { mode: 0o100666 }, true],
      [{ name: '*.1' }, {}, true],
      [{ name: 'syslog*' }, {}, true],
      [{ name: 'log' }, {}, false],
      [{ name: '{a,syslog}.?' }, {}, true],
    ];
    for (const [f, over, want] of cases) {
      assert.equal(compileFindFilter(f)(entry(over)), want, JSON.stringify(f));
    }
  });

  it('refuses names not resolved at the edge', () => {
    assert.throws(
      () => compileFindFilter({ owner: { name: 'root' } }),
      invalid(/owner: the name "root" was not resolved/),
    );
  });

  it('refuses empty ranges and bad names', () => {
    assert.throws(() => parseFindFilterArgs({ min_size: '2K', max_size: '1K' }, NOW), invalid(/min_size .* max_size/));
    assert.throws(
      () => parseFindFilterArgs({ modified_after: '1d', modified_before: '2d' }, NOW),
      invalid(/modified_after must be earlier than modified_before/),
    );
    assert.throws(() => parseFindFilterArgs({ name: 'a/b' }, NOW), invalid(/^name: .*without '\/'/));
    assert.throws(() => parseFindFilterArgs({ name: '' }, NOW), invalid(/^name: /));
    assert.throws(() => parseFindFilterArgs({ name: 7 }, NOW), invalid(/^name: /));
    assert.throws(() => parseFindFilterArgs({ name: '[a' }, NOW), invalid(/^name: /));
  });

  it('checks filters that arrive parsed (from the wire)', () => {
    assert.throws(() => checkFindFilter({ minSize: -1 }), invalid(/^min_size/));
    assert.throws(() => checkFindFilter({ modifiedAfter: { sec: 1, nsec: 1e9 } }), invalid(/^modified_after/));
    assert.throws(() => checkFindFilter({ owner: { id: -5 } }), invalid(/^owner/));
    assert.throws(() => checkFindFilter({ perm: { match: 'most' as 'any', mode: 1 } }), invalid(/^perm/));
    assert.throws(() => checkFindFilter({ perm: { match: 'any', mode: 0o10000 } }), invalid(/^perm/));
    assert.deepEqual(checkFindFilter({ owner: { name: 'root' }, perm: { match: 'all', mode: 0o220 } }), {
      owner: { name: 'root' },
      perm: { match: 'all', mode: 0o220 },
    });
  });
});
