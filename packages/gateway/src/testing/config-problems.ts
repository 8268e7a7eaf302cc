// The problems of a refused configuration (an inventory, a config file): a FleetError
// invalid_argument whose message is a line saying what was refused, then one `  - ` line each.
import assert from 'node:assert/strict';
import { FleetError } from '@fleetls/core';

/** Runs `fn`, which must refuse its input, and gives the problems it listed, one per line. */
export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof FleetError, String(err));
    assert.equal(err.code, 'invalid_argument', err.message);
    return err.message
      .split('\n')
      .slice(1)
      .map((l) => l.replace(/^ {2}- /, ''));
  }
  assert.fail('expected the input to be refused');
}
