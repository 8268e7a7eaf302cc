// Resuming a tree walk after a row of an earlier page (`after` + `afterRow`): pages of any
// size concatenate to the uncut listing, and directories before the resume point are not read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EntryError, EntryType, ResumeRow, Row, TreeSource } from '../domain/types.js';
import { recordAt, rootAt, runWalk, walkRequest } from '../testing/index.js';
import { MemorySource, type SourceRecord } from './memory-source.js';

const rec = (path: string, type: EntryType = 'file', size = 0): SourceRecord => recordAt(path, { type, size });
const ROOT = rootAt();

function line(r: Row): string {
  return r.kind === 'truncation'
    ? `WARN ${r.truncation.dir} ${r.truncation.shown}/${r.truncation.total}`
    : `${r.entry.error ? r.entry.error.code : r.entry.type} ${r.entry.path}`;
}

/** The resume point of a shown row, as the gateway records it. */
function resumeAt(r: Row): { after: Buffer; afterRow: ResumeRow } {
  if (r.kind === 'truncation') return { after: r.truncation.dir, afterRow: 'warning' };
  return { after: r.entry.path, afterRow: r.entry.error ? 'error' : 'entry' };
}

const DENIED: EntryError = { code: 'DENIED', detail: 'permission denied' };

/** Caps, a denied directory (DIR row then DENIED row), nested warnings, a symlink loop, a stat error. */
function bigTree(): () => MemorySource {
  const records: SourceRecord[] = [rec('a', 'dir'), rec('a/locked', 'dir'), rec('a/m', 'dir'), rec('b', 'dir')];
  for (let i = 0; i < 5; i++) records.push(rec(`a/m/f${i}`));
  records.push(rec('a/m/f1z', 'dir'), rec('a/m/f1z/w'), rec('a/m/f1z/x'), rec('a/m/f1z/y'), rec('a/m/f1z/z'));
  records.push(rec('a/z.txt'));
  const loop = { ...rec('b/loop', 'dir'), inode: ROOT.inode, linkTarget: Buffer.from('..') };
  records.push(loop, rec('b/c', 'dir'), rec('b/c/deep', 'dir'), rec('b/c/deep/leaf'));
  records.push({ ...rec('b/gone'), error: { code: 'NOT_FOUND', detail: 'vanished' } });
  for (let i = 0; i < 4; i++) records.push(rec(`top${i}`));
  records.push(rec('empty', 'dir'), rec('locked2', 'dir'));
  const dirErrors = new Map([
    ['a/locked', DENIED],
    ['locked2', DENIED],
  ]);
  return () => new MemorySource(ROOT, records, { dirErrors });
}

const BIG = walkRequest({ maxDepth: 5, maxItemsPerDir: 3, followSymlinks: true });

