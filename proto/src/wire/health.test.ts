import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { service as reference } from 'grpc-health-check';
import { healthService, SERVING_STATUS, type ServingStatus } from './health.js';

// grpc-health-check's own definition (proto-loader over its health.proto) is the reference.
const ours = healthService();

describe('health codec', () => {
  it("has grpc-health-check's methods, paths and stream shapes", () => {
    assert.deepEqual(Object.keys(ours), Object.keys(reference));
    for (const [name, m] of Object.entries(reference)) {
      const o = ours[name];
      assert.equal(o.path, m.path);
      assert.equal(o.requestStream, m.requestStream);
      assert.equal(o.responseStream, m.responseStream);
      assert.equal(o.originalName, m.originalName);
    }
  });

  it('decodes requests and encodes answers as grpc-health-check did', () => {
    for (const name of ['Check', 'Watch'] as const) {
      for (const service of ['', 'fleetls.v1.Agent', 'ünï']) {
        const bytes = reference[name].requestSerialize({ service });
        assert.deepEqual(ours[name].requestDeserialize(bytes), reference[name].requestDeserialize(bytes));
      }
      for (const status of Object.keys(SERVING_STATUS) as ServingStatus[]) {
        const bytes = ours[name].responseSerialize({ status });
        assert.deepEqual(reference[name].responseDeserialize(bytes), { status });
      }
    }
    const statuses = { '': { status: 'SERVING' }, 'fleetls.v1.Agent': { status: 'NOT_SERVING' } };
    assert.deepEqual(reference.List.responseDeserialize(ours.List.responseSerialize({ statuses })), { statuses });
    assert.deepEqual(ours.List.requestDeserialize(Buffer.alloc(0)), reference.List.requestDeserialize(Buffer.alloc(0)));
  });

  it('refuses malformed requests where grpc-health-check refused them', () => {
    for (const bytes of [[0x0a, 0x05, 0x61], [0x08], [0x0f], [0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]]) {
      const b = Buffer.from(bytes);
      for (const name of ['Check', 'List'] as const) {
        let want: unknown;
        let got: unknown;
        try {
          want = reference[name].requestDeserialize(b);
        } catch {
          want = 'threw';
        }
        try {
          got = ours[name].requestDeserialize(b);
        } catch {
          got = 'threw';
        }
        assert.deepEqual(got, want, `${name} ${b.toString('hex')}`);
      }
    }
  });
});
