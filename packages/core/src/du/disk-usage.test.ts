import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry, Row, Truncation } from '../domain/types.js';
import { FleetError } from '../errors/errors.js';
import { entryRow } from '../testing/index.js';
import {
  type DuWalkRows,
  duBar,
  duPartialNote,
  duTotalFromListing,
  parseDuDepth,
  renderDuTable,
  renderDuTotals,
} from './disk-usage.js';

describe('disk_usage depth', () => {
  it('takes 1 to 3, 1 by default', () => {
    assert.equal(parseDuDepth(undefined), 1);
    assert.equal(parseDuDepth(3), 3);
  });
  for (const bad of [0, 4, 9, -1, 1.5, '2', null]) {
    it(`refuses ${JSON.stringify(bad)}`, () =>
      assert.throws(
        () => parseDuDepth(bad),
        (e: unknown) => e instanceof FleetError && /^depth must be an integer from 1 to 3/.test(e.message),
      ));
  }
});

describe('renderDuTable', () => {
  it('draws bars proportional to the largest size, at least one # for a non-empty directory', () => {
    assert.equal(duBar(100, 100, 10), '##########');
    assert.equal(duBar(50, 100, 10), '#####');
    assert.equal(duBar(1, 1_000_000, 10), '#');
    assert.equal(duBar(0, 100, 10), '');
  });

  it('is a compact table: human sizes, bars, host, full path; lower bounds marked', () => {
    const lines = renderDuTable(
      [
        { host: 'web-1', path: Buffer.from('log'), size: 12 * 1024 ** 3, partial: false },
        { host: 'web-2', path: Buffer.from('log/journal'), size: 6 * 1024 ** 3, partial: true },
        { host: 'web-1', path: Buffer.from('cache\n'), size: 1536, partial: false },
      ],
      '/var',
      true,
    );
    assert.deepEqual(lines, [
      '    SIZE                            HOST   PATH',
      '  12 GiB  ########################  web-1  /var/log',
      '≥6.0 GiB  ############              web-2  /var/log/journal',
      ' 1.5 KiB  #                         web-1  /var/cache\\n',
    ]);
  });

  it('leaves out the host column for one host', () => {
    assert.deepEqual(renderDuTable([{ host: 'a', path: Buffer.from('x'), size: 10, partial: false }], '/', false), [
      'SIZE                            PATH',
      '10 B  ########################  /x',
    ]);
  });
});

describe('renderDuTotals', () => {
  it("is du's root line per host, exact bytes beside the human size, ≥ for a lower bound", () => {
    const totals = [
      { host: 'web1', size: 29512, partial: false },
      { host: 'web2', size: 1 << 30, partial: true },
    ];
    assert.deepEqual(renderDuTotals(totals, '/srv', true), [
      'total  29 KiB (29512 bytes)  web1  /srv',
      'total  ≥1.0 GiB (≥1073741824 bytes)  web2  /srv',
    ]);
    assert.deepEqual(renderDuTotals(totals.slice(0, 1), '/srv', false), ['total  29 KiB (29512 bytes)  /srv']);
  });
});

describe('on-disk size and why a size is a lower bound', () => {
  const rows = [
    { host: 'a', path: Buffer.from('vm'), size: 1 << 30, partial: false, allocated: 8192 },
    { host: 'a', path: Buffer.from('share'), size: 5 << 20, partial: true, allocated: 6 << 20, unreadableDirs: 3 },
    { host: 'a', path: Buffer.from('slow'), size: 4096, partial: true },
  ];
  it('ON DISK beside SIZE once a host says it, ? where it cannot', () => {
    assert.deepEqual(renderDuTable(rows, '/srv', false), [
      '    SIZE   ON DISK                            PATH',
      ' 1.0 GiB   8.0 KiB  ########################  /srv/vm',
      '≥5.0 MiB  ≥6.0 MiB  #                         /srv/share',
      '≥4.0 KiB         ?  #                         /srv/slow',
    ]);
  });
  it('names each ≥ directory with its unreadable count, or the deadline', () => {
    assert.equal(
      duPartialNote(rows, '/srv', false),
      '[NOTE] ≥ marks a lower bound: /srv/share (3 unreadable directories), /srv/slow (time ran out, or entries unreadable)',
    );
    assert.equal(duPartialNote(rows.slice(0, 1), '/srv', false), undefined);
    assert.deepEqual(renderDuTotals([{ host: 'a', size: 10, partial: true, unreadableDirs: 1 }], '/srv', false), [
      'total  ≥10 B (≥10 bytes)  /srv; 1 unreadable directory',
    ]);
  });
});

