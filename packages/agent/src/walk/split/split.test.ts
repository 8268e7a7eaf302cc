// Parity of the split tree walk (walk-split.ts: two threads, pieces spliced in order) with
// the JS walker on one thread: the same rows, byte for byte, and the same summary, over a
// tree with names that are not UTF-8, names that tie when case is folded, links (to files,
// to directories, dangling, a loop, one leaving the allowed root), hard links, a fifo,
// unreadable and unsearchable directories and size and mtime ties; for every order, caps
// that bite, max_entries cutting anywhere (the pieces a limit reached are walked again by
// the walk itself), filters, depth limits and followed links.
// Unreadable directories are only unreadable without CAP_DAC_OVERRIDE, so as root the
// comparisons run in a child process as nobody (setpriv), as find-rank.test.ts does.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Row, resolveWalkRequest, type WalkRequest } from '@fleetls/core';
import { decodeWalkResponse } from '@fleetls/proto';
import { WalkPool } from '../pool.js';
import { startWireWalk } from '../walker.js';

const CHILD_ENV = 'FLEETLS_SPLIT_PARITY_ROOT';

function makeTree(root: string): void {
  const w = (p: string, size = 0, mtime = 1_600_000_000) => {
    fs.writeFileSync(p, Buffer.alloc(size));
    fs.utimesSync(p, mtime, mtime);
  };
  // Wide and deep enough that the helper gets pieces at several levels.
  for (let a = 0; a < 12; a++) {
    const da = path.join(root, `dir${a % 3 === 0 ? 'A' : 'a'}${a}`);
    fs.mkdirSync(da);
    for (let b = 0; b < 10; b++) {
      const db = path.join(da, `sub${b}`);
      fs.mkdirSync(db);
      for (let c = 0; c < 25; c++) w(path.join(db, `f${c % 5}-${c}.log`), (c * 37) % 11, 1_600_000_000 + (c % 4));
      if (b % 4 === 0) {
        fs.mkdirSync(path.join(db, 'deeper'));
        for (let c = 0; c < 6; c++) w(path.join(db, 'deeper', `x${c}`), c);
      }
    }
  }
  const flat = path.join(root, 'flat');
  fs.mkdirSync(flat);
  for (let i = 0; i < 3000; i++) w(path.join(flat, `n${i}`), i % 7, 1_600_000_000 + (i % 3));
  // Ties under case folding, broken by raw bytes; names that are not UTF-8.
  const odd = path.join(root, 'odd');
  fs.mkdirSync(odd);
  for (const n of ['Ab', 'aB', 'ab', 'AB', '.hidden', 'a b']) w(path.join(odd, n), 3);
  const rootBuf = Buffer.from(odd);
  for (const bytes of [[0xff, 0xfe, 0x61], [0x61, 0xc3], [0x80]]) {
    fs.writeFileSync(Buffer.concat([rootBuf, Buffer.from('/'), Buffer.from(bytes)]), 'x');
  }
  fs.mkdirSync(Buffer.concat([rootBuf, Buffer.from('/'), Buffer.from([0xe9, 0x64])]));
  fs.writeFileSync(Buffer.concat([rootBuf, Buffer.from('/'), Buffer.from([0xe9, 0x64, 0x2f, 0x66])]), 'in');
  // Links: to a file, a directory, nothing, an ancestor (a loop when followed), outside.
  const links = path.join(root, 'links');
  fs.mkdirSync(links);
  fs.symlinkSync('../odd/ab', path.join(links, 'to-file'));
  fs.symlinkSync('../dira1', path.join(links, 'to-dir'));
  fs.symlinkSync('../nowhere', path.join(links, 'dangling'));
  fs.symlinkSync('..', path.join(links, 'loop'));
  fs.symlinkSync('/', path.join(links, 'outside'));
  // Hard links in three directories; a fifo.
  w(path.join(root, 'dira1', 'sub1', 'hard'), 1234);
  fs.linkSync(path.join(root, 'dira1', 'sub1', 'hard'), path.join(root, 'dira2', 'sub2', 'hard2'));
  fs.linkSync(path.join(root, 'dira1', 'sub1', 'hard'), path.join(root, 'hard3'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  // Unreadable (no read), unsearchable (read, no search), write-and-search only.
  for (const [n, mode] of [
    ['locked', 0o000],
    ['shut', 0o644],
    ['blind', 0o311],
  ] as const) {
    const d = path.join(root, 'dira4', n);
    fs.mkdirSync(d);
    w(path.join(d, 'inside'), 1);
    fs.chmodSync(d, mode);
  }
}

/** The requests compared: every order, caps, limits, filters, links. */
function requests(root: string): [string, WalkRequest][] {
  const base = { path: root, maxDepth: 64, maxItemsPerDir: 100_000, maxEntries: 1_000_000 };
  const out: [string, WalkRequest][] = [
    ['name, ascending', resolveWalkRequest(base)],
    ['name, descending', resolveWalkRequest({ ...base, direction: 'descending' })],
    ['size, descending', resolveWalkRequest({ ...base, order: 'size', direction: 'descending' })],
    ['modified, ascending', resolveWalkRequest({ ...base, order: 'modified' })],
    ['items per directory 7', resolveWalkRequest({ ...base, maxItemsPerDir: 7 })],
    ['items per directory 3, root capped', resolveWalkRequest({ ...base, maxItemsPerDir: 3, capRoot: true })],
    ['depth 2', resolveWalkRequest({ ...base, maxDepth: 2 })],
    ['following links', resolveWalkRequest({ ...base, followSymlinks: true })],
    ['one file system', resolveWalkRequest({ ...base, oneFileSystem: true })],
    ['files only, no hidden', resolveWalkRequest({ ...base, types: ['file'], excludeHidden: true })],
    ['include and exclude globs', resolveWalkRequest({ ...base, include: ['**/*.log'], exclude: ['**/sub3'] })],
    ['size filter', resolveWalkRequest({ ...base, filter: { minSize: 5 } })],
  ];
  for (const n of [1, 40, 333, 1000, 2500, 4000, 4443, 6000])
    out.push([`max_entries ${n}`, resolveWalkRequest({ ...base, maxEntries: n })]);
  out.push([
    'max_entries 900, items per directory 4',
    resolveWalkRequest({ ...base, maxEntries: 900, maxItemsPerDir: 4 }),
  ]);
  return out;
}

interface Walked {
  rows: Row[];
  summary: unknown;
  spliced: number;
}

async function walkWire(req: WalkRequest, root: string, pool: WalkPool, split: boolean): Promise<Walked> {
  const w = startWireWalk(req, { allowedRoots: [root], pool, split, find: false, batchBytes: 4096 });
  const rows: Row[] = [];
  for (;;) {
    const r = await w.batches.next();
    if (r.done) {
      const out = await w.finished;
      return { rows, summary: { ...r.value, elapsedMs: 0 }, spliced: out.split?.spliced ?? 0 };
    }
    rows.push(...decodeWalkResponse(r.value.bytes).rows);
  }
}

/** What the comparisons found: per request, the first row that differs (or -1) and the counts. */
interface Report {
  name: string;
  rows: number;
  firstDiff: number;
  summaryEqual: boolean;
  spliced: number;
  errors: number;
}

const plain = (v: unknown) =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && x.type === 'Buffer' ? Buffer.from(x.data).toString('hex') : x,
  );

async function compareAll(root: string): Promise<Report[]> {
  const pool = new WalkPool();
  const reports: Report[] = [];
  // Warm: the pool then holds two idle workers, so the helper starts at once.
  await walkWire(resolveWalkRequest({ path: root, maxDepth: 2 }), root, pool, true);
  for (const [name, req] of requests(root)) {
    const one = await walkWire(req, root, pool, false);
    const two = await walkWire(req, root, pool, true);
    const n = Math.max(one.rows.length, two.rows.length);
    let firstDiff = -1;
    for (let i = 0; i < n && firstDiff < 0; i++) if (plain(one.rows[i]) !== plain(two.rows[i])) firstDiff = i;
    const errors = one.rows.filter((r) => r.kind === 'entry' && r.entry.error).length;
    reports.push({
      name,
      rows: one.rows.length,
      firstDiff,
      summaryEqual: plain(one.summary) === plain(two.summary),
      spliced: two.spliced,
      errors,
    });
  }
  return reports;
}

const childRoot = process.env[CHILD_ENV];
if (childRoot !== undefined) {
  // The child: compare and print the report.
  const reports = await compareAll(childRoot);
  process.stdout.write(JSON.stringify(reports));
  process.exit(0);
}

describe('the split tree walk gives the JS walker rows', () => {
  let root: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-split-')));
    fs.chmodSync(root, 0o755);
    makeTree(root);
  });
  after(() => {
    for (const n of ['locked', 'shut', 'blind']) fs.chmodSync(path.join(root, 'dira4', n), 0o755);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('for every order, cap, limit and filter, with links, odd names and unreadable directories', async () => {
    let reports: Report[];
    if (process.getuid?.() === 0) {
      const r = spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, fileURLToPath(import.meta.url)],
        { env: { ...process.env, [CHILD_ENV]: root }, encoding: 'utf8', timeout: 240_000 },
      );
      assert.equal(r.status, 0, r.stderr);
      reports = JSON.parse(r.stdout) as Report[];
    } else reports = await compareAll(root);
    for (const rep of reports) {
      assert.equal(rep.firstDiff, -1, `${rep.name}: rows differ from row ${rep.firstDiff}`);
      assert.ok(rep.summaryEqual, `${rep.name}: summaries differ`);
    }
    const full = reports[0];
    // The tree is what it is meant to be: the denied, unreadable and dangling rows are there.
    assert.ok(full.rows > 6000, `${full.rows} rows`);
    assert.ok(full.errors >= 2, `${full.errors} error rows`);
    // The comparison compared a split walk: pieces were spliced.
    const spliced = reports.reduce((n, r) => n + r.spliced, 0);
    assert.ok(spliced > 0, 'no piece was spliced');
  });
});
