// The filters as find predicates, run through a real `sh` and GNU find: each keeps exactly
// the files the engine's own test keeps (directories always), edges included, and no
// value reaches the shell unquoted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveWalkRequest } from '../limits/limits.js';
import { buildWalkCommand } from './command.js';
import { compileFindFilter, type FindFilter } from './filter.js';
import { filterPredicates, newermtArgument } from './filter-predicates.js';
import { FindRecordParser } from './records.js';

describe('find predicates for the filters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-findpred-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'sub'));
  const files: [string, number, number, number][] = [
    ['a', 0, 1_700_000_000.5, 0o644],
    ['b', 1023, 1_700_000_001, 0o600],
    ['c', 1024, 1_700_000_002.25, 0o666],
    ['sub/d', 1025, 1_700_000_003, 0o4755],
    ["sub/it's $(x).log", 5000, 1_700_000_004, 0o640],
  ];
  for (const [name, size, mtime, mode] of files) {
    const p = join(dir, name);
    writeFileSync(p, Buffer.alloc(size));
    chmodSync(p, mode);
    utimesSync(p, mtime, mtime);
  }

  function remote(filter: FindFilter): string[] {
    const req = resolveWalkRequest({ path: dir, shape: 'ranked', maxDepth: 3, filter });
    const r = spawnSync('sh', ['-c', buildWalkCommand(req, { maxRecords: 1000 })], { maxBuffer: 1 << 24 });
    const items = new FindRecordParser(false).push(r.stdout);
    return items
      .filter((i) => i.depth > 0 && i.record.type !== 'dir')
      .map((i) => i.record.path.toString())
      .sort();
  }

  function engine(filter: FindFilter): string[] {
    const test = compileFindFilter(filter);
    return files
      .filter(([name, size, mtime, mode]) =>
        test({
          path: Buffer.from(name),
          type: 'file',
          size,
          mtimeSec: Math.floor(mtime),
          mtimeNsec: Math.round((mtime % 1) * 1e9),
          utcOffsetMin: 0,
          mode: 0o100000 | mode,
          uid: process.getuid?.() ?? 0,
          gid: process.getgid?.() ?? 0,
          inode: 0,
          nlink: 1,
          depth: 1,
        }),
      )
      .map(([name]) => name)
      .sort();
  }

  const cases: [string, FindFilter][] = [
    ['min_size at the edge', { minSize: 1024 }],
    ['min_size 0', { minSize: 0 }],
    ['max_size at the edge', { maxSize: 1024 }],
    ['max_size 0', { maxSize: 0 }],
    ['a size range', { minSize: 1, maxSize: 1025 }],
    ['modified_after on a sub-second mtime', { modifiedAfter: { sec: 1_700_000_000, nsec: 500_000_000 } }],
    ['modified_after just before it', { modifiedAfter: { sec: 1_700_000_000, nsec: 499_999_999 } }],
    ['modified_before on a whole second', { modifiedBefore: { sec: 1_700_000_001, nsec: 0 } }],
    ['modified_before just after it', { modifiedBefore: { sec: 1_700_000_001, nsec: 1 } }],
    ['perm exact', { perm: { match: 'exact', mode: 0o644 } }],
    ['perm all', { perm: { match: 'all', mode: 0o640 } }],
    ['perm any o+w', { perm: { match: 'any', mode: 0o2 } }],
    ['perm any setuid', { perm: { match: 'any', mode: 0o4000 } }],
    ['owner', { owner: { id: process.getuid?.() ?? 0 } }],
    ['owner nobody', { owner: { id: 65534 } }],
    ['group', { group: { id: process.getgid?.() ?? 0 } }],
    ['name', { name: '*.log' }],
    ['name with a quote', { name: "it's*" }],
    ['name with braces (left to the engine)', { name: '{a,b}' }],
  ];
  for (const [title, filter] of cases) {
    it(`${title}: the files find keeps are the engine's`, () => {
      const kept = remote(filter);
      if (filter.name?.includes('{')) assert.ok(kept.length >= engine(filter).length);
      else assert.deepEqual(kept, engine(filter));
    });
  }

  it('keeps every directory (the walk descends through them) and filters only in the ranked shape', () => {
    const ranked = resolveWalkRequest({ path: dir, shape: 'ranked', filter: { minSize: 1 << 30 } });
    const r = spawnSync('sh', ['-c', buildWalkCommand(ranked, { maxRecords: 1000 })]);
    const kept = new FindRecordParser(false).push(r.stdout).map((i) => i.record.path.toString());
    assert.deepEqual(kept.sort(), ['', 'sub']);
    assert.equal(filterPredicates(resolveWalkRequest({ path: dir, filter: { minSize: 1 } })), undefined);
  });

  it('writes instants as find -newermt reads them', () => {
    assert.equal(newermtArgument({ sec: 1_700_000_000, nsec: 5 }), '@1700000000.000000005');
    assert.equal(newermtArgument({ sec: -2, nsec: 500_000_000 }), '@-1.500000000');
    assert.equal(newermtArgument({ sec: -2, nsec: 0 }), '@-2.000000000');
  });
});
