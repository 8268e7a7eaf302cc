import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { expandTilde, parseJump, resolveSshConfig } from './ssh-config.js';

const HOME = '/home/op';

describe('resolveSshConfig', () => {
  const text = [
    'Host web-*',
    '  HostName %h.example.com',
    '  User deploy',
    '  Port 2200',
    '  IdentityFile ~/.ssh/id_%h',
    '  ProxyJump jump@bastion:2222',
    '',
    'Host db-1',
    '  hostname 10.0.0.5',
    '  identityfile ~/.ssh/db',
    '  identityfile /etc/keys/db2',
    '',
    'Host *',
    '  ProxyJump none',
  ].join('\n');

  it('resolves an alias: HostName, User, Port, IdentityFile (~ and %h expanded), ProxyJump', () => {
    const r = resolveSshConfig('web-1', text, HOME);
    assert.equal(r.user, 'deploy');
    assert.equal(r.port, 2200);
    assert.equal(r.proxyJump, 'jump@bastion:2222');
    assert.equal(r.hostName, 'web-1.example.com');
    assert.deepEqual(r.identityFiles, ['/home/op/.ssh/id_web-1.example.com']);
  });

  it('lower-case directives and several identity files; ProxyJump none', () => {
    const r = resolveSshConfig('db-1', text, HOME);
    assert.equal(r.hostName, '10.0.0.5');
    assert.deepEqual(r.identityFiles, ['/home/op/.ssh/db', '/etc/keys/db2']);
    assert.equal(r.proxyJump, undefined);
    assert.equal(r.port, undefined);
  });

  it('an unknown host resolves to itself', () => {
    const r = resolveSshConfig('10.1.1.1', '', HOME);
    assert.deepEqual(r, {
      hostName: '10.1.1.1',
      user: undefined,
      port: undefined,
      identityFiles: [],
      proxyJump: undefined,
    });
  });

  it('never runs Match exec', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sshcfg-'));
    try {
      const file = join(dir, 'PWNED');
      const evil = `Match exec "touch ${file}"\n  HostName evil.example.com\n\nHost *\n  User x\n`;
      const r = resolveSshConfig('web-1', evil, HOME);
      assert.equal(existsSync(file), false, 'Match exec ran a command');
      assert.equal(r.hostName, 'web-1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('helpers', () => {
  it('expandTilde', () => {
    assert.equal(expandTilde('~/.ssh/id', HOME), '/home/op/.ssh/id');
    assert.equal(expandTilde('~', HOME), HOME);
    assert.equal(expandTilde('/abs/~/x', HOME), '/abs/~/x');
    assert.equal(expandTilde('~other/x', HOME), '~other/x');
  });
  it('parseJump', () => {
    assert.deepEqual(parseJump('jump@bastion:2222'), { user: 'jump', host: 'bastion', port: 2222 });
    assert.deepEqual(parseJump('bastion'), { user: undefined, host: 'bastion', port: undefined });
    assert.deepEqual(parseJump('[::1]:22'), { user: undefined, host: '::1', port: 22 });
  });
});
