import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row, StatInfo, WalkRequest, WalkSummary } from '@fleetls/core';
import { ENTRY_TYPES, resolveWalkRequest } from '@fleetls/core';
import {
  requestToWire,
  rowFromWire,
  rowToWire,
  statFromWire,
  statToWire,
  summaryFromWire,
  summaryToWire,
  wireToRequestInput,
} from './codec.js';
import { ENTRY_TYPE } from './enums.js';
import { loadContract } from './index.js';
import { EDGE_ENTRY } from './testing/walk-rows.js';

// Encode and decode through the real protobuf types, with the loader's options.
const { Walk, Stat } = loadContract().proto.fleetls.v1.Agent.service;
const viaRequest = (w: Parameters<typeof Walk.requestSerialize>[0]) =>
  Walk.requestDeserialize(Walk.requestSerialize(w));
const viaResponse = (w: Parameters<typeof Walk.responseSerialize>[0]) =>
  Walk.responseDeserialize(Walk.responseSerialize(w));
const viaStat = (w: Parameters<typeof Stat.responseSerialize>[0]) =>
  Stat.responseDeserialize(Stat.responseSerialize(w));

describe('codec', () => {
  it('round-trips rows through protobuf unchanged', () => {
    const rows: Row[] = [
      { kind: 'entry', entry: EDGE_ENTRY },
      {
        kind: 'entry',
        entry: {
          ...EDGE_ENTRY,
          type: 'dir',
          linkTarget: undefined,
          error: { code: 'DENIED', detail: 'permission denied' },
          sizePartial: true,
        },
      },
      {
        kind: 'truncation',
        truncation: { dir: Buffer.from([0xc3, 0x28]), shown: 100, total: 250, reason: 'items_per_dir' },
      },
    ];
    const summary: WalkSummary = {
      entriesSent: 2,
      entriesSeen: 1000,
      entriesMatched: 900,
      truncations: [{ dir: Buffer.alloc(0), shown: 2, total: 1000, reason: 'max_entries' }],
      elapsedMs: 12,
      depthLimitedDirs: 4,
    };
    const decoded = viaResponse({
      rows: rows.map(rowToWire),
      summary: summaryToWire(summary),
    });
    const back = decoded.rows.map(rowFromWire);
    const expected = rows.map((r) =>
      r.kind === 'entry' && r.entry.linkTarget === undefined
        ? { kind: 'entry', entry: Object.fromEntries(Object.entries(r.entry).filter(([, v]) => v !== undefined)) }
        : r,
    );
    assert.deepEqual(back, expected);
    assert.ok(decoded.summary, 'the summary crossed the wire');
    assert.deepEqual(summaryFromWire(decoded.summary), summary);
  });

  it('maps every entry type both ways', () => {
    for (const t of ENTRY_TYPES) assert.equal(ENTRY_TYPE.fromWire(ENTRY_TYPE.toWire(t)), t);
    assert.equal(ENTRY_TYPE.fromWire(2), 'dir');
    assert.equal(ENTRY_TYPE.number('dir'), 2);
    assert.equal(ENTRY_TYPE.fromWire('ENTRY_TYPE_NONSENSE'), undefined);
  });

  it('round-trips a request into the same resolved request', () => {
    const req: WalkRequest = resolveWalkRequest({
      path: '/srv/data',
      maxDepth: 3,
      maxItemsPerDir: 10,
      capRoot: true,
      maxEntries: 500,
      order: 'modified',
      direction: 'descending',
      shape: 'ranked',
      topN: 20,
      offset: 5,
      include: ['*.log'],
      exclude: ['tmp/**'],
      types: ['file', 'symlink'],
      excludeHidden: true,
      followSymlinks: true,
      oneFileSystem: true,
      dirSizes: true,
      deadlineMs: 1500,
    });
    const w = viaRequest(requestToWire(req));
    assert.deepEqual(resolveWalkRequest(wireToRequestInput(w)), req);
  });

  it('round-trips a resume point (bytes, any row kind) and reads none as none', () => {
    for (const afterRow of ['entry', 'error', 'warning'] as const) {
      const req = resolveWalkRequest({ path: '/srv', after: Buffer.from([0x61, 0x2f, 0xff, 0x0a]), afterRow });
      const w = viaRequest(requestToWire(req));
      assert.deepEqual(resolveWalkRequest(wireToRequestInput(w)), req);
    }
    const root = resolveWalkRequest({ path: '/srv', after: Buffer.alloc(0), afterRow: 'warning' });
    const wr = viaRequest(requestToWire(root));
    assert.deepEqual(resolveWalkRequest(wireToRequestInput(wr)), root);
    const none = resolveWalkRequest({ path: '/srv' });
    const wn = viaRequest(requestToWire(none));
    assert.deepEqual(resolveWalkRequest(wireToRequestInput(wn)), none);
    assert.equal('after' in resolveWalkRequest(wireToRequestInput(wn)), false);
  });

  it('round-trips every find-like filter, names and ids, and reads none as none', () => {
    const filters: WalkRequest['filter'][] = [
      {
        minSize: 2 ** 40,
        maxSize: 2 ** 41,
        modifiedAfter: { sec: 1_700_000_000, nsec: 5 },
        modifiedBefore: { sec: 1_800_000_000, nsec: 999_999_999 },
        owner: { name: 'www-data' },
        group: { id: 0 },
        perm: { match: 'any', mode: 0o2 },
        name: '*.{log,gz}',
      },
      { minSize: 0 },
      { owner: { id: 0 }, perm: { match: 'exact', mode: 0 } },
      { modifiedBefore: { sec: -1, nsec: 0 } },
    ];
    for (const filter of filters) {
      const req = resolveWalkRequest({ path: '/srv', shape: 'ranked', filter });
      const w = viaRequest(requestToWire(req));
      assert.deepEqual(resolveWalkRequest(wireToRequestInput(w)), req);
    }
    const none = viaRequest(requestToWire(resolveWalkRequest({ path: '/srv' })));
    assert.equal(resolveWalkRequest(wireToRequestInput(none)).filter, undefined);
  });

  it('round-trips the applied features of a summary, and none as none', () => {
    const base: WalkSummary = {
      entriesSent: 1,
      entriesSeen: 2,
      entriesMatched: 1,
      truncations: [],
      elapsedMs: 3,
      depthLimitedDirs: 0,
    };
    const wire = (s: WalkSummary) => {
      const { summary } = viaResponse({ rows: [], summary: summaryToWire(s) });
      assert.ok(summary, 'the summary crossed the wire');
      return summaryFromWire(summary);
    };
    assert.deepEqual(wire({ ...base, applied: ['min_size', 'perm'] }), { ...base, applied: ['min_size', 'perm'] });
    assert.deepEqual(wire(base), base);
  });

  it('refuses a resume row kind it does not know', () => {
    const w = viaRequest({
      path: '/x',
      after: Buffer.from('a'),
    });
    assert.throws(
      () => resolveWalkRequest(wireToRequestInput({ ...w, afterRow: 7 as unknown as typeof w.afterRow })),
      /after_row must be one of entry, error, warning/,
    );
  });

  it('gives defaults for an empty wire request', () => {
    const w = viaRequest({ path: '/x' });
    const input = wireToRequestInput(w);
    assert.equal(input.order, 'name');
    assert.equal(input.direction, 'ascending');
    assert.equal(input.shape, 'tree');
    assert.equal(input.maxDepth, 0);
  });

  it('round-trips stat', () => {
    const info: StatInfo = {
      entry: { ...EDGE_ENTRY, path: Buffer.alloc(0) },
      owner: 'root',
      group: 'wheel',
      atimeSec: 1,
      atimeNsec: 2,
      ctimeSec: 3,
      ctimeNsec: 4,
    };
    const back = statFromWire(viaStat(statToWire(info, '1.2.3')));
    assert.deepEqual(back, { ...info, agentVersion: '1.2.3' });
  });
});
