import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptySummary, type HostBackend, NOOP_OBSERVER, type Row, type WalkSummary } from '@fleetls/core';
import { walkRequest } from '@fleetls/core/testing';
import { observeBackend } from './observe-backend.js';

/** A host that answers every walk with one empty batch. */
function host(): HostBackend {
  return {
    via: 'agent+nats',
    async *walk(): AsyncGenerator<Row[], WalkSummary, void> {
      yield [];
      return emptySummary();
    },
    stat: () => Promise.reject(new Error('not asked')),
    probe: async () => ({ version: 'test' }),
    close: () => {},
  };
}

describe('observeBackend, per backend', () => {
  // A NATS host's backend, so its observed wrapper, is made per call (fleet.ts). V8 gives a
  // generator function a map of its own, in the old generation, at its first call, pointing
  // back at the function: a walk generator declared per wrapper left that map, dead, holding
  // what the function held through every scavenge until a full collection
  // (bench/results/structure.why.md).
  it('walks every backend through one generator function', async () => {
    const walks = [observeBackend(host(), NOOP_OBSERVER), observeBackend(host(), NOOP_OBSERVER)].map((b) =>
      b.walk(walkRequest(), new AbortController().signal),
    );
    for (const w of walks) {
      assert.deepEqual(await w.next(), { done: false, value: [] });
      assert.equal((await w.next()).done, true);
    }
    assert.equal(Object.getPrototypeOf(walks[0]), Object.getPrototypeOf(walks[1]));
  });
});
