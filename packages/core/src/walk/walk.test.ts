import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EntryType, RawEntry, Row } from '../domain/types.js';
import { entryAt, recordAt, rootAt, runWalk, walkRequest } from '../testing/index.js';
import { MemorySource, type SourceRecord } from './memory-source.js';
import { errorRawEntry } from './walk.js';

function rec(path: string | Buffer, type: EntryType = 'file', size = 0, mtimeSec = 0, dev = 1): SourceRecord {
  return recordAt(path, { type, size, mtimeSec, dev });
}
const ROOT = rootAt();

/** Rows as DesktopCommander-like lines, for readable assertions. */
function lines(rows: Row[]): string[] {
  return rows.map((r) =>
    r.kind === 'truncation'
      ? `WARN ${r.truncation.dir} ${r.truncation.shown}/${r.truncation.total} ${r.truncation.reason}`
      : `${r.entry.error ? r.entry.error.code : r.entry.type} ${r.entry.path}`,
  );
}

describe('walk, tree shape', () => {
  const tree = () =>
    new MemorySource(ROOT, [
      rec('b', 'dir'),
      rec('B2.txt', 'file', 5),
      rec('a.txt', 'file', 9),
      rec('b/z', 'file'),
      rec('b/y', 'dir'),
      rec('b/y/deep', 'file'),
      rec('.hidden', 'file'),
    ]);

  it('lists depth-first with each directory in name order, ASCII case folded', () => {
    const { rows, summary } = runWalk(walkRequest(), tree());
    assert.deepEqual(lines(rows), ['file .hidden', 'file a.txt', 'dir b', 'dir b/y', 'file b/z', 'file B2.txt']);
    assert.equal(summary.entriesSent, 6);
    assert.equal(summary.depthLimitedDirs, 1, 'b/y sits at max_depth and is not opened');
  });

  it('orders by size descending with name breaking ties', () => {
    const { rows } = runWalk(walkRequest({ order: 'size', direction: 'descending', maxDepth: 1 }), tree());
    assert.deepEqual(lines(rows), ['file a.txt', 'file B2.txt', 'file .hidden', 'dir b']);
  });

  it('caps nested directories, reports what it hid after the subtree, and exempts the root', () => {
    const records = [rec('d', 'dir')];
    for (let i = 0; i < 250; i++) records.push(rec(`d/f${String(i).padStart(3, '0')}`));
    for (let i = 0; i < 150; i++) records.push(rec(`top${String(i).padStart(3, '0')}`));
    const { rows } = runWalk(walkRequest(), new MemorySource(ROOT, records));
    const out = lines(rows);
    assert.equal(out.filter((l) => l.startsWith('file d/')).length, 100);
    assert.equal(out.filter((l) => l.startsWith('file top')).length, 150, 'the root is exempt');
    const warn = out.indexOf('WARN d 100/250 items_per_dir');
    assert.ok(warn > out.indexOf('file d/f099'), 'warning follows the directory rows');
    assert.equal(out[out.indexOf('file d/f099') + 1], 'WARN d 100/250 items_per_dir');
  });

  it('caps the root too when asked', () => {
    const records = Array.from({ length: 10 }, (_, i) => rec(`f${i}`, 'file', i));
    const { rows } = runWalk(
      walkRequest({ capRoot: true, maxItemsPerDir: 3, order: 'size', direction: 'descending' }),
      new MemorySource(ROOT, records),
    );
    assert.deepEqual(lines(rows), ['file f9', 'file f8', 'file f7', 'WARN  3/10 items_per_dir']);
  });

  it('never emits more than max_entries rows and says so', () => {
    const records = [rec('a', 'dir'), rec('a/1'), rec('a/2'), rec('b', 'dir'), rec('b/1'), rec('c')];
    const { rows, summary } = runWalk(walkRequest({ maxEntries: 4 }), new MemorySource(ROOT, records));
    assert.deepEqual(lines(rows), ['dir a', 'file a/1', 'file a/2', 'dir b']);
    assert.equal(summary.entriesSent, 4);
    assert.equal(summary.truncations[0].reason, 'max_entries');
  });

  it('under a row filter, max_entries counts the rows it sends, not the children it looked at', () => {
    // Directories first in name order, files after: a walk that kept the first max_entries
    // children before the filter sent fewer rows (none here) and said it stopped at max_entries.
    const records = [rec('a', 'dir'), rec('b', 'dir'), rec('c', 'dir'), rec('d'), rec('e'), rec('f'), rec('g')];
    const req = walkRequest({ maxEntries: 3, maxDepth: 1, types: ['file'] });
    const { rows, summary } = runWalk(req, new MemorySource(ROOT, records));
    assert.deepEqual(lines(rows), ['file d', 'file e', 'file f']);
    assert.equal(summary.truncations[0].reason, 'max_entries');
    const few = runWalk({ ...req, maxEntries: 10 }, new MemorySource(ROOT, records));
    assert.deepEqual(lines(few.rows), ['file d', 'file e', 'file f', 'file g']);
    assert.deepEqual(few.summary.truncations, []);
  });

  it('lists a directory it cannot read as an error row and goes on', () => {
    const source = new MemorySource(ROOT, [rec('locked', 'dir'), rec('open', 'dir'), rec('open/x')], {
      dirErrors: new Map([['locked', { code: 'DENIED', detail: 'permission denied' }]]),
    });
    assert.deepEqual(lines(runWalk(walkRequest(), source).rows), [
      'dir locked',
      'DENIED locked',
      'dir open',
      'file open/x',
    ]);
  });

  it('reports a missing or non-directory root as one error row', () => {
    const missing = new MemorySource({ ...ROOT, error: { code: 'NOT_FOUND', detail: 'path does not exist' } }, []);
    assert.deepEqual(lines(runWalk(walkRequest(), missing).rows), ['NOT_FOUND ']);
    const file = new MemorySource({ ...ROOT, type: 'file' }, []);
    assert.deepEqual(lines(runWalk(walkRequest(), file).rows), ['ERROR ']);
  });

  it('lists an entry its source could not stat with its error and zero stats', () => {
    const denied = { code: 'DENIED', detail: 'permission denied' } as const;
    const source = new MemorySource(ROOT, [
      { ...errorRawEntry(Buffer.from('gone'), 'unknown', denied), path: Buffer.from('gone') },
    ]);
    const [row] = runWalk(walkRequest(), source).rows;
    // entryAt's stats are all 0 but inode and nlink.
    assert.deepEqual(row, {
      kind: 'entry',
      entry: entryAt('gone', { type: 'unknown', inode: 0, nlink: 0, error: denied }),
    });
  });

  it('hides dot files and prunes excluded paths when asked', () => {
    const { rows } = runWalk(walkRequest({ excludeHidden: true, exclude: ['b'] }), tree());
    assert.deepEqual(lines(rows), ['file a.txt', 'file B2.txt']);
  });

  it('keeps non-UTF-8 and newline names byte for byte', () => {
    const odd = Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe]);
    const { rows } = runWalk(walkRequest(), new MemorySource(ROOT, [rec(odd), rec('new\nline')]));
    const paths = rows.map((r) => (r.kind === 'entry' ? r.entry.path : Buffer.alloc(0)));
    assert.deepEqual(paths, [odd, Buffer.from('new\nline')]);
  });

  it('detects symlink loops when following links', () => {
    const link = { ...rec('loop', 'dir'), inode: ROOT.inode, linkTarget: Buffer.from('.') };
    const { rows } = runWalk(walkRequest({ followSymlinks: true, maxDepth: 5 }), new MemorySource(ROOT, [link]));
    assert.deepEqual(lines(rows), ['dir loop', 'ERROR loop']);
  });

  it('stays on one file system when asked', () => {
    const source = () => new MemorySource(ROOT, [rec('mnt', 'dir', 0, 0, 2), rec('mnt/x')]);
    assert.deepEqual(lines(runWalk(walkRequest({ oneFileSystem: true }), source()).rows), ['dir mnt']);
    assert.deepEqual(lines(runWalk(walkRequest(), source()).rows), ['dir mnt', 'file mnt/x']);
  });

  it('stops at the deadline and reports it', () => {
    const records = Array.from({ length: 5000 }, (_, i) => rec(`f${i}`));
    let t = 0;
    const { rows, summary } = runWalk(walkRequest({ deadlineMs: 10 }), new MemorySource(ROOT, records), () => (t += 1));
    assert.equal(rows.length, 0);
    assert.equal(summary.truncations[0].reason, 'deadline');
    assert.ok(summary.entriesSeen < 5000);
  });
});

