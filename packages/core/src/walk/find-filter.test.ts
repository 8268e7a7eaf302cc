// The find-like filters inside the walk engine: rows filtered, directories still walked,
// lazy entries filled before a metadata filter tests them, and the applied features echoed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RawEntry, TreeSource, WalkRequest, WalkSummary } from '../domain/types.js';
import { FleetError } from '../errors/errors.js';
import { resolveWalkRequest } from '../limits/limits.js';
import { recordAt, runWalk } from '../testing/index.js';
import type { SourceRecord } from './memory-source.js';
import { lazyRawEntry } from './walk.js';

/** A file of mode 0644 modified at 1000 s, then `over`: what the filters below test. */
const rec = (path: string, over: Partial<SourceRecord> = {}): SourceRecord =>
  recordAt(path, { mtimeSec: 1000, mode: 0o100644, ...over });

const RECORDS: SourceRecord[] = [
  rec('big.log', { size: 5 << 20, mtimeSec: 5000, uid: 1000 }),
  rec('small.log', { size: 10, mtimeSec: 5000 }),
  rec('old.log', { size: 5 << 20, mtimeSec: 100 }),
  rec('d', { type: 'dir', mode: 0o40755 }),
  rec('d/world.txt', { size: 3, mode: 0o100666, gid: 4 }),
  rec('d/deep.log', { size: 2 << 20, mtimeSec: 6000, uid: 1000 }),
];

/** A source that gives names and types only until asked to fill, as the agent's does. */
function lazySource(records: SourceRecord[]): TreeSource & { fills: number } {
  const byDir = new Map<string, SourceRecord[]>();
  for (const r of records) {
    const s = r.path.toString();
    const dir = s.includes('/') ? s.slice(0, s.lastIndexOf('/')) : '';
    byDir.set(dir, [...(byDir.get(dir) ?? []), r]);
  }
  const src = {
    fills: 0,
    root: (): RawEntry => ({ ...rec('', { type: 'dir', mode: 0o40755 }), name: Buffer.alloc(0) }),
    list: (dir: Buffer) =>
      (byDir.get(dir.toString()) ?? []).map((r) => {
        const name = Buffer.from(r.path.toString().split('/').pop() as string);
        return r.type === 'dir' ? { ...r, name } : lazyRawEntry(name, r.type);
      }),
    fill: (dir: Buffer, raw: RawEntry): RawEntry => {
      src.fills++;
      const path = dir.length ? `${dir}/${raw.name}` : raw.name.toString();
      const r = records.find((x) => x.path.toString() === path) as SourceRecord;
      return { ...r, name: raw.name };
    },
    dirSize: () => ({ size: 0, partial: false }),
  };
  return src;
}

function run(req: WalkRequest, source: TreeSource): { paths: string[]; summary: WalkSummary } {
  const { rows, summary } = runWalk(req, source);
  return { paths: rows.flatMap((x) => (x.kind === 'entry' ? [x.entry.path.toString()] : [])), summary };
}

const ranked = (filter: WalkRequest['filter'], over: Partial<WalkRequest> = {}) =>
  resolveWalkRequest({ path: '/r', shape: 'ranked', maxDepth: 5, types: ['file'], filter, ...over });

describe('walk with find-like filters', () => {
  const cases: [string, WalkRequest['filter'], string[]][] = [
    ['min_size (inclusive)', { minSize: 2 << 20 }, ['big.log', 'd/deep.log', 'old.log']],
    ['max_size (inclusive)', { maxSize: 10 }, ['d/world.txt', 'small.log']], // path order
    ['modified_after (strict)', { modifiedAfter: { sec: 5000, nsec: 0 } }, ['d/deep.log']],
    ['modified_before (strict)', { modifiedBefore: { sec: 1000, nsec: 0 } }, ['old.log']],
    ['owner', { owner: { id: 1000 } }, ['big.log', 'd/deep.log']],
    ['group', { group: { id: 4 } }, ['d/world.txt']],
    ['perm /o+w', { perm: { match: 'any', mode: 0o2 } }, ['d/world.txt']],
    ['name', { name: '*.log' }, ['big.log', 'd/deep.log', 'old.log', 'small.log']],
    [
      'all together',
      { minSize: 1 << 20, modifiedAfter: { sec: 4000, nsec: 0 }, owner: { id: 1000 }, name: 'b*' },
      ['big.log'],
    ],
  ];
  for (const [title, filter, want] of cases) {
    it(`${title}: rows filtered, directories walked, features echoed`, () => {
      const src = lazySource(RECORDS);
      const { paths, summary } = run(ranked(filter), src);
      assert.deepEqual(paths, want);
      assert.equal(summary.entriesMatched, want.length);
      assert.ok(summary.applied && summary.applied.length > 0);
    });
  }

  it('fills lazy entries before a metadata filter tests them, and only then', () => {
    const bySize = lazySource(RECORDS);
    assert.deepEqual(run(ranked({ minSize: 1 }), bySize).paths.length, 5);
    assert.ok(bySize.fills >= 5);
    const byName = lazySource(RECORDS);
    run(ranked({ name: 'small.*' }), byName);
    assert.equal(byName.fills, 1, 'a name filter needs no lstat but for the row it keeps');
  });

  it('filters the tree shape too, after the per-directory cap', () => {
    const { paths, summary } = run(
      resolveWalkRequest({ path: '/r', maxDepth: 3, filter: { minSize: 1 << 20 } }),
      lazySource(RECORDS),
    );
    assert.deepEqual(paths, ['big.log', 'd/deep.log', 'old.log']);
    assert.deepEqual(summary.applied, ['min_size']);
  });

  it('echoes no features without a filter, and refuses owner names that reached the engine', () => {
    assert.equal(run(ranked(undefined), lazySource(RECORDS)).summary.applied, undefined);
    assert.throws(
      () => run(ranked({ owner: { name: 'www-data' } }), lazySource(RECORDS)),
      (e: unknown) => e instanceof FleetError && /owner: the name "www-data" was not resolved/.test(e.message),
    );
  });

  it('checks a filter arriving from the wire', () => {
    assert.throws(() => ranked({ minSize: 10, maxSize: 1 }), /min_size .* must not be larger than max_size/);
    assert.throws(() => ranked({ perm: { match: 'any', mode: 0o77777 } }), /^FleetError: perm|perm:/);
    assert.equal(ranked({}).filter, undefined, 'an empty filter is no filter');
  });
});
