import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EntryType } from '../domain/types.js';
import { typeFromMode } from './file-mode.js';

test('typeFromMode reads the file-type bits and ignores the permission bits', () => {
  const cases: [number, EntryType][] = [
    [0o100644, 'file'],
    [0o104755, 'file'], // setuid
    [0o040755, 'dir'],
    [0o041777, 'dir'], // sticky
    [0o120777, 'symlink'],
    [0o010600, 'fifo'],
    [0o140755, 'socket'],
    [0o020620, 'char'],
    [0o060660, 'block'],
    [0o000644, 'unknown'], // no type bits
    [0o160000, 'unknown'], // S_IFWHT, no entry type
    [0, 'unknown'],
  ];
  for (const [mode, type] of cases) assert.equal(typeFromMode(mode), type, mode.toString(8));
});
