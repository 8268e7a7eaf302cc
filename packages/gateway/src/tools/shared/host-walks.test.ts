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
import { entryRow } from '@fleetls/core/testing';
import type { HostResult } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { type HostWalk, mergeRankedWalks, rankedWalkTask, walkHost, walkTask } from './host-walks.js';

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

describe('a ranked walk over many hosts', () => {
  // 300 hosts of 10 rows each, ranked by size: a top 10 keeps what may rank within it, and
  // ranks the same as every row kept would.
  const hosts: FleetHost[] = Array.from({ length: 300 }, (_, i) => ({
    name: `h-${String(i).padStart(3, '0')}`,
    via: 'agent+nats',
    address: 'test',
    labels: {},
    groups: [],
    sshFallback: false,
  }));
  const rowsOf = (i: number): Row[] =>
    Array.from({ length: 10 }, (_, j) => entryRow(`f${j}`, { size: ((i * 7919 + j * 104_729) % 10_007) + 1 })).sort(
      (a, b) => (b.kind === 'entry' && a.kind === 'entry' ? b.entry.size - a.entry.size : 0),
    );
  const req = resolveWalkRequest({ path: '/srv', shape: 'ranked', order: 'size', direction: 'descending', topN: 10 });
  const backendOf = (i: number) =>
    ({
      walk: async function* () {
        yield rowsOf(i);
        return { ...emptySummary(), entriesMatched: 10, entriesSeen: 10, entriesSent: 10 };
      },
    }) as never;
  const run = async (task: ReturnType<typeof walkTask>): Promise<HostResult<HostWalk>[]> => {
    const out: HostResult<HostWalk>[] = [];
    for (const [i, host] of hosts.entries()) {
      const value = await task(backendOf(i), host, AbortSignal.timeout(5000), 5000);
      out.push({ host, status: { host: host.name, status: 'ok', via: 'agent+nats', elapsedMs: 0 }, value });
    }
    return out;
  };
  const top = (rs: HostResult<HostWalk>[]) =>
    mergeRankedWalks(rs, req, undefined, 10).merged.map((e) => `${e.host}:${e.entry.path}:${e.entry.size}`);

  it('keeps what may rank within the top, and ranks the same', async () => {
    const whole = await run(walkTask(req));
    const kept = await run(rankedWalkTask(req, 10));
    assert.deepEqual(top(kept), top(whole));
    assert.equal(mergeRankedWalks(kept, req).found, 3000, 'every entry matched is still counted');
    const rows = kept.reduce((n, r) => n + (r.value?.rows.length ?? 0), 0);
    // Kept: each row that ranked within the best 10 when it came (about 10 × ln 300 here), not 3,000.
    assert.ok(rows < 300, `${rows} rows kept of 3000`);
  });
});
