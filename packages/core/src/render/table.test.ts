import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderAligned, renderTsv } from './table.js';

test('renderTsv: header then rows, tabs and newlines in cells escaped', () => {
  assert.deepEqual(renderTsv(['path', 'size'], [{ path: 'a\tb\nc', size: 3 }, { path: 'd' }]), [
    'path\tsize',
    'a\\tb\\nc\t3',
    'd\t',
  ]);
});

test('renderAligned: padded columns, right-aligned numbers, no trailing blanks', () => {
  const lines = renderAligned(
    ['name', 'size', 'host'],
    [
      { name: 'a', size: 10, host: 'web-1' },
      { name: 'longer', size: 2000, host: 'h' },
    ],
    { right: ['size'], headers: { name: 'NAME', size: 'SIZE', host: 'HOST' } },
  );
  assert.deepEqual(lines, ['NAME    SIZE  HOST', 'a         10  web-1', 'longer  2000  h']);
});
