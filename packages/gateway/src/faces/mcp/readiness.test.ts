import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Readiness } from './readiness.js';

describe('Readiness', () => {
  it('is not ready until everything it waits for is up, and not once stopping', () => {
    const r = new Readiness(['inventory', 'Fleet gRPC API', 'HTTP']);
    assert.equal(r.notReady(), 'waiting for inventory, Fleet gRPC API, HTTP');
    r.up('inventory');
    r.up('HTTP');
    assert.equal(r.notReady(), 'waiting for Fleet gRPC API');
    r.up('Fleet gRPC API');
    assert.equal(r.notReady(), undefined);
    r.stop();
    assert.equal(r.notReady(), 'shutting down');
  });
});
