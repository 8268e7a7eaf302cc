import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from './logger.js';

describe('createLogger', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-log-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes JSON lines with secrets redacted, in children too', () => {
    const file = join(dir, 'log.jsonl');
    const fd = openSync(file, 'w');
    const log = createLogger({ name: 'gw', level: 'debug', fd });
    log.info(
      {
        token: 't0k',
        authorization: 'Bearer t0k',
        headers: { authorization: 'Bearer t0k', host: 'x' },
        ssh: { passphrase: 'pp', privateKey: 'KEY', password: 'pw', user: 'fleet' },
      },
      'hello',
    );
    log.child({ host: 'web-1' }).debug({ cfg: { token: 't0k' } }, 'child');
    closeSync(fd);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    const [first, second] = lines;
    assert.equal(first.level, 'info');
    assert.equal(first.svc, 'gw');
    assert.equal(first.msg, 'hello');
    assert.equal(first.token, '[redacted]');
    assert.equal(first.authorization, '[redacted]');
    assert.deepEqual(first.headers, { authorization: '[redacted]', host: 'x' });
    assert.deepEqual(first.ssh, {
      passphrase: '[redacted]',
      privateKey: '[redacted]',
      password: '[redacted]',
      user: 'fleet',
    });
    assert.equal(second.host, 'web-1');
    assert.deepEqual(second.cfg, { token: '[redacted]' });
    assert.ok(!readFileSync(file, 'utf8').includes('t0k'));
  });
});
