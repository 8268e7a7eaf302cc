import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestName } from './nearest-name.js';

const KNOWN = ['host', 'path', 'order_by', 'sort', 'top_n', 'max_depth', 'pattern', 'type', 'start_index', 'limit'];

test('nearestName: spelling variants, typos, and nothing for a guess', () => {
  const cases: [string, string | undefined][] = [
    ['maxDepth', 'max_depth'],
    ['max-depth', 'max_depth'],
    ['MAX_DEPTH', 'max_depth'],
    ['orderBy', 'order_by'],
    ['topn', 'top_n'],
    ['limt', 'limit'],
    ['ptah', 'path'],
    ['hosts', 'host'],
    ['startIndex', 'start_index'],
    ['bogus', undefined],
    ['recursive', undefined],
    ['', undefined],
  ];
  for (const [input, want] of cases) assert.equal(nearestName(input, KNOWN), want, input);
});
