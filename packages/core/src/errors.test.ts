import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CODES,
  type Code,
  codeFromErrno,
  entryErrorFromErrno,
  FleetError,
  hostStatusFromCode,
  invalidArgument,
} from './errors.js';
import { HOST_STATUSES } from './types.js';

describe('FleetError', () => {
  it('carries a code and a message', () => {
    const e = new FleetError('not_found', 'no such host');
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'FleetError');
    assert.equal(e.code, 'not_found');
    assert.equal(e.message, 'no such host');
  });

  it('invalidArgument makes invalid_argument', () => {
    const e = invalidArgument('max_depth must be an integer between 1 and 64, got 100');
    assert.equal(e.code, 'invalid_argument');
    assert.equal(e.message, 'max_depth must be an integer between 1 and 64, got 100');
  });

  describe('from', () => {
    it('returns a FleetError as is', () => {
      const e = new FleetError('cancelled', 'x');
      assert.equal(FleetError.from(e), e);
    });
    it('maps errno errors and keeps the cause', () => {
      const cause = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      const e = FleetError.from(cause);
      assert.equal(e.code, 'permission_denied');
      assert.equal(e.message, 'EACCES: permission denied');
      assert.equal(e.cause, cause);
    });
    it('uses the fallback for other errors and non-errors', () => {
      assert.equal(FleetError.from(new Error('boom')).code, 'internal');
      assert.equal(FleetError.from(new Error('boom'), 'unavailable').code, 'unavailable');
      assert.equal(FleetError.from(Object.assign(new Error('x'), { code: 'ECONNRESET' })).code, 'internal');
      const s = FleetError.from('plain string');
      assert.equal(s.code, 'internal');
      assert.equal(s.message, 'plain string');
      assert.equal(FleetError.from(undefined).message, 'undefined');
      assert.equal(FleetError.from(null, 'cancelled').code, 'cancelled');
    });
  });
});

describe('codeFromErrno', () => {
  const CASES: [string | undefined, Code | undefined][] = [
    ['ENOENT', 'not_found'],
    ['ENOTDIR', 'not_found'],
    ['EACCES', 'permission_denied'],
    ['EPERM', 'permission_denied'],
    ['ETIMEDOUT', 'deadline_exceeded'],
    ['ELOOP', 'internal'],
    ['EIO', 'internal'],
    ['ENAMETOOLONG', 'internal'],
    ['EMFILE', 'internal'],
    ['ECONNREFUSED', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [errno, want] of CASES) it(String(errno), () => assert.equal(codeFromErrno(errno), want));
});

describe('entryErrorFromErrno', () => {
  it('maps to NOT_FOUND, DENIED, ERROR with default details', () => {
    assert.deepEqual(entryErrorFromErrno('ENOENT'), { code: 'NOT_FOUND', detail: 'path does not exist' });
    assert.deepEqual(entryErrorFromErrno('ENOTDIR'), { code: 'NOT_FOUND', detail: 'path does not exist' });
    assert.deepEqual(entryErrorFromErrno('EACCES'), { code: 'DENIED', detail: 'permission denied' });
    assert.deepEqual(entryErrorFromErrno('EPERM'), { code: 'DENIED', detail: 'permission denied' });
    assert.deepEqual(entryErrorFromErrno('ELOOP'), { code: 'ERROR', detail: 'ELOOP' });
    assert.deepEqual(entryErrorFromErrno(undefined), { code: 'ERROR', detail: 'unknown error' });
  });
  it('keeps a given detail', () => {
    assert.deepEqual(entryErrorFromErrno('EIO', 'read error'), { code: 'ERROR', detail: 'read error' });
  });
});

describe('hostStatusFromCode', () => {
  it('maps every code to a known status', () => {
    const want: Record<Code, string> = {
      invalid_argument: 'error',
      permission_denied: 'denied',
      not_found: 'not_found',
      unauthenticated: 'auth',
      unavailable: 'unreachable',
      deadline_exceeded: 'timeout',
      cancelled: 'error',
      resource_exhausted: 'error',
      internal: 'error',
    };
    for (const code of CODES) {
      assert.equal(hostStatusFromCode(code), want[code], code);
      assert.ok((HOST_STATUSES as readonly string[]).includes(hostStatusFromCode(code)));
    }
  });
});
