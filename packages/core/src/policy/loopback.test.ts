import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopback } from './loopback.js';

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
