import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Row, WalkRequest, WalkSummary } from '../domain/types.js';
import { WALK_DEFAULTS } from '../limits/limits.js';
import { runWalk } from '../testing/index.js';
import { MemorySource, type SourceRecord } from '../walk/memory-source.js';
import {
  buildRestatCommand,
  buildWalkCommand,
  FIELDS,
  findArgs,
  PROBE_COMMAND,
  parseProbe,
  type RestatForm,
  splitOf,
} from './command.js';
import { addDropped, rankArgs, remoteRankable } from './rank.js';
import { collectListing, FindRecordParser, parseRestat, restatPath } from './records.js';
import { exitFromStderr, shellQuote } from './remote-shell.js';

// A tree where the primary keys tie a lot (sizes 0..4, mtimes on a few seconds), with
// hidden files and directories, symlinks, a fifo, names differing only in case and a
// name that is not UTF-8: the pre-ranked listing must give exactly the full one's answer.
const dir = mkdtempSync(join(tmpdir(), 'remote-rank-'));
const root = join(dir, 'root');
function file(rel: string, size: number, sec: number, ns = 0): void {
  writeFileSync(join(root, rel), 'x'.repeat(size));
  utimesSync(join(root, rel), sec, sec + ns / 1e9);
}
mkdirSync(join(root, 'a', 'b'), { recursive: true });
mkdirSync(join(root, '.hid'));
for (let i = 0; i < 300; i++)
  file(
    `${['a', 'a/b', '.'][i % 3]}/f${i}${i % 7 === 0 ? '.TXT' : '.txt'}`,
    i % 5,
    1_700_000_000 + (i % 4),
    (i % 3) * 1000,
  );
