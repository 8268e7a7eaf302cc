import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry, Row } from '../domain/types.js';
import { entryAt } from '../testing/index.js';
import { renderTree, treeEntryLine, treeTruncationLine } from './tree-lines.js';

const entry = (path: string | Buffer, type: Entry['type'], extra: Partial<Entry> = {}): Entry =>
  entryAt(path, { type, ...extra });

test('entry lines follow DesktopCommander', () => {
  assert.equal(treeEntryLine(entry('a/b', 'dir')), '[DIR] a/b');
  assert.equal(treeEntryLine(entry('a/b/c', 'file')), '[FILE] a/b/c');
  assert.equal(treeEntryLine(entry('p', 'fifo')), '[FILE] p');
  assert.equal(treeEntryLine(entry('l', 'symlink', { linkTarget: Buffer.from('../t') })), '[LINK] l -> ../t');
  assert.equal(
    treeEntryLine(entry('a/x', 'dir', { error: { code: 'DENIED', detail: 'permission denied' } })),
    '[DENIED] a/x — permission denied',
  );
  assert.equal(
    treeEntryLine(entry('', 'unknown', { error: { code: 'NOT_FOUND', detail: 'path does not exist' } }), '/srv/x'),
    '[NOT_FOUND] /srv/x — path does not exist',
  );
});

test('hostile names are escaped, never dropped, one line each', () => {
  const line = treeEntryLine(entry(Buffer.from([0x61, 0x0a, 0x62, 0xff]), 'file'));
  assert.ok(line.startsWith('[FILE] a'));
  assert.ok(!line.includes('\n'));
  assert.notEqual(line, '[FILE] a');
});

test('items-per-dir warning has the exact peer wording', () => {
  assert.equal(
    treeTruncationLine({ dir: Buffer.from('a/b'), shown: 100, total: 250, reason: 'items_per_dir' }),
    '[WARNING] a/b: 150 items hidden (showing first 100 of 250 total)',
  );
});

test('renderTree: rows in order, prefix on each line, whole-walk cuts last', () => {
  const rows: Row[] = [
    { kind: 'entry', entry: entry('a', 'dir') },
    { kind: 'entry', entry: entry('a/1', 'file', { depth: 2 }) },
    { kind: 'truncation', truncation: { dir: Buffer.from('a'), shown: 1, total: 3, reason: 'items_per_dir' } },
    { kind: 'entry', entry: entry('z', 'file') },
  ];
  const lines = renderTree(rows, [{ dir: Buffer.from('a'), shown: 3, total: 9, reason: 'max_entries' }], {
    prefix: 'web-1: ',
  });
  assert.deepEqual(lines, [
    'web-1: [DIR] a',
    'web-1: [FILE] a/1',
    'web-1: [WARNING] a: 2 items hidden (showing first 1 of 3 total)',
    'web-1: [FILE] z',
    'web-1: [WARNING] listing stopped at a: entry limit reached (showing 3 entries of 9 seen so far)',
  ]);
});
