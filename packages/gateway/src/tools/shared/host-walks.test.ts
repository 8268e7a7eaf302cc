import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ENTRY_ERROR_CODES,
  type EntryErrorCode,
  emptySummary,
  errorRawEntry,
  FleetError,
  hostStatusFromCode,
  type Row,
  resolveWalkRequest,
  toEntry,
  type WalkSummary,
} from '@fleetls/core';
import { walkHost } from './host-walks.js';

/** A host that answers only its root, as an error row of `code`. */
async function* rootError(code: EntryErrorCode): AsyncGenerator<Row[], WalkSummary, void> {
  const root = Buffer.alloc(0);
  yield [{ kind: 'entry', entry: toEntry(errorRawEntry(root, 'dir', { code, detail: `root ${code}` }), root, 0) }];
  return emptySummary();
}

async function failureOf(code: EntryErrorCode): Promise<FleetError> {
  const req = resolveWalkRequest({ path: '/srv' });
  const err = await walkHost(() => rootError(code), req, AbortSignal.timeout(5000)).then(
    () => assert.fail('a lone root error row is the host failing'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FleetError);
  return err;
}

describe('a host whose root could not be listed', () => {
  // The agent's TIMEOUT row (a hung directory read) and the SSH route's both mean the host ran
  // out of time: status timeout, as core's one EntryErrorCode → Code table says.
  it('timed out (TIMEOUT) is a timeout host status, as on every route', async () => {
    const err = await failureOf('TIMEOUT');
    assert.equal(err.code, 'deadline_exceeded');
    assert.equal(hostStatusFromCode(err.code), 'timeout');
    assert.equal(err.message, 'root TIMEOUT');
  });

  it('gives each entry error its host status', async () => {
    const got: Record<string, string> = {};
    for (const code of ENTRY_ERROR_CODES) got[code] = hostStatusFromCode((await failureOf(code)).code);
    assert.deepEqual(got, {
      NOT_FOUND: 'not_found',
      DENIED: 'denied',
      ERROR: 'error',
      TIMEOUT: 'timeout',
      PRUNED: 'error',
    });
  });
});
