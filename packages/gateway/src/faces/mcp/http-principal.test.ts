import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerTokens, tokenCheck } from './http-principal.js';

test('a token file holds one token a line; blank lines and surrounding spaces are not tokens', () => {
  assert.deepEqual(bearerTokens(' alpha \n\nbeta\r\n  \n'), ['alpha', 'beta']);
  assert.deepEqual(bearerTokens('only'), ['only']);
  assert.deepEqual(bearerTokens(undefined), []);
  assert.deepEqual(bearerTokens('\n \n'), []);
});

test('each token is its own principal, named by its digest; a wrong or missing token is none', () => {
  const check = tokenCheck(['alpha', 'beta']);
  const a = check.principal('Bearer alpha');
  const b = check.principal('bearer  beta ');
  assert.match(a ?? '', /^http:bearer:[0-9a-f]{16}$/);
  assert.match(b ?? '', /^http:bearer:[0-9a-f]{16}$/);
  assert.notEqual(a, b);
  assert.equal(check.principal('Bearer alpha'), a, 'the same token is the same principal');
  assert.ok(!a?.includes('alpha'), 'the token itself is not in its name');
  assert.equal(check.principal('Bearer gamma'), undefined);
  assert.equal(check.principal('alpha'), undefined);
  assert.equal(check.principal(undefined), undefined);
  assert.equal(check.principal('Bearer '), undefined);
});
