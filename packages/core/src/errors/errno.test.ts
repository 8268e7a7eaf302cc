import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EntryErrorCode, HostStatusCode } from '../domain/types.js';
import { codeFromErrno, entryErrorFromErrno, errnoFromMessage } from './errno.js';
import { type Code, codeFromEntryError, hostStatusFromCode } from './errors.js';

// errno → [code, the walk's entry row code, the host status it becomes]
const TABLE: [string | undefined, Code | undefined, EntryErrorCode, HostStatusCode | undefined][] = [
  ['ENOENT', 'not_found', 'NOT_FOUND', 'not_found'],
  ['ENOTDIR', 'not_found', 'NOT_FOUND', 'not_found'],
  ['EACCES', 'permission_denied', 'DENIED', 'denied'],
  ['EPERM', 'permission_denied', 'DENIED', 'denied'],
  ['ETIMEDOUT', 'deadline_exceeded', 'ERROR', 'timeout'],
  ['ELOOP', 'internal', 'ERROR', 'error'],
  ['EIO', 'internal', 'ERROR', 'error'],
  ['ENAMETOOLONG', 'invalid_argument', 'ERROR', 'error'],
  ['EMFILE', 'internal', 'ERROR', 'error'],
  ['ENFILE', 'internal', 'ERROR', 'error'],
  ['ENOMEM', 'internal', 'ERROR', 'error'],
  ['ECONNREFUSED', 'unavailable', 'ERROR', 'unreachable'],
  ['ECONNRESET', 'unavailable', 'ERROR', 'unreachable'],
  ['ECONNABORTED', 'unavailable', 'ERROR', 'unreachable'],
  ['EPIPE', 'unavailable', 'ERROR', 'unreachable'],
  ['EHOSTUNREACH', 'unavailable', 'ERROR', 'unreachable'],
  ['ENETUNREACH', 'unavailable', 'ERROR', 'unreachable'],
  ['EADDRNOTAVAIL', 'unavailable', 'ERROR', 'unreachable'],
  ['ENOTFOUND', 'unavailable', 'ERROR', 'unreachable'],
  ['EAI_AGAIN', 'unavailable', 'ERROR', 'unreachable'],
  ['EWHATEVER', undefined, 'ERROR', undefined],
  ['', undefined, 'ERROR', undefined],
  [undefined, undefined, 'ERROR', undefined],
  // Not inherited from Object.prototype.
  ['constructor', undefined, 'ERROR', undefined],
];

describe('errno table', () => {
  for (const [errno, code, entry, status] of TABLE) {
    it(String(errno), () => {
      assert.equal(codeFromErrno(errno), code);
      assert.equal(entryErrorFromErrno(errno).code, entry);
      if (code) assert.equal(hostStatusFromCode(code), status);
    });
  }
  it('entry rows say what happened, or name the errno', () => {
    assert.deepEqual(entryErrorFromErrno('ENOENT'), { code: 'NOT_FOUND', detail: 'path does not exist' });
    assert.deepEqual(entryErrorFromErrno('EACCES'), { code: 'DENIED', detail: 'permission denied' });
    assert.deepEqual(entryErrorFromErrno('ELOOP'), { code: 'ERROR', detail: 'ELOOP' });
    assert.deepEqual(entryErrorFromErrno(undefined), { code: 'ERROR', detail: 'unknown error' });
    assert.deepEqual(entryErrorFromErrno('EIO', 'read error'), { code: 'ERROR', detail: 'read error' });
  });
});

describe("a remote tool's message → errno", () => {
  it('reads the strerror text GNU find and stat print', () => {
    assert.equal(errnoFromMessage("find: '/srv/x': No such file or directory"), 'ENOENT');
    assert.equal(errnoFromMessage("find: '/etc/passwd/x': Not a directory"), 'ENOTDIR');
    assert.equal(errnoFromMessage("stat: cannot statx '/root/x': Permission denied"), 'EACCES');
    assert.equal(errnoFromMessage('find: Input/output error'), undefined);
  });
});

describe('an entry error row → the code of the failure it stands for', () => {
  it('makes a TIMEOUT row (a read that did not answer) a timeout, whichever route listed it', () => {
    assert.equal(codeFromEntryError('TIMEOUT'), 'deadline_exceeded');
    assert.equal(hostStatusFromCode(codeFromEntryError('TIMEOUT')), 'timeout');
  });
  it('agrees with the errno table on the rows it makes', () => {
    for (const [errno, code, entry] of TABLE)
      if (errno && entry !== 'ERROR') assert.equal(codeFromEntryError(entry), code);
  });
});
