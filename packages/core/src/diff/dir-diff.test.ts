import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry, EntryType, Truncation } from '../domain/types.js';
import { FleetError } from '../errors/errors.js';
import { entryAt } from '../testing/index.js';
import { DistinctListings, diffHosts, diffListings, type HostTree, parseCompare } from './dir-diff.js';
import { diffDifferenceLines, diffGroupLines } from './render-diff.js';

/** A directory of 4096 bytes, mode 0755, or a file of 100, mode 0644, as of 2025-11-24 16:00 UTC. */
const e = (path: string, type: EntryType = 'file', over: Partial<Entry> = {}): Entry =>
  entryAt(path, {
    type,
    size: type === 'dir' ? 4096 : 100,
    mtimeSec: 1_764_000_000,
    mode: type === 'dir' ? 0o040755 : 0o100644,
    depth: path.split('/').length,
    ...over,
  });

const nginx = (): Entry[] => [
  e('conf.d', 'dir'),
  e('conf.d/default.conf'),
  e('nginx.conf', 'file', { size: 1234 }),
  e('sites-enabled', 'dir'),
  e('sites-enabled/site', 'symlink', { linkTarget: Buffer.from('../sites-available/site') }),
];

const host = (name: string, entries: Entry[], truncations: Truncation[] = []): HostTree => ({
  host: name,
  entries,
  truncations,
});

describe('parseCompare', () => {
  it('defaults to type, size, mode, owner and keeps a fixed order', () => {
    assert.deepEqual(parseCompare(undefined), ['type', 'size', 'mode', 'owner']);
    assert.deepEqual(parseCompare(['mtime', 'type', 'type']), ['type', 'mtime']);
  });
  for (const bad of [['colour'], [], 'type', [1], null, Array(20).fill('type')]) {
    it(`refuses ${JSON.stringify(bad)}`, () =>
      assert.throws(
        () => parseCompare(bad),
        (err: unknown) => err instanceof FleetError && err.code === 'invalid_argument' && /^compare/.test(err.message),
      ));
  }
  it('names the bad attribute and what is accepted', () => {
    assert.throws(
      () => parseCompare(['type', 'colour']),
      /compare\[1\]: "colour" is not an attribute; use any of type, size, mode, owner, mtime/,
    );
  });
});

