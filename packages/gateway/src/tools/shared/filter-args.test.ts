// The find-like filter arguments refuse a bad value with the argument named and its bound:
// the hostile bench (seed 3) found max_size's string branch answering zod's bare "Too big".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FleetError } from '@fleetls/core';
import { parseArgs } from '../schemas.js';
import { filterInput } from './filter-args.js';

function refusal(args: Record<string, unknown>): string {
  try {
    parseArgs(filterInput, args);
  } catch (err) {
    assert.ok(err instanceof FleetError);
    assert.equal(err.code, 'invalid_argument');
    return err.message;
  }
  assert.fail(`accepted ${JSON.stringify(args).slice(0, 80)}`);
}

test('every filter argument: a string past 256 characters is refused naming the argument and the bound', () => {
  for (const name of Object.keys(filterInput)) {
    assert.equal(refusal({ [name]: 'a'.repeat(257) }), `${name} must be at most 256 characters`);
  }
  // 256 is still taken to core's parse.
  assert.doesNotThrow(() => parseArgs(filterInput, { max_size: '1'.repeat(256) }));
});

test('every filter argument: a wrong type is refused naming the argument', () => {
  for (const name of Object.keys(filterInput)) {
    assert.match(refusal({ [name]: [1] }), new RegExp(`^${name} must be a string`));
  }
});
