import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger, droppedLogLines } from './logger.js';
import { createGatewayMetrics } from './metrics/metrics.js';

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
    const request = { headers: { authorization: 'Bearer t0k' }, path: '/srv' };
    const err = Object.assign(new Error('refused'), { password: 't0k' });
    log.child({ host: 'web-1', token: 't0k' }).debug({ cfg: { token: 't0k' }, request, err }, 'child');
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
    assert.equal(second.token, '[redacted]', "a child's bindings are censored too");
    assert.deepEqual(second.cfg, { token: '[redacted]' });
    assert.deepEqual(second.request, { headers: { authorization: '[redacted]' }, path: '/srv' });
    assert.equal(request.headers.authorization, 'Bearer t0k', "the caller's object is not changed");
    assert.equal(second.err.message, 'refused', 'an Error stays an Error: its message is logged');
    assert.equal(second.err.password, '[redacted]', "an Error's own properties are censored too");
    assert.equal(err.password, 't0k', "the caller's Error is not changed");
    assert.ok(!readFileSync(file, 'utf8').includes('t0k'));
  });

  it('never waits on a full pipe: drops and counts what its buffer cannot hold, then says so', async () => {
    // A FIFO opened read-write and non-blocking: a pipe whose reader reads only when told.
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    try {
      const log = createLogger({ name: 'gw', level: 'info', fd });
      const before = droppedLogLines();
      const line = 'x'.repeat(1000);
      // 8 MB: the pipe (64 KiB) and the 4 MiB buffer fill; every call returns.
      for (let i = 0; i < 8000; i++) log.info({ i, line }, 'filler');
      const dropped = droppedLogLines() - before;
      assert.ok(dropped > 3000 && dropped < 8000, `dropped ${dropped}`);
      const metrics = await createGatewayMetrics().registry.metrics();
      assert.match(metrics, new RegExp(`^fleetls_gateway_log_lines_dropped_total ${droppedLogLines()}$`, 'm'));
      // The reader comes back: the buffered lines, in order, then the count of those lost.
      let text = '';
      const chunk = Buffer.alloc(1 << 16);
      for (let tries = 0; tries < 1000 && !/lines dropped/.test(text); tries++) {
        try {
          const n = readSync(fd, chunk);
          text += chunk.toString('utf8', 0, n);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const report = lines.at(-1);
      assert.equal(report.level, 'warn');
      assert.equal(report.dropped, dropped);
      assert.equal(report.msg, `${dropped} log lines dropped: the log's reader did not keep up`);
      const kept = lines.slice(0, -1).map((l) => l.i);
      assert.deepEqual(
        kept,
        Array.from({ length: 8000 - dropped }, (_, i) => i),
      );
    } finally {
      closeSync(fd);
    }
  });
});
