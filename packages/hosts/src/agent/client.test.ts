import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetError } from '@fleetls/core';
import { status } from '@grpc/grpc-js';
import { fleetErrorFromGrpc } from './client.js';

describe('fleetErrorFromGrpc', () => {
  const table: [status, string][] = [
    [status.UNAVAILABLE, 'unavailable'],
    [status.DEADLINE_EXCEEDED, 'deadline_exceeded'],
    [status.UNAUTHENTICATED, 'unauthenticated'],
    [status.PERMISSION_DENIED, 'permission_denied'],
    [status.NOT_FOUND, 'not_found'],
    [status.INVALID_ARGUMENT, 'invalid_argument'],
    [status.RESOURCE_EXHAUSTED, 'resource_exhausted'],
    // The agent went away (forceShutdown): a host failure, not our cancel.
    [status.CANCELLED, 'unavailable'],
    [status.INTERNAL, 'internal'],
    [status.UNKNOWN, 'internal'],
    [status.FAILED_PRECONDITION, 'internal'],
  ];
  for (const [grpcCode, code] of table) {
    it(`${status[grpcCode]} → ${code}, keeping the agent's message`, () => {
      const fe = fleetErrorFromGrpc({ code: grpcCode, details: 'what the agent said', message: 'x' }, 'h:1');
      assert.equal(fe.code, code);
      assert.equal(fe.message, 'agent h:1: what the agent said');
    });
  }

  it('gives our own abort reason when we cancelled', () => {
    const ctrl = new AbortController();
    const reason = new FleetError('deadline_exceeded', 'no answer within 20000 ms');
    ctrl.abort(reason);
    assert.equal(
      fleetErrorFromGrpc({ code: status.CANCELLED, details: 'Cancelled on client' }, 'h:1', ctrl.signal),
      reason,
    );
    const plain = new AbortController();
    plain.abort();
    assert.equal(fleetErrorFromGrpc({ code: status.CANCELLED }, 'h:1', plain.signal).code, 'cancelled');
  });

  it('names the status when the agent sent no details, and passes FleetErrors through', () => {
    assert.equal(
      fleetErrorFromGrpc({ code: status.UNAVAILABLE, details: '' }, 'h:1').message,
      'agent h:1: UNAVAILABLE',
    );
    const fe = new FleetError('not_found', 'x');
    assert.equal(fleetErrorFromGrpc(fe, 'h:1'), fe);
    assert.equal(fleetErrorFromGrpc(new Error('boom'), 'h:1').code, 'internal');
  });
});
