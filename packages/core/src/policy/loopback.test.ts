import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostHeaderAllowed, hostOfHostHeader, isLoopback } from './loopback.js';

describe('isLoopback', () => {
  const TABLE: [string, boolean][] = [
    ['localhost', true],
    ['LocalHost', true],
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['0000::0001', true],
    ['::1%lo', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:127.0.0.1]', true],
    ['::ffff:7f00:1', true],
    ['0:0:0:0:0:ffff:127.9.9.9', true],
    ['::', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['128.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::2', false],
    ['1::1', false],
    ['::127.0.0.1', false],
    ['127.0.0.256', false],
    ['127.0.0', false],
    ['127.0.0.1.evil.example', false],
    ['localhost.evil.example', false],
    ['evil.example', false],
    ['', false],
    ['1:2:3:4:5:6:7:8:9', false],
    ['::1::', false],
    ['fe80::1', false],
  ];
  for (const [host, want] of TABLE) it(`${host || '(empty)'} → ${want}`, () => assert.equal(isLoopback(host), want));
});

describe('hostHeaderAllowed', () => {
  it('takes the host of a Host header, with a port, in brackets, or absent', () => {
    assert.equal(hostOfHostHeader('127.0.0.1:9100'), '127.0.0.1');
    assert.equal(hostOfHostHeader('[::1]:80'), '::1');
    assert.equal(hostOfHostHeader('localhost'), 'localhost');
    assert.equal(hostOfHostHeader(undefined), '');
  });

  it('answers loopback names only on a loopback server, any name elsewhere', () => {
    for (const h of ['127.0.0.1:9100', 'localhost:9100', '[::1]:9100']) assert.ok(hostHeaderAllowed('127.0.0.1', h), h);
    for (const h of ['evil.example', 'evil.example:9100', '10.0.0.1:9100', undefined, ''])
      assert.ok(!hostHeaderAllowed('127.0.0.1', h), String(h));
    assert.ok(hostHeaderAllowed('0.0.0.0', 'evil.example'));
  });
});
