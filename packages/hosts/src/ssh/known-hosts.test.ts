import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, test } from 'node:test';
import { fingerprint, hostKeyRefusal, keyTypeOf, knownKeyTypes, verifyHostKey } from './known-hosts.js';

function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

function ed25519Blob(): Buffer {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
}

function rsaLikeBlob(): Buffer {
  return Buffer.concat([
    sshString(Buffer.from('ssh-rsa')),
    sshString(Buffer.from([1, 0, 1])),
    sshString(ed25519Blob()),
  ]);
}

const A = ed25519Blob();
const B = ed25519Blob();
const R = rsaLikeBlob();
const line = (patterns: string, key: Buffer, marker = '') =>
  `${marker ? `${marker} ` : ''}${patterns} ${keyTypeOf(key)} ${key.toString('base64')} comment`;

describe('verifyHostKey', () => {
  const cases: [string, string, string, number, Buffer, string][] = [
    ['plain host, port 22', line('web-1', A), 'web-1', 22, A, 'ok'],
    ['host names are case-insensitive', line('Web-1', A), 'WEB-1', 22, A, 'ok'],
    ['plain host list', line('a,web-1,10.0.0.1', A), '10.0.0.1', 22, A, 'ok'],
    ['[host]:port', line('[127.0.0.1]:2322', A), '127.0.0.1', 2322, A, 'ok'],
    ['plain entry does not cover another port', line('127.0.0.1', A), '127.0.0.1', 2322, A, 'unknown'],
    ['[host]:port entry does not cover port 22', line('[127.0.0.1]:2322', A), '127.0.0.1', 22, A, 'unknown'],
    ['other port', line('[127.0.0.1]:2322', A), '127.0.0.1', 2323, A, 'unknown'],
    ['changed key of the same type', line('web-1', A), 'web-1', 22, B, 'mismatch'],
    ['only another key type known', line('web-1', R), 'web-1', 22, A, 'unknown'],
    ['wildcard *', line('*.example.com', A), 'db.example.com', 22, A, 'ok'],
    ['wildcard * does not match the bare domain', line('*.example.com', A), 'example.com', 22, A, 'unknown'],
    ['wildcard ?', line('web-?', A), 'web-7', 22, A, 'ok'],
    ['wildcard ? is one character', line('web-?', A), 'web-17', 22, A, 'unknown'],
    ['wildcard in [host]:port', line('[10.0.0.*]:2200', A), '10.0.0.9', 2200, A, 'ok'],
    ['negation excludes', line('*.example.com,!bad.example.com', A), 'bad.example.com', 22, A, 'unknown'],
    ['negation leaves others', line('*.example.com,!bad.example.com', A), 'ok.example.com', 22, A, 'ok'],
    ['negation alone matches nothing', line('!bad.example.com', A), 'good.example.com', 22, A, 'unknown'],
    ['@revoked wins over a good line', `${line('web-1', A)}\n${line('*', A, '@revoked')}`, 'web-1', 22, A, 'revoked'],
    ['@revoked other key does not matter', `${line('*', B, '@revoked')}\n${line('web-1', A)}`, 'web-1', 22, A, 'ok'],
    ['@cert-authority ignored', line('*', A, '@cert-authority'), 'web-1', 22, A, 'unknown'],
    ['unknown marker skipped', line('web-1', A, '@bogus'), 'web-1', 22, A, 'unknown'],
    ['regex characters are literal', line('web.1', A), 'webx1', 22, A, 'unknown'],
    [
      'comments and junk',
      `# web-1 ssh-ed25519 AAAA\n\ngarbage\nweb-1 ssh-ed25519 !!!\n${line('web-1', A)}`,
      'web-1',
      22,
      A,
      'ok',
    ],
    ['empty file', '', 'web-1', 22, A, 'unknown'],
  ];
  for (const [name, text, host, port, key, want] of cases) {
    it(name, () => assert.equal(verifyHostKey(text, host, port, key), want));
  }

  it('hashed entries written by ssh-keygen -H (port 22 and [host]:port)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kh-'));
    try {
      const file = join(dir, 'known_hosts');
      writeFileSync(file, `${line('web-1', A)}\n${line('[127.0.0.1]:2322', B)}\n`);
      execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
      const text = readFileSync(file, 'utf8');
      assert.match(text, /^\|1\|/m);
      assert.doesNotMatch(text, /web-1/);
      assert.equal(verifyHostKey(text, 'web-1', 22, A), 'ok');
      assert.equal(verifyHostKey(text, 'web-1', 22, B), 'mismatch');
      assert.equal(verifyHostKey(text, 'web-2', 22, A), 'unknown');
      assert.equal(verifyHostKey(text, '127.0.0.1', 2322, B), 'ok');
      assert.equal(verifyHostKey(text, '127.0.0.1', 22, B), 'unknown');
      assert.deepEqual(knownKeyTypes(text, '127.0.0.1', 2322), ['ssh-ed25519']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fingerprint', () => {
  it('equals ssh-keygen -l', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fp-'));
    try {
      const file = join(dir, 'k.pub');
      writeFileSync(file, `ssh-ed25519 ${A.toString('base64')} x\n`);
      const out = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', file], { encoding: 'utf8' });
      assert.equal(out.split(' ')[1], fingerprint(A));
      assert.match(fingerprint(A), /^SHA256:[A-Za-z0-9+/]{43}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('hostKeyRefusal: the known_hosts name, the file, the line to add and the keyscan command', () => {
  const key = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 2, 1, 2])]);
  const t = { host: '127.0.0.1', port: 2222, knownHostsFile: '/home/op/.ssh/known_hosts' };
  const unknown = hostKeyRefusal('web-1', 'unknown', t, key);
  assert.ok(
    unknown.startsWith(
      `host key for web-1 is unknown (${fingerprint(key)}): no line for [127.0.0.1]:2222 in /home/op/.ssh/known_hosts`,
    ),
    unknown,
  );
  assert.ok(unknown.includes(`add the line "[127.0.0.1]:2222 ssh-ed25519 ${key.toString('base64')}"`), unknown);
  assert.ok(unknown.endsWith('ssh-keyscan -p 2222 -t ed25519 127.0.0.1 >> /home/op/.ssh/known_hosts'), unknown);
  // Port 22: the plain name, no -p.
  const on22 = hostKeyRefusal('web-1', 'unknown', { ...t, port: 22 }, key);
  assert.ok(
    on22.includes('no line for 127.0.0.1 in') &&
      on22.endsWith('ssh-keyscan -t ed25519 127.0.0.1 >> /home/op/.ssh/known_hosts'),
    on22,
  );
  assert.match(
    hostKeyRefusal('web-1', 'mismatch', t, key),
    /is changed .*ssh-keygen -R '\[127\.0\.0\.1\]:2222' -f \/home\/op\/\.ssh\/known_hosts$/,
  );
  assert.match(
    hostKeyRefusal('web-1', 'revoked', t, key),
    /is revoked .*marked @revoked for \[127\.0\.0\.1\]:2222 in /,
  );
});