describe('walk, resuming a tree after a row', () => {
  const source = bigTree();
  const uncut = runWalk(BIG, source()).rows;

  it('has the rows this test is about', () => {
    const ls = uncut.map(line);
    for (const want of ['NOT_FOUND b/gone', 'DENIED locked2']) assert.ok(ls.includes(want), want);
    // Two [WARNING] rows in a row: the nested directory's, then its capped parent's.
    assert.equal(ls.indexOf('WARN a/m 3/6'), ls.indexOf('WARN a/m/f1z 3/4') + 1);
    assert.ok(ls.includes('dir a/locked') && ls.indexOf('DENIED a/locked') === ls.indexOf('dir a/locked') + 1);
    assert.ok(ls.includes('dir b/loop') && ls.indexOf('ERROR b/loop') === ls.indexOf('dir b/loop') + 1);
  });

  it('resumes after every row with exactly the rows that follow it', () => {
    for (let i = 0; i < uncut.length; i++) {
      const { rows } = runWalk({ ...BIG, ...resumeAt(uncut[i]) }, source());
      assert.deepEqual(rows.map(line), uncut.slice(i + 1).map(line), `after row ${i}: ${line(uncut[i])}`);
    }
  });

  it('pages of every size reproduce the uncut listing exactly', () => {
    for (let size = 1; size <= uncut.length + 1; size++) {
      const all: Row[] = [];
      let at: { after: Buffer; afterRow: ResumeRow } | undefined;
      for (let page = 0; page < 100; page++) {
        const { rows, summary } = runWalk({ ...BIG, maxEntries: size, ...(at ?? {}) }, source());
        all.push(...rows);
        const cut = summary.truncations.some((t) => t.reason === 'max_entries');
        if (!cut) break;
        assert.ok(rows.length > 0, `page ${page} of size ${size} made progress`);
        at = resumeAt(rows[rows.length - 1]);
      }
      assert.deepEqual(all.map(line), uncut.map(line), `pages of ${size}`);
    }
  });

  it('counts only the rows of its own page', () => {
    const i = uncut.findIndex((r) => line(r) === 'dir b');
    const { rows, summary } = runWalk({ ...BIG, ...resumeAt(uncut[i]) }, source());
    assert.equal(summary.entriesSent, rows.filter((r) => r.kind === 'entry').length);
  });

  it('does not read the directories before the resume point', () => {
    const listed: string[] = [];
    const inner = source();
    const counting: TreeSource = {
      root: () => inner.root(),
      list: (dir) => {
        listed.push(dir.toString());
        return inner.list(dir);
      },
      dirSize: (dir) => inner.dirSize(dir),
    };
    runWalk({ ...BIG, after: Buffer.from('b/c/deep/leaf') }, counting);
    // Only the resume path and what follows it: not a, a/locked, a/m, a/m/sub, b/loop.
    assert.deepEqual(listed, ['', 'b', 'b/c', 'b/c/deep', 'empty', 'locked2']);
  });

  it('resumes after the error row of a denied directory, not before it', () => {
    const entryRow = runWalk({ ...BIG, after: Buffer.from('a/locked'), afterRow: 'entry' }, source()).rows;
    const errorRow = runWalk({ ...BIG, after: Buffer.from('a/locked'), afterRow: 'error' }, source()).rows;
    assert.equal(line(entryRow[0]), 'DENIED a/locked');
    assert.deepEqual(entryRow.slice(1).map(line), errorRow.map(line));
    assert.equal(line(errorRow[0]), 'dir a/m');
  });

  it('resumes after a [WARNING] without repeating the directory', () => {
    const { rows } = runWalk({ ...BIG, after: Buffer.from('a/m'), afterRow: 'warning' }, source());
    assert.equal(line(rows[0]), 'file a/z.txt');
  });

  it('resumes at the next name when the row it follows is gone', () => {
    const { rows } = runWalk({ ...BIG, after: Buffer.from('a/m/f1z/xx') }, source());
    assert.deepEqual(rows.slice(0, 2).map(line), ['file a/m/f1z/y', 'WARN a/m/f1z 3/4']);
    const desc = walkRequest({ maxDepth: 1, direction: 'descending' });
    const gone = runWalk({ ...desc, after: Buffer.from('top15') }, source()).rows.map(line);
    assert.deepEqual(gone, ['file top1', 'file top0', 'dir locked2', 'dir empty', 'dir b', 'dir a']);
  });

  it('resumes after the root [WARNING] or error row with nothing', () => {
    const capped = walkRequest({ capRoot: true, maxItemsPerDir: 2, maxDepth: 1 });
    const rows = runWalk(capped, source()).rows.map(line);
    assert.equal(rows[rows.length - 1], 'WARN  2/8');
    assert.deepEqual(runWalk({ ...capped, after: Buffer.alloc(0), afterRow: 'warning' }, source()).rows, []);
    const locked = new MemorySource(ROOT, [], { dirErrors: new Map([['', DENIED]]) });
    assert.deepEqual(runWalk(walkRequest(), locked).rows.map(line), ['DENIED ']);
    assert.deepEqual(runWalk({ ...walkRequest(), after: Buffer.alloc(0), afterRow: 'error' }, locked).rows, []);
  });

  it('accepts a resume point as a plain Uint8Array (as a worker thread receives it)', () => {
    const after = new Uint8Array(Buffer.from('b/c'));
    const { rows } = runWalk({ ...BIG, after: after as Buffer }, source());
    assert.equal(line(rows[0]), 'dir b/c/deep');
  });

  it('resumes in size order too, selecting the same capped children', () => {
    const bySize = walkRequest({ order: 'size', direction: 'descending', maxDepth: 3, maxItemsPerDir: 2 });
    const records = [rec('d', 'dir'), rec('d/s1', 'file', 1), rec('d/s5', 'file', 5), rec('d/s3', 'file', 3)];
    const src = () => new MemorySource(ROOT, [...records, rec('e', 'file', 9)]);
    const all = runWalk(bySize, src()).rows;
    for (let i = 0; i < all.length; i++) {
      const { rows } = runWalk({ ...bySize, ...resumeAt(all[i]) }, src());
      assert.deepEqual(rows.map(line), all.slice(i + 1).map(line));
    }
  });

  it('says so when a directory on the resume path can no longer be read (a mount that stopped answering)', () => {
    const TIMEOUT: EntryError = { code: 'TIMEOUT', detail: 'did not answer' };
    const records = [rec('m', 'dir'), rec('m/a'), rec('m/b'), rec('m/sub', 'dir'), rec('m/sub/x'), rec('z')];
    const hung = new MemorySource(ROOT, records, {
      dirErrors: new Map([
        ['m', TIMEOUT],
        ['m/sub', TIMEOUT],
      ]),
    });
    // Listed up to m/a before m hung: m's error row follows, then what comes after m.
    assert.deepEqual(runWalk({ ...walkRequest(), after: Buffer.from('m/a') }, hung).rows.map(line), [
      'TIMEOUT m',
      'file z',
    ]);
    // Its own entry row shown last: the same.
    assert.deepEqual(runWalk({ ...walkRequest(), after: Buffer.from('m') }, hung).rows.map(line), [
      'TIMEOUT m',
      'file z',
    ]);
    // Its error row shown last: nothing repeated.
    assert.deepEqual(runWalk({ ...walkRequest(), after: Buffer.from('m'), afterRow: 'error' }, hung).rows.map(line), [
      'file z',
    ]);
    // An entry that cannot be stat'ed any more on the way (lstat of a hung mount point).
    const gone = new MemorySource(ROOT, [{ ...rec('m', 'dir'), error: TIMEOUT }, rec('z')]);
    assert.deepEqual(runWalk({ ...walkRequest(), after: Buffer.from('m/a') }, gone).rows.map(line), [
      'TIMEOUT m',
      'file z',
    ]);
  });
});
