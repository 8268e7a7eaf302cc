import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Code } from './errors.js';
import { codeFromSshError, errnoFromSftp, sshCallFailure } from './ssh.js';

// Errors as ssh2 1.x makes them (lib/client.js, lib/protocol/utils.js makeError).
const TABLE: [string, { code?: unknown; level?: unknown; message?: unknown }, Code | undefined][] = [
  ['refused', { code: 'ECONNREFUSED', level: 'client-socket', message: 'connect ECONNREFUSED' }, 'unavailable'],
  ['socket timeout errno', { code: 'ETIMEDOUT', level: 'client-socket' }, 'deadline_exceeded'],
  ['socket closed', { level: 'client-socket', message: 'read ECONNRESET' }, 'unavailable'],
  ['dns', { level: 'client-dns', message: "Error while looking up IPv4 address for 'x'" }, 'unavailable'],
  ['keepalive', { level: 'client-timeout', message: 'Keepalive timeout' }, 'deadline_exceeded'],
  ['ready timeout', { level: 'client-timeout', message: 'Timed out while waiting for handshake' }, 'deadline_exceeded'],
  [
    'auth',
    { level: 'client-authentication', message: 'All configured authentication methods failed' },
    'unauthenticated',
  ],
  ['ssh-agent', { level: 'agent', message: 'agent signing failed' }, 'unauthenticated'],
  ['handshake', { level: 'handshake', message: 'Handshake failed: no matching key exchange algorithm' }, 'unavailable'],
  ['lost', { level: 'protocol', message: 'Connection lost before handshake' }, 'unavailable'],
  ['gone', { message: 'Not connected' }, 'unavailable'],
  ['no response', { message: 'No response from server' }, 'unavailable'],
  // A level says more than a message: a protocol error that happens to read "Not connected".
  ['level wins', { level: 'client-authentication', message: 'Not connected' }, 'unauthenticated'],
  // Never by pattern: a message that merely contains the words.
  ['no regex', { message: 'xx Not connected yy' }, undefined],
  ['unknown level', { level: 'martian' }, undefined],
  ['nothing', {}, undefined],
  ['not a prototype key', { level: 'constructor' }, undefined],
  ['not a prototype message', { message: 'toString' }, undefined],
];

describe('ssh2 error table', () => {
  for (const [name, err, want] of TABLE) it(name, () => assert.equal(codeFromSshError(err), want));
});

describe('SFTP status → errno', () => {
  it('maps the file statuses and connection losses', () => {
    assert.equal(errnoFromSftp({ code: 2 }), 'ENOENT');
    assert.equal(errnoFromSftp({ code: 3 }), 'EACCES');
    assert.equal(errnoFromSftp({ code: 7 }), 'ECONNRESET');
    assert.equal(errnoFromSftp({ code: 4 }), undefined);
    assert.equal(errnoFromSftp({ code: 'ENOENT' }), undefined);
    assert.equal(errnoFromSftp(undefined), undefined);
  });
});

describe('a failed call on an open ssh2 connection', () => {
  it('is gone (reconnect once) for the level-less errors of a dead connection', () => {
    assert.equal(sshCallFailure(new Error('Not connected')), 'gone');
    assert.equal(sshCallFailure(new Error('No response from server')), 'gone');
    assert.equal(sshCallFailure(Object.assign(new Error('Not connected'), { level: 'protocol' })), undefined);
  });
  it("is refused for ssh2's channel open failure, which carries the server's reason", () => {
    const err = Object.assign(new Error('(SSH) Channel open failure: open failed'), { reason: 2 });
    assert.equal(sshCallFailure(err), 'refused');
    assert.equal(sshCallFailure(new Error('(SSH) Channel open failure: open failed')), undefined);
    assert.equal(sshCallFailure(Object.assign(new Error('channel open failure'), { reason: 2 })), undefined);
  });
  it('is nothing else', () => {
    assert.equal(sshCallFailure(new Error('xx Not connected')), undefined);
    assert.equal(sshCallFailure(undefined), undefined);
    assert.equal(sshCallFailure('Not connected'), undefined);
  });
});
