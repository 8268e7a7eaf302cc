import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostEntry } from '../tools/shared/host-walks.js';
import { MemoryPageStore, type RankingSnapshot } from './page-store.js';

const snap = (fingerprint: string, rows: number): RankingSnapshot => ({
  fingerprint,
  rows: new Array<HostEntry>(rows),
  found: rows,
  truncations: [],
  notes: [],
  hosts: [],
});

test('PageStore: a snapshot is found by its handle and its query only, until it expires', () => {
  let now = 0;
  const store = new MemoryPageStore(() => now);
  const id = store.putNow(snap('aaaaaaaaaaaaaaaa', 10));
  assert.match(id, /^[0-9a-f]{16}$/);
  assert.equal(store.getNow(id, 'aaaaaaaaaaaaaaaa')?.found, 10);
  assert.equal(store.getNow(id, 'bbbbbbbbbbbbbbbb'), undefined, 'another query');
  assert.equal(store.getNow('0000000000000000', 'aaaaaaaaaaaaaaaa'), undefined, 'a handle never given');
  now += 10 * 60_000;
  assert.equal(store.getNow(id, 'aaaaaaaaaaaaaaaa'), undefined, 'expired');
  assert.equal(store.size, 0);
});

test('PageStore: memory is bounded in snapshots and in rows, the oldest going first', () => {
  const store = new MemoryPageStore(() => 0);
  const ids = Array.from({ length: 9 }, (_, i) => store.putNow(snap(`${i}`.padStart(16, 'f'), 1000)));
  assert.equal(store.size, 8);
  assert.equal(store.getNow(ids[0], '0'.padStart(16, 'f')), undefined, 'the oldest went');
  assert.ok(store.getNow(ids[8], '8'.padStart(16, 'f')));
  const big = store.putNow(snap('cccccccccccccccc', 100_000));
  store.putNow(snap('dddddddddddddddd', 100_000));
  store.putNow(snap('eeeeeeeeeeeeeeee', 100_000));
  assert.ok(store.rows <= 300_000, `${store.rows} rows`);
  assert.ok(store.getNow(big, 'cccccccccccccccc'));
  store.putNow(snap('1111111111111111', 100_000));
  assert.equal(store.getNow(big, 'cccccccccccccccc'), undefined, 'rows over the bound: the oldest big one went');
});