describe('diffListings', () => {
  it('puts identical hosts in one group and lists no difference', () => {
    const d = diffListings([host('a', nginx()), host('b', nginx()), host('c', nginx())], parseCompare(undefined));
    assert.deepEqual(d.groups, [{ id: 'A', hosts: ['a', 'b', 'c'] }]);
    assert.deepEqual(d.differences, []);
  });

  it('names the majority the baseline and shows only what differs, with who has what', () => {
    const odd = nginx();
    odd[2] = e('nginx.conf', 'file', { size: 1301 });
    odd.push(e('conf.d/old.conf'));
    const d = diffListings(
      [host('web-1', nginx()), host('web-2', nginx()), host('web-3', odd), host('web-4', nginx())],
      parseCompare(undefined),
    );
    assert.deepEqual(d.groups, [
      { id: 'A', hosts: ['web-1', 'web-2', 'web-4'] },
      { id: 'B', hosts: ['web-3'] },
    ]);
    assert.deepEqual(
      d.differences.map((x) => x.path.toString()),
      ['conf.d/old.conf', 'nginx.conf'],
    );
    const lines = d.differences.flatMap((x) => diffDifferenceLines(x, d.groups));
    assert.deepEqual(lines, [
      'conf.d/old.conf',
      '  A: absent',
      '  B: file size 100 mode 0644 owner 0:0',
      'nginx.conf',
      '  A: size 1234',
      '  B: size 1301',
    ]);
    assert.deepEqual(diffGroupLines(d.groups), ['A  3 hosts (baseline): web-1, web-2, web-4', 'B  1 host: web-3']);
  });

  it('compares only the chosen attributes (mtime on request; a directory by its children, not its size)', () => {
    const later = nginx().map((x) => ({ ...x, mtimeSec: x.mtimeSec + 60 }));
    const bigDir = nginx().map((x) => (x.type === 'dir' ? { ...x, size: 12288 } : x));
    assert.equal(
      diffListings([host('a', nginx()), host('b', later), host('c', bigDir)], parseCompare(undefined)).differences
        .length,
      0,
    );
    const d = diffListings([host('a', nginx()), host('b', later)], ['mtime']);
    assert.equal(d.differences.length, 5);
    assert.deepEqual(diffDifferenceLines(d.differences[1], d.groups), [
      'conf.d/default.conf',
      '  A: mtime 2025-11-24T16:00:00+00:00',
      '  B: mtime 2025-11-24T16:01:00+00:00',
    ]);
  });

  it('shows a symlink target change and a mode change', () => {
    const other = nginx();
    other[4] = e('sites-enabled/site', 'symlink', { linkTarget: Buffer.from('/tmp/evil') });
    other[1] = e('conf.d/default.conf', 'file', { mode: 0o100666, uid: 33 });
    const d = diffListings([host('a', nginx()), host('b', other)], parseCompare(undefined));
    const lines = d.differences.flatMap((x) => diffDifferenceLines(x, d.groups));
    assert.deepEqual(lines, [
      'conf.d/default.conf',
      '  A: mode 0644 owner 0:0',
      '  B: mode 0666 owner 33:0',
      'sites-enabled/site',
      '  A: -> ../sites-available/site',
      '  B: -> /tmp/evil',
    ]);
  });

  it('reports a missing directory once, not each of its children', () => {
    const missing = nginx().filter((x) => !x.path.toString().startsWith('conf.d'));
    const d = diffListings([host('a', nginx()), host('b', nginx()), host('c', missing)], parseCompare(undefined));
    assert.deepEqual(
      d.differences.map((x) => x.path.toString()),
      ['conf.d'],
    );
    assert.deepEqual(d.differences[0].notCompared, []);
  });

  it('compares an entry under a capped directory only where it was listed, and says which hosts could not', () => {
    const big = (n: number) => [e('d', 'dir'), ...Array.from({ length: n }, (_, i) => e(`d/f${i}`))];
    const cut: Truncation = { dir: Buffer.from('d'), shown: 2, total: 4, reason: 'items_per_dir' };
    // c listed only f0 and f1 of four; b really lacks f3 (its directory was listed whole).
    const b = big(4).filter((x) => x.path.toString() !== 'd/f3');
    const d = diffListings([host('a', big(4)), host('b', b), host('c', big(2), [cut])], parseCompare(undefined));
    assert.deepEqual(
      d.differences.map((x) => x.path.toString()),
      ['d/f3'],
    );
    assert.deepEqual(d.differences[0].notCompared, ['c']);
    // c agrees with everything it listed: it joins the largest group it matches.
    assert.deepEqual(d.groups, [
      { id: 'A', hosts: ['a', 'c'] },
      { id: 'B', hosts: ['b'] },
    ]);
    assert.deepEqual(d.capped, [{ host: 'c', truncation: cut }]);
    assert.deepEqual(diffDifferenceLines(d.differences[0], d.groups), [
      'd/f3',
      '  A: file size 100 mode 0644 owner 0:0',
      '  B: absent',
      '  not compared (listed in part): c',
    ]);
  });

  it('treats a walk stopped early (deadline) as knowing nothing about what it did not list', () => {
    const stopped: Truncation = { dir: Buffer.alloc(0), shown: 2, total: 2, reason: 'deadline' };
    const d = diffListings([host('a', nginx()), host('b', nginx().slice(0, 2), [stopped])], parseCompare(undefined));
    assert.deepEqual(d.differences, []);
    assert.equal(d.groups.length, 1);
  });

  it('keeps an unreadable directory as a value, and does not blame its children', () => {
    const denied = nginx().filter((x) => !x.path.toString().startsWith('conf.d/'));
    denied.splice(1, 0, { ...e('conf.d', 'dir'), error: { code: 'DENIED', detail: 'permission denied' } });
    const d = diffListings([host('a', nginx()), host('b', denied)], parseCompare(undefined));
    assert.deepEqual(
      d.differences.map((x) => x.path.toString()),
      ['conf.d'],
    );
    assert.deepEqual(
      diffDifferenceLines(d.differences[0], d.groups),
      ['conf.d', '  A: ', '  B: [DENIED]'].map((l) => (l === '  A: ' ? '  A: present' : l)),
    );
  });

  it('orders groups by size, then by first host; ids run A… Z, AA', () => {
    const listings = Array.from({ length: 30 }, (_, i) =>
      host(`h${String(i).padStart(2, '0')}`, [e('x', 'file', { size: i < 2 ? 1 : 100 + i })]),
    );
    const d = diffListings(listings, ['size']);
    assert.equal(d.groups.length, 29);
    assert.deepEqual(d.groups[0], { id: 'A', hosts: ['h00', 'h01'] });
    assert.deepEqual(d.groups[1], { id: 'B', hosts: ['h02'] });
    assert.equal(d.groups[26].id, 'AA');
    assert.equal(d.differences[0].values.length, 29);
  });

  it('shows raw names escaped', () => {
    const odd = [...nginx(), e('bad\nname\xff'.replace('\xff', ''), 'file')];
    odd[odd.length - 1].path = Buffer.concat([Buffer.from('bad\nname'), Buffer.from([0xff])]);
    const d = diffListings([host('a', nginx()), host('b', odd)], ['type']);
    assert.deepEqual(diffDifferenceLines(d.differences[0], d.groups)[0], 'bad\\nname\\xff');
  });
});