for (let i = 0; i < 20; i++) file(`.hid/h${i}`, 10 + i, 1_600_000_000 + i);
file('.dot', 100, 1_800_000_000);
file('A.txt', 4, 1_700_000_003);
file('a.txt', 4, 1_700_000_003);
writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xff, 0xfe, 0x2e])]), 'xxxx');
symlinkSync('a', join(root, 'dirlink'));
symlinkSync('nowhere', join(root, 'broken'));
spawnSync('mkfifo', [join(root, 'pipe')]);
// Unreadable directories (D records): the listings run as nobody when this runs as root.
mkdirSync(join(root, 'a', 'locked', 'in'), { recursive: true });
file('a/locked/in/x', 3, 1_700_000_001);
mkdirSync(join(root, 'a', 'b', 'shut'));
chmodSync(dir, 0o755);
spawnSync('chmod', ['-R', 'a+rX', root]);
chmodSync(join(root, 'a', 'locked'), 0o000);
chmodSync(join(root, 'a', 'b', 'shut'), 0o300);
const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
after(() => {
  chmodSync(join(root, 'a', 'locked'), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

type Mode =
  | 'full'
  | 'ranked'
  | 'stubs'
  | 'remote-stubs'
  | 'remote-halves'
  | 'own-restat'
  | 'own-restat-xargs'
  | 'own-restat-halves';
/** The modes whose kept candidates are stat'ed again in the listing's own exec, and how. */
const OWN_RESTAT: Partial<Record<Mode, RestatForm>> = {
  'own-restat': 'files0',
  'own-restat-xargs': 'xargs',
  'own-restat-halves': 'files0',
};

/**
 * The listing of one mode: the remote command (pre-ranked, or with stubs completed by the
 * remote restat), or (stubs) find and awk as the agent runs them.
 */
function list(req: WalkRequest, mode: Mode) {
  const cmd =
    mode === 'stubs'
      ? `LC_ALL=C find ${findArgs(req, { rank: true, stubs: true }).map(shellQuote).join(' ')} | ` +
        `LC_ALL=C awk ${rankArgs(req, FIELDS, { stubs: true }).map(shellQuote).join(' ')}`
      : buildWalkCommand(req, {
          maxRecords: 100_000,
          rank: mode !== 'full',
          stubs: mode === 'remote-stubs' || OWN_RESTAT[mode] !== undefined,
          restat: OWN_RESTAT[mode],
        });
  const run = (c: string) => {
    const [prog, ...args] = [...asNobody, 'sh', '-c', c];
    return spawnSync(prog, args, { maxBuffer: 1 << 26 });
  };
  const restat = OWN_RESTAT[mode];
  if (mode === 'remote-halves' || mode === 'own-restat-halves') {
    // Both halves as the SSH backend runs them (two channels), their records one after the other.
    const halves = ([0, 1] as const).map((half) => {
      const r = run(buildWalkCommand(req, { maxRecords: 100_000, rank: true, stubs: true, restat, half }));
      const { split, stderr } = splitOf(r.stderr.toString());
      assert.equal(exitFromStderr(stderr), 0, stderr);
      assert.equal(r.status, 0, stderr);
      return { r, split };
    });
    const st = lstatSync(req.path);
    const split = st.isDirectory() && st.nlink > 2;
    assert.deepEqual(
      halves.map((h) => h.split),
      [split, split],
    );
    const parser = new FindRecordParser(false, req.path);
    const items = [...parser.push(halves[0].r.stdout)];
    const trailer = parser.dropped;
    const second = new FindRecordParser(false, req.path);
    items.push(...second.push(halves[1].r.stdout));
    assert.equal(second.dropped !== undefined, split, 'half 1 sends a trailer when it listed');
    if (trailer && second.dropped) {
      trailer.seen += second.dropped.seen;
      trailer.matched += second.dropped.matched;
      trailer.depthLimited += second.dropped.depthLimited;
    }
    return { r: { stdout: Buffer.concat(halves.map((h) => h.r.stdout)) }, parser, items };
  }
  const r = run(cmd);
  if (mode !== 'stubs') assert.equal(exitFromStderr(r.stderr.toString()), 0, r.stderr.toString());
  else assert.equal(r.status, 0, r.stderr.toString());
  if (restat) assert.equal(r.status, 0, r.stderr.toString());
  return { r, parser: new FindRecordParser(false, restat ? req.path : undefined), items: undefined };
}

/** The stubs completed as the SSH backend does: the restat command, paths on its stdin. */
function restat(req: WalkRequest, stubs: SourceRecord[], root: boolean): Map<string, SourceRecord> {
  if (stubs.length === 0) return new Map();
  const input = Buffer.concat(stubs.flatMap((s) => [restatPath(req.path, s.path), Buffer.alloc(1)]));
  const [prog, ...args] = [...asNobody, 'sh', '-c', buildRestatCommand(req, { root, timeoutSec: 10 })];
  const r = spawnSync(prog, args, { input, maxBuffer: 1 << 26 });
  assert.equal(exitFromStderr(r.stderr.toString()), 0, r.stderr.toString());
  return parseRestat(r.stdout, req.path);
}

/** A stub completed as the agent does: lstat of the kept candidate. */
function complete(rec: SourceRecord, top: string): SourceRecord {
  const st = lstatSync(rec.path.length === 0 ? top : Buffer.concat([Buffer.from(`${top}/`), rec.path]), {
    bigint: true,
  });
  const sec = Number(st.mtimeNs / 1_000_000_000n);
  return {
    ...rec,
    size: Number(st.size),
    mtimeSec: sec,
    mtimeNsec: Number(st.mtimeNs % 1_000_000_000n),
    utcOffsetMin: -new Date(sec * 1000).getTimezoneOffset() || 0,
    mode: Number(st.mode),
    uid: Number(st.uid),
    gid: Number(st.gid),
    inode: Number(st.ino),
    nlink: Number(st.nlink),
    dev: Number(st.dev),
  };
}

function answer(req: WalkRequest, mode: Mode): { rows: Row[]; summary: WalkSummary; bytes: number; stubs: number } {
  const { r, parser, items } = list(req, mode);
  const l = collectListing(items ?? parser.push(r.stdout), 100_000);
  assert.ok(l.root);
  assert.equal(mode === 'full' || mode === 'ranked' ? l.stubs.length === 0 : true, true, 'stubs only when asked for');
  if (OWN_RESTAT[mode]) assert.equal(l.stubs.length, 0, "the listing's own restat completed every stub");
  let records = [...l.records, ...l.stubs.map((rec) => complete(rec, req.path))];
  let rootRec = l.rootStub ? complete(l.root, req.path) : l.root;
  if (mode === 'remote-stubs' || mode === 'remote-halves' || OWN_RESTAT[mode]) {
    const got = restat(req, l.rootStub ? [l.root] : l.stubs, l.rootStub);
    assert.equal(got.size, l.rootStub ? 1 : l.stubs.length, "every kept candidate stat'ed again");
    records = [...l.records, ...l.stubs.map((rec) => got.get(rec.path.toString('latin1')) as SourceRecord)];
    if (l.rootStub) rootRec = got.get('') as SourceRecord;
  }
  const source = new MemorySource({ ...rootRec, name: Buffer.alloc(0) }, records, { dirErrors: l.dirErrors });
  const { rows, summary } = runWalk(req, source);
  if (mode !== 'full') {
    assert.ok(parser.dropped, 'the ranked listing ends with its counts');
    addDropped(summary, parser.dropped, req);
  } else assert.equal(parser.dropped, undefined);
  return { rows, summary, bytes: r.stdout.length, stubs: l.stubs.length };
}

describe('remote ranking', () => {
  const cases: Partial<WalkRequest>[] = [];
  for (const order of ['size', 'modified'] as const)
    for (const direction of ['ascending', 'descending'] as const)
      for (const [topN, offset] of [
        [10, 0],
        [1, 0],
        [25, 40],
        [5000, 0],
      ])
        cases.push({ order, direction, topN, offset });
  cases.push(
    { order: 'size', direction: 'descending', topN: 10, types: ['file'] },
    { order: 'size', direction: 'descending', topN: 10, types: ['symlink', 'fifo'] },
    { order: 'size', direction: 'descending', topN: 10, types: ['dir'] },
    { order: 'modified', direction: 'descending', topN: 10, excludeHidden: true },
    { order: 'size', direction: 'descending', topN: 10, excludeHidden: true, types: ['file'] },
    { order: 'size', direction: 'ascending', topN: 3, maxDepth: 1 },
    { order: 'size', direction: 'descending', topN: 3, maxDepth: 1, types: ['file'] },
    { order: 'modified', direction: 'ascending', topN: 5, maxDepth: 2, types: ['file', 'symlink'] },
    { order: 'size', direction: 'descending', topN: 5, maxDepth: 2, types: ['file'], excludeHidden: true },
    { order: 'size', direction: 'descending', topN: 10, dirSizes: false, oneFileSystem: true },
  );
  for (const c of cases) {
    const req: WalkRequest = { ...WALK_DEFAULTS, path: root, deadlineMs: 10_000, shape: 'ranked', ...c };
    it(`gives the full listing's rows and summary: ${JSON.stringify(c)}`, () => {
      assert.ok(remoteRankable(req));
      const full = answer(req, 'full');
      for (const mode of [
        'ranked',
        'stubs',
        'remote-stubs',
        'remote-halves',
        'own-restat',
        'own-restat-xargs',
        'own-restat-halves',
      ] as const) {
        const ranked = answer(req, mode);
        assert.deepEqual(ranked.rows, full.rows, mode);
        assert.deepEqual({ ...ranked.summary, elapsedMs: 0 }, { ...full.summary, elapsedMs: 0 }, mode);
      }
    });
  }

  // Filters find applies too: a file that fails them goes on past find's first test. The
  // rows are the full listing's; the summaries agree among the stub routes, which count a
  // row that fails the filters as seen (the full listing and the ranked one without stubs
  // never see it: a difference left as it was).
  for (const filter of [
    { minSize: 2, maxSize: 3 },
    { name: '*.TXT' },
    { modifiedAfter: { sec: 1_700_000_001, nsec: 0 }, maxSize: 3 },
  ]) {
    const req: WalkRequest = {
      ...WALK_DEFAULTS,
      path: root,
      deadlineMs: 10_000,
      shape: 'ranked',
      order: 'size',
      direction: 'descending',
      topN: 10,
      filter,
    };
    it(`gives the full listing's rows with filters find applies: ${JSON.stringify(filter)}`, () => {
      assert.ok(remoteRankable(req));
      const full = answer(req, 'full');
      assert.deepEqual(answer(req, 'ranked').rows, full.rows, 'ranked');
      const stubs = answer(req, 'stubs');
      assert.deepEqual(stubs.rows, full.rows, 'stubs');
      for (const mode of [
        'remote-stubs',
        'remote-halves',
        'own-restat',
        'own-restat-xargs',
        'own-restat-halves',
      ] as const) {
        const ranked = answer(req, mode);
        assert.deepEqual(ranked.rows, full.rows, mode);
        assert.deepEqual({ ...ranked.summary, elapsedMs: 0 }, { ...stubs.summary, elapsedMs: 0 }, mode);
      }
    });
  }

  it('lists a path that is a file as the full listing does', () => {
    const req: WalkRequest = {
      ...WALK_DEFAULTS,
      path: join(root, 'A.txt'),
      deadlineMs: 10_000,
      shape: 'ranked',
      order: 'size',
      topN: 1,
    };
    assert.deepEqual(answer(req, 'ranked').rows, answer(req, 'full').rows);
    assert.deepEqual(answer(req, 'stubs').rows, answer(req, 'full').rows);
    assert.deepEqual(answer(req, 'remote-stubs').rows, answer(req, 'full').rows);
    assert.deepEqual(answer(req, 'remote-halves').rows, answer(req, 'full').rows);
    assert.deepEqual(answer(req, 'own-restat').rows, answer(req, 'full').rows);
  });

  it('sends less than the full listing', () => {
    const req: WalkRequest = {
      ...WALK_DEFAULTS,
      path: root,
      deadlineMs: 10_000,
      shape: 'ranked',
      order: 'modified',
      topN: 10,
    };
    const full = answer(req, 'full').bytes;
    assert.ok(answer(req, 'ranked').bytes < full / 3);
    const stubs = answer(req, 'stubs');
    assert.ok(stubs.bytes < answer(req, 'ranked').bytes && stubs.stubs >= 10, JSON.stringify(stubs.stubs));
  });

  it('is probed: the awk of this host reads and writes NUL bytes', () => {
    const out = spawnSync('sh', ['-c', PROBE_COMMAND], { encoding: 'utf8' }).stdout;
    assert.equal(parseProbe(out).awk, true, out);
    assert.equal(parseProbe(out.replace(/^awk=.*$/m, 'awk=13')).awk, false);
  });

  it('is probed: how the listing restats its kept candidates, and the login shell', () => {
    const out = spawnSync('sh', ['-c', PROBE_COMMAND], { encoding: 'utf8' }).stdout;
    assert.equal(parseProbe(out).restat, 'files0', out);
    assert.equal(parseProbe(out.replace(/^files0=y$/m, '')).restat, 'xargs');
    assert.equal(parseProbe(out.replace(/^fd3=y$/m, 'fd3=')).restat, undefined);
    const shell = (s: string) => parseProbe(out.replace(/^shell=.*$/m, `shell=${s}`)).posixShell;
    assert.deepEqual(
      ['/bin/sh', '/bin/bash', '/usr/bin/dash', '/usr/bin/fish', '/bin/tcsh', '/bin/zsh', ''].map(shell),
      [true, true, true, false, false, false, false],
    );
  });

  it('is refused where awk cannot decide exactly', () => {
    const base: WalkRequest = { ...WALK_DEFAULTS, path: root, deadlineMs: 10_000, shape: 'ranked', order: 'size' };
    assert.equal(remoteRankable({ ...base, order: 'name' }), false);
    assert.equal(remoteRankable({ ...base, shape: 'tree' }), false);
    assert.equal(remoteRankable({ ...base, include: ['*.txt'] }), false);
    assert.equal(remoteRankable({ ...base, exclude: ['a'] }), false);
    assert.equal(remoteRankable({ ...base, followSymlinks: true }), false);
  });
});

// A root that holds pseudo file systems (real proc and sysfs mounts): the halves walk
// through directories they do not own, and must prune the mount points the owning half
// prunes; a half that entered /proc ranked its files among its candidates, and a top 20
// full of them lost the root's own file (confinement.test's SSH case, session 6).
describe('remote ranking over a root that holds pseudo file systems', () => {
  const root = process.getuid?.() === 0 ? mkdtempSync(join(tmpdir(), 'remote-rank-pseudo-')) : '';
  const mounts: string[] = [];
  after(() => {
    for (const m of mounts.reverse()) spawnSync('umount', ['-l', m]);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the halves give the full listing’s rows', { skip: root === '' && 'mounting needs root' }, () => {
    chmodSync(root, 0o755);
    for (const [type, name] of [
      ['proc', 'proc'],
      ['sysfs', 'sys'],
    ]) {
      mkdirSync(join(root, name));
      const m = spawnSync('mount', ['-t', type, type, join(root, name)], { encoding: 'utf8' });
      assert.equal(m.status, 0, m.stderr);
      mounts.push(join(root, name));
    }
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'plain'), 'p');
    writeFileSync(join(root, 'sub', 'x'), 'xx');
    const req: WalkRequest = {
      ...WALK_DEFAULTS,
      path: root,
      maxDepth: 3,
      deadlineMs: 10_000,
      shape: 'ranked',
      order: 'size',
      topN: 20,
    };
    const full = answer(req, 'full');
    const names = full.rows.map((r) => (r.kind === 'entry' ? r.entry.path.toString() : ''));
    assert.ok(names.includes('plain') && names.includes('sub/x'), names.join(' '));
    const halves = answer(req, 'remote-halves');
    // The mount points' own link counts and times follow the kernel's state (processes come and go).
    const steady = (rows: Row[]) =>
      rows.map((r) =>
        r.kind === 'entry' && mounts.some((m) => m.endsWith(`/${r.entry.path}`))
          ? { ...r, entry: { ...r.entry, nlink: 0, mtimeSec: 0, mtimeNsec: 0 } }
          : r,
      );
    assert.deepEqual(steady(halves.rows), steady(full.rows));
    assert.deepEqual({ ...halves.summary, elapsedMs: 0 }, { ...full.summary, elapsedMs: 0 });
  });
});
