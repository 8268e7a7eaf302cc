// The tree walk over packed records (packed-tree.ts) against core's engine over the same
// source: byte for byte the same WalkResponse rows, and the same summary, for every request it
// serves: both directions, caps (the root's and the rest, cut while read, past the eager
// stats), max_entries at a directory, a row and a cap, depth, hidden names, one file system.
// The tree holds what the engine's route is held to: names that are not UTF-8, names
// differing only in case, links (to a directory, a loop, dangling), hard links, a fifo, a time
// before 1970, an unreadable directory and a readable one that cannot be searched. Walked by
// an unprivileged user (a child process as nobody when the tests run as root), so the
// unreadable directories are unreadable.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WALK_DEFAULTS, type WalkRequest } from '@fleetls/core';
import { decodeWalkResponse } from '@fleetls/proto';
import { packedTreeServes } from './packed-tree.js';

const asRoot = process.getuid?.() === 0;
const user = asRoot ? { uid: 65534, gid: 65534 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

/** Both routes of each request in a child process as `user`: their bytes (base64) and summaries. */
function walkBoth(requests: WalkRequest[]): { engine: string; packed: string; es: unknown; ps: unknown }[] {
  const here = (f: string) => new URL(f, import.meta.url).href;
  const script = `
    import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
    import { walk } from '@fleetls/core';
    import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
    const { createFsSource } = await import(${JSON.stringify(here('../fs/source.js'))});
    const { walkPackedTree } = await import(${JSON.stringify(here('./packed-tree.js'))});
    const { RowBatches } = await import(${JSON.stringify(here('./row-batches.js'))});
    const reqs = JSON.parse(process.argv[1]);
    const source = (r) => createFsSource(r.path, { followSymlinks: false, allowedRoots: ['/'] });
    const out = reqs.map((r) => {
      const enc = new WalkResponseEncoder();
      const gen = walk(r, source(r), Date.now);
      let s = gen.next();
      while (!s.done) { enc.addRow(s.value); s = gen.next(); }
      const engine = enc.take().toString('base64');
      const es = { ...s.value, elapsedMs: 0 };
      const { port1, port2 } = new MessageChannel();
      const control = new SharedArrayBuffer(12);
      new Int32Array(control)[0] = 1 << 30;
      // Small batches: rows cut at every count and byte boundary.
      const batches = new RowBatches(port1, { req: r, allowedRoots: ['/'], control, mode: 'wire', batchRows: 7,
        batchBytes: 900, flushMs: 1 << 30, probe: new SharedArrayBuffer(4128), skip: [], pseudo: new Map(), find: false });
      const ps = walkPackedTree(r, source(r), batches, Date.now);
      if (ps === undefined) throw new Error('the packed walk did not serve ' + JSON.stringify(r));
      batches.flush();
      const bufs = [];
      for (let m = receiveMessageOnPort(port2); m; m = receiveMessageOnPort(port2)) bufs.push(Buffer.from(m.message.buf));
      port1.close();
      return { engine, packed: Buffer.concat(bufs).toString('base64'), es, ps: { ...ps, elapsedMs: 0 } };
    });
    process.stdout.write(JSON.stringify(out, (k, v) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v)));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(requests)], {
    uid: user.uid,
    gid: user.gid,
    cwd: new URL('../../', import.meta.url).pathname,
    maxBuffer: 1 << 28,
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

/** The rows of a base64 WalkResponse stream, as lines a failed assertion can show. */
function lines(b64: string): string[] {
  return decodeWalkResponse(Buffer.from(b64, 'base64')).rows.map((r) =>
    r.kind === 'entry'
      ? `${r.entry.path.toString('latin1')} ${r.entry.type} ${r.entry.size} ${r.entry.depth} ${r.entry.error?.code ?? ''}`
      : `[${r.truncation.reason} ${r.truncation.dir.toString('latin1')} ${r.truncation.shown}/${r.truncation.total}]`,
  );
}

describe('the tree walk over packed records', () => {
  let root: string;
  let tree: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-packed-tree-'));
    fs.chmodSync(root, 0o755);
    tree = path.join(root, 'tree');
    fs.mkdirSync(tree);
    for (const n of [
      'a/b/c/d/deep',
      'a/one',
      'a/One',
      'a/ONE2',
      'a/_x',
      'a/Zed',
      '.hidden/inner',
      'sp ace',
      'new\nline',
    ]) {
      fs.mkdirSync(path.dirname(path.join(tree, n)), { recursive: true });
      fs.writeFileSync(path.join(tree, n), n);
    }
    // Names that are not UTF-8.
    for (const name of [Buffer.from([0xff, 0xfe, 0x0a, 0x41]), Buffer.from('caf\xe9', 'latin1')])
      fs.writeFileSync(Buffer.concat([Buffer.from(`${tree}/`), name]), 'bytes');
    // Past the eager stats (4,096): a capped directory keeps names read unstat'ed.
    fs.mkdirSync(path.join(tree, 'big'));
    for (let i = 0; i < 5000; i++)
      fs.writeFileSync(path.join(tree, 'big', `f${(i * 7919) % 5000}`), 'x'.repeat(i % 13));
    for (let i = 0; i < 30; i++) fs.mkdirSync(path.join(tree, 'big', `D${i}`));
    fs.writeFileSync(path.join(tree, 'big', 'D3', 'inside'), 'in');
    fs.symlinkSync('a', path.join(tree, 'link-dir'));
    fs.symlinkSync('.', path.join(tree, 'loop'));
    fs.symlinkSync('nowhere', path.join(tree, 'broken'));
    fs.linkSync(path.join(tree, 'a', 'one'), path.join(tree, 'hard'));
    execFileSync('mkfifo', [path.join(tree, 'a', 'fifo')]);
    execFileSync('touch', ['-h', '-d', '@-86399.75', path.join(tree, 'a', 'one')]);
    // A summer time and a time a little before 1970 (not a whole 15 minutes): each with its own UTC offset.
    execFileSync('touch', ['-h', '-d', '@1600000000', path.join(tree, 'a', 'Zed')]);
    execFileSync('touch', ['-h', '-d', '@-1000', path.join(tree, 'a', '_x')]);
    fs.mkdirSync(path.join(tree, 'locked', 'inner'), { recursive: true });
    fs.writeFileSync(path.join(tree, 'locked', 'secret'), 's');
    fs.mkdirSync(path.join(tree, 'noexec'));
    fs.writeFileSync(path.join(tree, 'noexec', 'listed'), 'l');
    if (asRoot) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, tree]);
    for (const d of ['locked', 'noexec']) if (asRoot) fs.chownSync(path.join(tree, d), 0, 0);
    fs.chmodSync(path.join(tree, 'locked'), 0o000);
    fs.chmodSync(path.join(tree, 'noexec'), 0o444);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('gives the engine its rows byte for byte, and its summary', () => {
    const req = (over: Partial<WalkRequest>): WalkRequest => ({ ...WALK_DEFAULTS, path: tree, maxDepth: 6, ...over });
    const requests = [
      req({}),
      req({ direction: 'descending' }),
      req({ maxItemsPerDir: 5 }),
      req({ maxItemsPerDir: 5, capRoot: true, direction: 'descending' }),
      req({ maxItemsPerDir: 0 }),
      req({ maxEntries: 3 }),
      req({ maxEntries: 40 }),
      req({ maxEntries: 5050 }),
      req({ maxEntries: 20, maxItemsPerDir: 2 }),
      req({ maxDepth: 1 }),
      req({ maxDepth: 2, excludeHidden: true }),
      req({ oneFileSystem: true, maxItemsPerDir: 100 }),
      req({ path: path.join(tree, 'big'), maxItemsPerDir: 10, capRoot: true }),
    ];
    for (const r of requests) assert.ok(packedTreeServes(r));
    for (const [i, w] of walkBoth(requests).entries()) {
      if (w.packed !== w.engine)
        assert.deepEqual(lines(w.packed), lines(w.engine), `request ${i}: ${JSON.stringify(requests[i])}`);
      assert.equal(w.packed, w.engine, `request ${i}: the same rows, not the same bytes`);
      assert.deepEqual(w.ps, w.es, `request ${i}: summary`);
    }
    // The tree is what it is meant to be: the edges are in the first listing.
    const first = lines(walkBoth([requests[0]])[0].packed);
    for (const want of [
      'a/fifo fifo',
      'link-dir symlink',
      'hard file',
      'locked dir 4096 1 DENIED',
      // Readable, not searchable: its names listed, each stat denied (as node:fs lists it).
      'noexec/listed file 0 2 DENIED',
      '\xff\xfe\nA file 5 1',
    ])
      assert.ok(
        first.some((l) => l.startsWith(want)),
        `${want} in\n${first.filter((l) => !l.startsWith('big/')).join('\n')}`,
      );
  });

  it('serves only the tree walks it is written for', () => {
    const base = { ...WALK_DEFAULTS, path: '/' };
    assert.ok(packedTreeServes(base));
    for (const over of [
      { shape: 'ranked' },
      { order: 'size' },
      { after: Buffer.from('a') },
      { followSymlinks: true },
      { dirSizes: true },
      { types: ['file'] },
      { include: ['*'] },
      { exclude: ['*'] },
      { filter: { minSize: 1 } },
    ] as Partial<WalkRequest>[])
      assert.ok(!packedTreeServes({ ...base, ...over }), JSON.stringify(over));
  });
});