describe('names over many hosts', () => {
  it('a group names its first hosts and counts the rest; hosts not compared likewise', () => {
    const groups = [
      { id: 'A', hosts: ['a', 'b', 'c', 'd'] },
      { id: 'B', hosts: ['e'] },
    ];
    assert.deepEqual(diffGroupLines(groups, [2, 1]), ['A  4 hosts (baseline): a, b and 2 more', 'B  1 host: e']);
    assert.deepEqual(diffGroupLines(groups, [0, 1])[0], 'A  4 hosts (baseline)');
    const d = {
      path: Buffer.from('x'),
      values: [
        { value: { present: false }, hosts: ['a', 'b'] },
        { value: { present: true, type: 'file' as const }, hosts: ['e'] },
      ],
      notCompared: ['c', 'd'],
    };
    assert.deepEqual(diffDifferenceLines(d, groups, 1), [
      'x',
      '  A: absent',
      '  B: file',
      '  not compared (listed in part): c and 1 more',
    ]);
  });
});

describe('DistinctListings', () => {
  it('keeps one copy of equal listings, whatever order their rows came in', () => {
    const kept = new DistinctListings(parseCompare(undefined));
    const first = kept.add(nginx(), []);
    const again = kept.add([...nginx()].reverse(), []);
    assert.deepEqual(first, { id: 0, fresh: true, rows: 5 });
    assert.deepEqual(again, { id: 0, fresh: false, rows: 0 });
    // An attribute not compared does not make a listing new; a compared one does.
    assert.equal(
      kept.add(
        nginx().map((x) => ({ ...x, mtimeSec: 1 })),
        [],
      ).id,
      0,
    );
    assert.equal(
      kept.add(
        nginx().map((x) => ({ ...x, uid: 33 })),
        [],
      ).fresh,
      true,
    );
    // Nor do equal entries with a cut: what the answer reports differs.
    const cut: Truncation = { dir: Buffer.from('conf.d'), shown: 1, total: 2, reason: 'items_per_dir' };
    assert.equal(kept.add(nginx(), [cut]).fresh, true);
    assert.equal(kept.add(nginx(), [cut]).fresh, false);
    assert.equal(kept.size, 3);
  });

  it('diffs 3,000 hosts from three kept listings, one of them listed in part', () => {
    const odd = nginx();
    odd[2] = e('nginx.conf', 'file', { size: 1301 });
    const stopped: Truncation = { dir: Buffer.alloc(0), shown: 2, total: 5, reason: 'deadline' };
    const kept = new DistinctListings(parseCompare(undefined));
    const trees = Array.from({ length: 3000 }, (_, i) => {
      const name = `h${String(i).padStart(4, '0')}`;
      if (i % 1000 === 7) return host(name, odd);
      if (i === 2999) return host(name, nginx().slice(0, 2), [stopped]);
      return host(name, nginx());
    });
    const hosts = trees.map((t) => ({ host: t.host, listing: kept.add(t.entries, t.truncations).id }));
    assert.equal(kept.size, 3);
    const d = diffHosts(kept, hosts);
    assert.deepEqual(
      d.groups.map((g) => g.hosts.length),
      [2997, 3],
    );
    assert.deepEqual(d.groups[1].hosts, ['h0007', 'h1007', 'h2007']);
    assert.ok(d.groups[0].hosts.includes('h2999'), 'the host listed in part joins the group it agrees with');
    assert.deepEqual(d.capped, [{ host: 'h2999', truncation: stopped }]);
    assert.deepEqual(diffDifferenceLines(d.differences[0], d.groups), [
      'nginx.conf',
      '  A: size 1234',
      '  B: size 1301',
      '  not compared (listed in part): h2999',
    ]);
  });
});
