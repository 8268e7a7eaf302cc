import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOST_STATUSES } from '../domain/types.js';
import { CODES, type Code, FleetError, fleetErrorAt, hostStatusFromCode, invalidArgument } from './errors.js';

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
    it('knows the reasons AbortSignal gives', () => {
      assert.equal(FleetError.from(AbortSignal.abort().reason).code, 'cancelled');
      assert.equal(FleetError.from(new DOMException('t', 'TimeoutError')).code, 'deadline_exceeded');
    });
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
      assert.equal(FleetError.from(Object.assign(new Error('x'), { code: 'ECONNRESET' })).code, 'unavailable');
      assert.equal(FleetError.from(Object.assign(new Error('x'), { code: 'EWHATEVER' })).code, 'internal');
      const s = FleetError.from('plain string');
      assert.equal(s.code, 'internal');
      assert.equal(s.message, 'plain string');
      assert.equal(FleetError.from(undefined).message, 'undefined');
      assert.equal(FleetError.from(null, 'cancelled').code, 'cancelled');
    });
  });
});

describe('fleetErrorAt', () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: lstat '/x'`), { code });
  it('names the path for a missing or forbidden one', () => {
    assert.deepEqual(
      [FleetError.from(fleetErrorAt(errno('ENOENT'), '/srv/a')).code, fleetErrorAt(errno('ENOENT'), '/srv/a').message],
      ['not_found', 'path does not exist: /srv/a'],
    );
    assert.equal(fleetErrorAt(errno('ENOTDIR'), '/srv/a').code, 'not_found');
    assert.equal(fleetErrorAt(errno('EPERM'), '/srv/a').message, 'permission denied: /srv/a');
    const long = fleetErrorAt(errno('ENAMETOOLONG'), '/srv/a');
    assert.deepEqual([long.code, long.message], ['invalid_argument', 'file name too long: /srv/a']);
  });
  it("keeps Node's message otherwise, and a FleetError as is", () => {
    const e = fleetErrorAt(errno('ELOOP'), '/srv/a');
    assert.equal(e.code, 'internal');
    assert.equal(e.message, "ELOOP: lstat '/x'");
    const fe = new FleetError('cancelled', 'x');
    assert.equal(fleetErrorAt(fe, '/srv/a'), fe);
  });
  it('takes the errno from the caller when the platform has its own numbers', () => {
    assert.equal(
      fleetErrorAt(Object.assign(new Error('No such file'), { code: 2 }), '/a', 'ENOENT').message,
      'path does not exist: /a',
    );
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
