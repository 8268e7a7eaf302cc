import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { estimateTokens } from './token-estimate.js';

describe('estimateTokens', () => {
  test('counts each kind of text high, as the weights say', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcdefgh'), 2);
    assert.equal(estimateTokens('1234567'), 3);
    assert.equal(estimateTokens('   \n\t '), 1);
    // '{"' 1.5 + 'a' 1 + '":' 1.5 + '1' 1 + '}' 0.75
    assert.equal(estimateTokens('{"a":1}'), 6);
    // Two UTF-8 bytes 1.25, three 1.5, a surrogate pair 3; rounded up once, at the end.
    assert.equal(estimateTokens('é'), 2);
    assert.equal(estimateTokens('éé'), 3);
    assert.equal(estimateTokens('日本'), 3);
    assert.equal(estimateTokens('😀'), 3);
  });

  test('a lone surrogate, a control character and a very long run are counted, not refused', () => {
    assert.equal(estimateTokens('\ud800'), 2);
    assert.equal(estimateTokens('\u0001'), 1);
    assert.equal(estimateTokens('a'.repeat(1_000_001)), 250_001);
  });
});
