import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTarget } from './target.js';

describe('parseTarget', () => {
  const ok: [string, string, string][] = [
    ['localhost:/etc', 'localhost', '/etc'],
    ['/var/log', 'localhost', '/var/log'],
    ['web-*:/var/log', 'web-*', '/var/log'],
    ['a,b:/x:y', 'a,b', '/x:y'],
    ['label:role=web:/srv', 'label:role=web', '/srv'],
    ['@prod:/', '@prod', '/'],
  ];
  for (const [arg, selector, path] of ok) {
    it(arg, () => assert.deepEqual(parseTarget(arg), { selector, path }));
  }
  for (const bad of ['web-1', 'web-1:etc', '', ':/x', ' :/x']) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => parseTarget(bad), { code: 'invalid_argument' }));
  }
});