describe('walk, tree shape, per walk', () => {
  // V8 gives a generator function a map of its own, in the old generation, at its first call,
  // pointing back at the function: a loop generator declared per walk left that map, dead,
  // holding the walk's state through every scavenge until a full collection
  // (bench/results/structure.why.md). The loop is inside the walk's own generator, so every
  // generator a walk resumes is seen through %GeneratorPrototype%.next.
  it('runs every walk through the same generator functions', () => {
    const generatorNext = Object.getPrototypeOf(function* () {}).prototype as Generator;
    const next = generatorNext.next;
    const resumed = (): unknown[] => {
      const protos = new Set<unknown>();
      generatorNext.next = function (this: Generator, ...args: [] | [unknown]) {
        protos.add(Object.getPrototypeOf(this));
        return next.apply(this, args);
      };
      try {
        runWalk(walkRequest(), new MemorySource(ROOT, [rec('d', 'dir'), rec('d/x'), rec('y')]));
      } finally {
        generatorNext.next = next;
      }
      return [...protos];
    };
    const first = resumed();
    const second = resumed();
    assert.ok(first.length >= 2, 'the walk and its loop are generators');
    assert.deepEqual(second, first);
    for (let i = 0; i < first.length; i++) assert.equal(second[i], first[i]);
  });
});