describe("duTotalFromListing: du's total from the listing, or undefined where only the total walk can say", () => {
  const entry = (path: string, type: Entry['type'], size: number, over: Partial<Entry> = {}): Row =>
    entryRow(path, { type, size, depth: path.split('/').length, ...over });
  const walk = (rows: Row[], matched = rows.length, truncations: Truncation[] = []): DuWalkRows => ({
    rows,
    summary: {
      entriesSent: rows.length,
      entriesSeen: matched,
      entriesMatched: matched,
      truncations,
      elapsedMs: 1,
      depthLimitedDirs: 0,
    },
  });
  const topN = (shown: number, total: number): Truncation => ({ dir: Buffer.alloc(0), shown, total, reason: 'top_n' });
  // The listing, depth 2, largest first: depth-1 rows (recursive sizes) among depth-2 ones.
  const listing = walk([entry('log', 'dir', 9000), entry('log/journal', 'dir', 7000), entry('cache', 'dir', 4096)], 5, [
    topN(3, 5),
  ]);
  // path's own entries, unsized: its directories' lstat sizes and its files' sizes.
  const children = walk([entry('log', 'dir', 4096), entry('cache', 'dir', 4096), entry('notes', 'file', 50)]);

  it('is path itself, its depth-1 directories as listed and its other children', () => {
    assert.deepEqual(duTotalFromListing(4096, listing, children), { size: 4096 + 9000 + 4096 + 50, partial: false });
  });

  it("counts an inode all of whose names are path's children once, as du does", () => {
    const pair = { inode: 7, nlink: 2 };
    const linked = walk([...children.rows, entry('a', 'file', 1000, pair), entry('b', 'file', 1000, pair)]);
    assert.deepEqual(duTotalFromListing(4096, listing, linked), {
      size: 4096 + 9000 + 4096 + 50 + 1000,
      partial: false,
    });
  });

  const unknown: [string, DuWalkRows, DuWalkRows][] = [
    [
      'a depth-1 directory was ranked out of the listing',
      walk([entry('log', 'dir', 9000), entry('log/journal', 'dir', 7000)], 5, [topN(2, 5)]),
      children,
    ],
    [
      'a depth-1 size is a lower bound',
      walk([entry('log', 'dir', 9000, { sizePartial: true }), entry('cache', 'dir', 4096)]),
      children,
    ],
    [
      'the listing ran out of time',
      walk(listing.rows as Row[], 5, [{ dir: Buffer.alloc(0), shown: 3, total: 5, reason: 'deadline' }]),
      children,
    ],
    ['path has more children than its walk ranked', listing, walk(children.rows as Row[], 4)],
    [
      'a child could not be read',
      listing,
      walk([...children.rows, entry('x', 'file', 0, { error: { code: 'DENIED', detail: 'no' } })]),
    ],
    ['a child has a name outside path', listing, walk([...children.rows, entry('a', 'file', 1000, { nlink: 2 })])],
    [
      'the host cannot say inodes of linked files',
      listing,
      walk([...children.rows, entry('a', 'file', 10, { inode: 0, nlink: 2 })]),
    ],
  ];
  for (const [why, l, c] of unknown)
    it(`is undefined where ${why}`, () => assert.equal(duTotalFromListing(4096, l, c), undefined));
});
