import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, ConfigExit, parseAgentConfig } from './config.js';

const env = {};
const parse = (argv: string[]) => parseAgentConfig(argv, env, '9.9.9');

function rejects(argv: string[], key: RegExp): void {
  assert.throws(
    () => parse(argv),
    (err) => err instanceof ConfigError && key.test(err.message),
  );
}

describe('parseAgentConfig', () => {
  it('takes flags, with defaults', () => {
    const c = parse(['--insecure', '--allow', '/srv', '--allow', '/var/log/']);
    assert.equal(c.listen, '127.0.0.1:7443');
    assert.equal(c.port, 7443);
    assert.deepEqual(c.allow, ['/srv', '/var/log']);
    assert.equal(c.maxConcurrentWalks, 8);
    assert.deepEqual(c.ceilings, {});
    const d = parse([
      '--insecure',
      '--listen',
      '[::1]:0',
      '--max-depth',
      '4',
      '--max-entries',
      '10',
      '--max-items-per-dir',
      '7',
      '--max-concurrent-walks',
      '2',
    ]);
    assert.equal(d.host, '::1');
    assert.equal(d.port, 0);
    assert.deepEqual(d.ceilings, { maxDepth: 4, maxEntries: 10, maxItemsPerDir: 7 });
    assert.equal(d.maxConcurrentWalks, 2);
  });

  it('requires TLS unless --insecure, and refuses --insecure off loopback', () => {
    rejects([], /^tls_cert: TLS is required/);
    rejects(['--insecure', '--listen', '0.0.0.0:7443'], /^insecure: refused on non-loopback/);
    rejects(['--tls-cert', 'a.pem'], /^tls_key/);
    const c = parse(['--tls-cert', '/c.pem', '--tls-key', '/k.pem', '--tls-ca', '/ca.pem', '--listen', '0.0.0.0:7443']);
    assert.deepEqual(c.tls, { cert: '/c.pem', key: '/k.pem', ca: '/ca.pem' });
  });

  it('names the key of a bad value', () => {
    rejects(['--insecure', '--listen', 'nope'], /^listen:/);
    rejects(['--insecure', '--listen', '127.0.0.1:70000'], /^listen: port/);
    rejects(['--insecure', '--allow', 'relative'], /^allow:/);
    rejects(['--insecure', '--max-depth', '0'], /^max_depth:/);
    rejects(['--insecure', '--max-concurrent-walks', 'x'], /^max_concurrent_walks:/);
    rejects(['--insecure', '--bogus'], /unknown option/);
  });

  it('reads the same keys from YAML, flags winning', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-cfg-'));
    try {
      const file = path.join(dir, 'agent.yaml');
      fs.writeFileSync(
        file,
        'listen: 127.0.0.1:9000\nallow: [/srv, /data]\ninsecure: true\nmax_entries: 50\ntoken_file: tok\n',
      );
      const c = parse(['--config', file, '--listen', '127.0.0.1:9001']);
      assert.equal(c.port, 9001);
      assert.deepEqual(c.allow, ['/srv', '/data']);
      assert.equal(c.insecure, true);
      assert.deepEqual(c.ceilings, { maxEntries: 50 });
      assert.equal(c.tokenFile, path.join(dir, 'tok'));
      fs.writeFileSync(file, 'insecure: true\nmax_entry: 5\n');
      rejects(['--config', file], /^max_entry: unknown key/);
      fs.writeFileSync(file, 'insecure: yes please\n');
      rejects(['--config', file], /^insecure:/);
      rejects(['--config', path.join(dir, 'missing.yaml')], /^config: cannot read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts deploy/agent.example.yaml', () => {
    const example = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy/agent.example.yaml');
    const c = parse(['--config', example]);
    assert.deepEqual(c.allow, ['/var/log', '/srv']);
    assert.equal(c.tls?.ca, '/etc/fleetls/tls/ca.crt');
    assert.equal(c.insecure, false);
  });

  it('prints help and version', () => {
    assert.throws(
      () => parse(['--help']),
      (e) => e instanceof ConfigExit && /--allow <dir>/.test(e.output),
    );
    assert.throws(
      () => parse(['--version']),
      (e) => e instanceof ConfigExit && e.output.trim() === '9.9.9',
    );
  });
});
