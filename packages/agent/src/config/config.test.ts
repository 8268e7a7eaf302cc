import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, ConfigExit, loadAgentConfig, parseAgentConfig } from './config.js';

// The host's own /etc/fleetls/agent.yaml (a package test may have installed one) is not these tests' input.
const env = { FLEETLS_AGENT_CONFIG: '/dev/null' };
const parse = (argv: string[]) => parseAgentConfig(argv, env, '9.9.9');

function rejects(argv: string[], key: RegExp): void {
  assert.throws(
    () => parse(argv),
    (err) => err instanceof ConfigError && key.test(err.message),
  );
}

describe('parseAgentConfig', () => {
  it('--path-rootfs / path_rootfs: an absolute directory; / is the same as none', () => {
    assert.equal(parse(['--insecure-loopback', '--path-rootfs', '/host/']).pathRootfs, '/host');
    assert.equal(parse(['--insecure-loopback', '--path-rootfs', '/']).pathRootfs, undefined);
    rejects(
      ['--insecure-loopback', '--path-rootfs', 'host'],
      /^path_rootfs: expected an absolute directory, got "host"/,
    );
  });

  it('takes flags, with defaults', () => {
    const c = parse(['--insecure-loopback', '--allow', '/srv', '--allow', '/var/log/']);
    assert.equal(c.listen, '127.0.0.1:7443');
    assert.equal(c.port, 7443);
    assert.deepEqual(c.allow, ['/srv', '/var/log']);
    assert.equal(c.maxConcurrentWalks, 8);
    assert.deepEqual(c.ceilings, {});
    const d = parse([
      '--insecure-loopback',
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

  it('plaintext TCP takes a token, or the explicit insecure_loopback (issue 35, F7)', () => {
    rejects(['--insecure'], /^insecure: plaintext on loopback needs token_file too .*insecure_loopback: true/);
    const withToken = parse(['--insecure', '--token-file', '/etc/fleetls/token']);
    assert.equal(withToken.insecure, true);
    assert.equal(withToken.insecureLoopback, undefined);
    const open = parse(['--insecure-loopback']);
    assert.equal(open.insecure, true);
    assert.equal(open.insecureLoopback, true);
    rejects(['--insecure-loopback', '--listen', '0.0.0.0:7443'], /^insecure_loopback: refused on non-loopback/);
    rejects(
      ['--insecure-loopback', '--tls-cert', '/c.pem', '--tls-key', '/k.pem', '--tls-ca', '/ca.pem'],
      /^insecure_loopback: cannot be combined with tls_cert/,
    );
    // A Unix socket needs neither: its mode and group are the boundary.
    assert.equal(parse(['--insecure', '--listen', 'unix:/run/a.sock']).unix?.path, '/run/a.sock');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-cfg-'));
    try {
      const file = path.join(dir, 'agent.yaml');
      fs.writeFileSync(file, 'insecure_loopback: true\n');
      assert.equal(parse(['--config', file]).insecureLoopback, true);
      fs.writeFileSync(file, 'insecure_loopback: "yes"\n');
      rejects(['--config', file], /^insecure_loopback: expected true or false/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the key of a bad value', () => {
    rejects(['--insecure-loopback', '--listen', 'nope'], /^listen:/);
    rejects(['--insecure-loopback', '--listen', '127.0.0.1:70000'], /^listen: port/);
    rejects(['--insecure-loopback', '--allow', 'relative'], /^allow:/);
    rejects(['--insecure-loopback', '--max-depth', '0'], /^max_depth:/);
    rejects(['--insecure-loopback', '--max-concurrent-walks', 'x'], /^max_concurrent_walks:/);
    rejects(['--insecure-loopback', '--bogus'], /unknown option/);
  });

  it('listens on a Unix socket: no TLS needed, mode and group from flags or the file', () => {
    const c = parse(['--listen', 'unix:/run/fleetls//agent.sock']);
    assert.deepEqual(c.unix, { path: '/run/fleetls/agent.sock', mode: 0o660, group: 'fleetls' });
    assert.equal(c.tls, undefined);
    const d = parse(['--listen', 'unix:/run/a.sock', '--socket-mode', '0640', '--socket-group', 'ops']);
    assert.deepEqual(d.unix, { path: '/run/a.sock', mode: 0o640, group: 'ops' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-cfg-'));
    try {
      const file = path.join(dir, 'agent.yaml');
      // An unquoted 0660 is the YAML number 660: read as chmod reads it.
      fs.writeFileSync(file, 'listen: unix:/run/fleetls/agent.sock\nsocket_mode: 0600\nsocket_group: "1234"\n');
      assert.deepEqual(parse(['--config', file]).unix, { path: '/run/fleetls/agent.sock', mode: 0o600, group: '1234' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the key of a bad Unix socket setting', () => {
    rejects(['--listen', 'unix:run/agent.sock'], /^listen: expected unix:\/ABSOLUTE\/PATH/);
    rejects(['--listen', 'unix:'], /^listen: expected unix:/);
    rejects(['--listen', `unix:/${'x'.repeat(120)}`], /^listen: socket path longer than 107 bytes/);
    rejects(['--listen', 'unix:/run/a.sock', '--socket-mode', '0666'], /^socket_mode: 0666 gives users outside/);
    rejects(['--listen', 'unix:/run/a.sock', '--socket-mode', '0o660'], /^socket_mode: expected an octal mode/);
    rejects(['--listen', 'unix:/run/a.sock', '--socket-mode', '0680'], /^socket_mode: expected an octal mode/);
    rejects(['--listen', 'unix:/run/a.sock', '--socket-group', 'a b'], /^socket_group: expected a group name/);
    rejects(['--insecure-loopback', '--socket-group', 'ops'], /^socket_group: only applies to listen: unix:PATH/);
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

  it("the agent's start (loadAgentConfig) reads a file as parseAgentConfig does, a blank one as none", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-cfg-'));
    try {
      const file = path.join(dir, 'agent.yaml');
      const argv = ['--config', file, '--insecure-loopback'];
      for (const text of ['', ' \n\t\r\n', '# nothing here\n', 'listen: 127.0.0.1:9000\nallow: [/srv]\n']) {
        fs.writeFileSync(file, text);
        assert.deepEqual(await loadAgentConfig(argv, env, '9.9.9'), parse(argv), JSON.stringify(text));
      }
      fs.writeFileSync(file, 'allow: [/srv]\nmax_entry: 5\n');
      await assert.rejects(
        loadAgentConfig(argv, env, '9.9.9'),
        (err) => err instanceof ConfigError && /^max_entry: unknown key/.test(err.message),
      );
      fs.writeFileSync(file, '- a list\n');
      await assert.rejects(
        loadAgentConfig(argv, env, '9.9.9'),
        (err) => err instanceof ConfigError && /must be a YAML mapping/.test(err.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts deploy/agent.example.yaml', () => {
    const example = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../deploy/agent.example.yaml');
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