describe('walk, ranked shape', () => {
  const records = () => [
    rec('d', 'dir', 4096),
    rec('d/big', 'file', 900),
    rec('d/e', 'dir', 4096),
    rec('d/e/huge', 'file', 5000),
    rec('small', 'file', 1),
    rec('mid.log', 'file', 50),
  ];

  it('ranks over the whole walk and keeps offset + top_n', () => {
    const req = walkRequest({
      shape: 'ranked',
      order: 'size',
      direction: 'descending',
      maxDepth: 10,
      types: ['file'],
      topN: 2,
    });
    const { rows, summary } = runWalk(req, new MemorySource(ROOT, records()));
    assert.deepEqual(lines(rows), ['file d/e/huge', 'file d/big']);
    assert.equal(summary.entriesMatched, 4);
    assert.deepEqual(
      summary.truncations.map((t) => [t.reason, t.shown, t.total]),
      [['top_n', 2, 4]],
    );
    const page2 = runWalk({ ...req, offset: 2 }, new MemorySource(ROOT, records()));
    assert.deepEqual(lines(page2.rows), ['file mid.log', 'file small']);
  });

  it('matches globs on the relative path and respects depth', () => {
    const req = walkRequest({ shape: 'ranked', maxDepth: 1, include: ['*.log'] });
    assert.deepEqual(lines(runWalk(req, new MemorySource(ROOT, records())).rows), ['file mid.log']);
  });

  it('gives directories their recursive size when asked', () => {
    const source = new MemorySource(ROOT, records(), { dirSizes: new Map([['d', { size: 10000, partial: false }]]) });
    const req = walkRequest({ shape: 'ranked', maxDepth: 1, types: ['dir'], dirSizes: true, order: 'size' });
    const { rows } = runWalk(req, source);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].kind === 'entry' && rows[0].entry.size, 10000);
  });
});

describe('walk, lazy sources', () => {
  /** A source that gives names and types only, and counts the entries it had to complete. */
  function lazySource(records: SourceRecord[]) {
    const inner = new MemorySource(ROOT, records);
    const full = new Map<string, RawEntry>();
    const source = {
      filled: 0,
      root: () => inner.root(),
      dirSize: (dir: Buffer) => inner.dirSize(dir),
      list(dir: Buffer) {
        const children = inner.list(dir);
        if ('error' in children) return children;
        return [...children].map((raw) => {
          full.set(`${dir}/${raw.name}`, raw);
          return { ...raw, size: 0, mtimeSec: 0, inode: 0, dev: 0, lazy: true as const };
        });
      },
      fill(dir: Buffer, raw: RawEntry): RawEntry {
        source.filled++;
        return full.get(`${dir}/${raw.name}`)!;
      },
    };
    return source;
  }
  const big = () => {
    const records = [rec('d', 'dir')];
    for (let i = 0; i < 1000; i++) records.push(rec(`d/f${String(i).padStart(4, '0')}`, 'file', i, i));
    return records;
  };

  it('completes only the entries it keeps when ordering by name', () => {
    const source = lazySource(big());
    const { rows } = runWalk(walkRequest({ maxItemsPerDir: 10 }), source);
    assert.equal(source.filled, 1 + 10, 'the directory and the ten kept files');
    const first = rows[1];
    assert.ok(first.kind === 'entry' && first.entry.size === 0 && first.entry.mtimeSec === 0);
    const last = rows[10];
    assert.ok(last.kind === 'entry' && last.entry.size === 9 && last.entry.path.toString() === 'd/f0009');
  });

  it('gives the same rows as an eager source, whatever the order', () => {
    for (const order of ['name', 'size', 'modified'] as const) {
      for (const shape of ['tree', 'ranked'] as const) {
        const req = walkRequest({ order, shape, direction: 'descending', maxItemsPerDir: 7, topN: 5, maxDepth: 3 });
        const records = big();
        const eager = runWalk(req, new MemorySource(ROOT, records));
        const lazy = runWalk(req, lazySource(records));
        assert.deepEqual(lazy, eager, `${order} ${shape}`);
      }
    }
  });
});

describe('walk, ranked shape, bounded', () => {
  it('refuses to hold more than MAX_RANKED_HELD entries, wherever its request was resolved (issue 35, F6)', () => {
    const source = new MemorySource(ROOT, [rec('a'), rec('b')]);
    const req = walkRequest({ shape: 'ranked', order: 'size', topN: 1000, offset: 99_001 });
    assert.throws(() => runWalk(req, source), /offset \+ top_n must be at most 100000/);
    const fits = runWalk(walkRequest({ shape: 'ranked', order: 'size', topN: 1000, offset: 99_000 }), source);
    assert.equal(fits.rows.length, 0);
  });
});
