import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { RawEntry } from '@fleetls/core';
import { duApparent } from '../du/apparent.js';
import { WalkCancelled } from '../walk/cancelled.js';
import { MAX_OPEN_DIRS } from './dir-handles.js';
import { WHOLE_READ_MAX_DIR_BYTES } from './dir-read.js';
import { readsDents } from './fsat.js';
import { createFsSource } from './source.js';
import { utcOffsetAt } from './utc-offset.js';

let root: string;
let outside: string;
const BAD = Buffer.from([0x62, 0x61, 0x64, 0x2d, 0xff, 0xfe]); // "bad-\xff\xfe": not UTF-8

/** A directory's entries, each completed as the walk engine would complete a kept one. */
function listNames(src: ReturnType<typeof createFsSource>, dir = ''): Map<string, RawEntry> {
  const rel = Buffer.from(dir, 'latin1');
  const r = src.list(rel);
  assert.ok(!('error' in r), 'listing failed');
  const filled = [...(r as Iterable<RawEntry>)].map((e) => (e.lazy ? src.fill!(rel, e) : e));
  return new Map(filled.map((e) => [e.name.toString('latin1'), e]));
}

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-fs-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-out-')));
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello');
  fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), BAD]), 'xyz');
  fs.writeFileSync(path.join(root, 'new\nline'), '');
  fs.writeFileSync(path.join(root, 'tab\t"q"'), '12');
  fs.mkdirSync(path.join(root, 'sub'));
  fs.mkdirSync(path.join(root, 'empty'));
  fs.writeFileSync(path.join(root, 'sub', 'f'), 'x'.repeat(1000));
  fs.linkSync(path.join(root, 'sub', 'f'), path.join(root, 'sub', 'hard'));
  fs.symlinkSync('.', path.join(root, 'loop'));
  fs.symlinkSync('l2', path.join(root, 'l1'));
  fs.symlinkSync('l1', path.join(root, 'l2'));
  fs.symlinkSync('nowhere', path.join(root, 'dangling'));
  fs.symlinkSync('sub', path.join(root, 'tosub'));
  fs.writeFileSync(path.join(outside, 'secret'), 's');
  fs.symlinkSync(outside, path.join(root, 'escape'));
  fs.utimesSync(path.join(root, 'a.txt'), 1_700_000_000.123456, 1_700_000_000.123456);
});

after(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('createFsSource', () => {
  it('lists every name as raw bytes with lstat fields', () => {
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    const m = listNames(src);
    assert.deepEqual(
      [...m.keys()].sort(),
      [
        'a.txt',
        BAD.toString('latin1'),
        'new\nline',
        'tab\t"q"',
        'sub',
        'empty',
        'loop',
        'l1',
        'l2',
        'dangling',
        'tosub',
        'escape',
      ].sort(),
    );
    const bad = m.get(BAD.toString('latin1'));
    assert.ok(bad);
    assert.deepEqual(bad.name, BAD);
    assert.equal(bad.type, 'file');
    assert.equal(bad.size, 3);
    const a = m.get('a.txt');
    assert.ok(a);
    const st = fs.lstatSync(path.join(root, 'a.txt'), { bigint: true });
    assert.equal(a.size, 5);
    assert.equal(a.mtimeSec, Number(st.mtimeNs / 1_000_000_000n));
    assert.equal(a.mtimeNsec, Number(st.mtimeNs % 1_000_000_000n));
    assert.equal(a.inode, Number(st.ino));
    assert.equal(a.dev, Number(st.dev));
    assert.equal(a.mode, Number(st.mode));
    assert.equal(a.utcOffsetMin, -new Date(a.mtimeSec * 1000).getTimezoneOffset() || 0);
    assert.equal(m.get('sub')?.type, 'dir');
    assert.equal(m.get('new\nline')?.size, 0);
  });

  it('reports symlinks with their target and does not follow them', () => {
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    const m = listNames(src);
    assert.equal(m.get('loop')?.type, 'symlink');
    assert.deepEqual(m.get('loop')?.linkTarget, Buffer.from('.'));
    assert.deepEqual(m.get('escape')?.linkTarget, Buffer.from(outside));
    assert.equal(m.get('escape')?.error, undefined);
    assert.equal(m.get('l1')?.error, undefined);
  });

  it('follows symlinks inside the roots, refuses those leaving them, reports loops and dangling links', () => {
    const src = createFsSource(root, { followSymlinks: true, allowedRoots: [root] });
    const m = listNames(src);
    assert.equal(m.get('tosub')?.type, 'dir');
    assert.deepEqual(m.get('tosub')?.linkTarget, Buffer.from('sub'));
    assert.equal(m.get('tosub')?.inode, fs.statSync(path.join(root, 'sub')).ino);
    assert.deepEqual(m.get('escape')?.error, { code: 'DENIED', detail: 'symlink target outside allowed roots' });
    assert.equal(m.get('l1')?.error?.code, 'ERROR'); // ELOOP
    assert.equal(m.get('dangling')?.error?.code, 'NOT_FOUND');
    // 'loop' -> '.' is a directory (the root itself): the engine's loop check sees the same dev/inode.
    assert.equal(m.get('loop')?.type, 'dir');
    assert.equal(m.get('loop')?.inode, fs.statSync(root).ino);
  });

  it('lists a subdirectory by relative bytes, and returns an error for what cannot be listed', () => {
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    assert.deepEqual([...listNames(src, 'sub').keys()].sort(), ['f', 'hard']);
    assert.deepEqual([...listNames(src, 'empty').keys()], []);
    assert.equal((src.list(Buffer.from('missing')) as { error: { code: string } }).error.code, 'NOT_FOUND');
    assert.equal((src.list(Buffer.from('a.txt')) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  it('gives the root entry', () => {
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    const r = src.root();
    assert.equal(r.type, 'dir');
    assert.equal(r.inode, fs.statSync(root).ino);
  });

  it('stops listing when cancelled', () => {
    let cancelled = false;
    let seen = 0;
    const src = createFsSource(root, {
      followSymlinks: false,
      allowedRoots: [root],
      isCancelled: () => cancelled,
      onEntry: () => {
        seen++;
      },
    });
    const it = (src.list(Buffer.alloc(0)) as Iterable<RawEntry>)[Symbol.iterator]();
    it.next();
    cancelled = true;
    assert.throws(() => it.next(), WalkCancelled);
    assert.equal(seen, 1);
  });

  it('reads a large directory lazily', () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-big-'));
    try {
      for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(big, `f${i}`), '');
      let seen = 0;
      const src = createFsSource(big, { followSymlinks: false, allowedRoots: [big], onEntry: () => seen++ });
      const it = (src.list(Buffer.alloc(0)) as Iterable<RawEntry>)[Symbol.iterator]();
      it.next();
      assert.equal(seen, 1);
      let n = 1;
      while (!it.next().done) n++;
      assert.equal(n, 3000);
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});

describe('dirSize', () => {
  it('matches du -b --one-file-system (and du -B1 for the allocated size), hard links counted once', () => {
    const du = (flag: string, p: string) =>
      Number(execFileSync('du', ['-s', flag, '--one-file-system', p], { encoding: 'utf8' }).split('\t')[0]);
    const r = duApparent(Buffer.from(root), Date.now() + 10_000);
    assert.deepEqual(r, { size: du('-b', root), partial: false, allocated: du('-B1', root) });
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    const sub = path.join(root, 'sub');
    assert.deepEqual(src.dirSize(Buffer.from('sub'), Date.now() + 10_000), {
      size: du('-b', sub),
      partial: false,
      allocated: du('-B1', sub),
    });
  });

  it('a sparse file: apparent size as du -b, allocated as du; unreadable directories counted', () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-du-sparse-'));
    try {
      fs.mkdirSync(path.join(top, 'img'));
      fs.mkdirSync(path.join(top, 'locked', 'deeper'), { recursive: true });
      fs.mkdirSync(path.join(top, 'shut'));
      // 1 GiB apparent, a few blocks on disk.
      const fd = fs.openSync(path.join(top, 'img', 'disk.img'), 'w');
      fs.ftruncateSync(fd, 1 << 30);
      fs.writeSync(fd, 'x', 1 << 20);
      fs.closeSync(fd);
      const du = (flag: string) =>
        Number(execFileSync('du', ['-s', flag, path.join(top, 'img')], { encoding: 'utf8' }).split('\t')[0]);
      const img = duApparent(Buffer.from(path.join(top, 'img')), Date.now() + 10_000);
      assert.deepEqual(img, { size: du('-b'), partial: false, allocated: du('-B1') });
      assert.ok(img.size > 1 << 30 && (img.allocated ?? 0) < 1 << 20, JSON.stringify(img));
      // Unreadable to anyone but root, and to root too once it drops CAP_DAC_READ_SEARCH: run as nobody when root.
      fs.chmodSync(path.join(top, 'locked', 'deeper'), 0);
      fs.chmodSync(path.join(top, 'shut'), 0);
      if (process.getuid?.() === 0) {
        const script = `import('${pathToFileURL(path.join(import.meta.dirname, '../du/apparent.js')).href}').then((m) => process.stdout.write(JSON.stringify(m.duApparent(Buffer.from(process.argv[1]), Date.now() + 10000))))`;
        fs.chmodSync(top, 0o755);
        const out = execFileSync(
          'setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script, top],
          { encoding: 'utf8' },
        );
        const all = JSON.parse(out);
        assert.equal(all.partial, true);
        assert.equal(all.unreadableDirs, 2, out);
      } else {
        const all = duApparent(Buffer.from(top), Date.now() + 10_000);
        assert.equal(all.partial, true);
        assert.equal(all.unreadableDirs, 2, JSON.stringify(all));
      }
    } finally {
      fs.chmodSync(path.join(top, 'locked', 'deeper'), 0o755);
      fs.chmodSync(path.join(top, 'shut'), 0o755);
      fs.rmSync(top, { recursive: true, force: true });
    }
  });

  it('sizes every level of a subtree in one pass, as du -b -d 2 does (hard links in the nested directory count there)', () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-du-'));
    try {
      fs.mkdirSync(path.join(top, 'a', 'b', 'c'), { recursive: true });
      fs.writeFileSync(path.join(top, 'a', 'one'), 'x'.repeat(100));
      fs.writeFileSync(path.join(top, 'a', 'b', 'f'), 'y'.repeat(3000));
      fs.linkSync(path.join(top, 'a', 'b', 'f'), path.join(top, 'a', 'b', 'hard'));
      fs.writeFileSync(path.join(top, 'a', 'b', 'c', 'g'), 'z'.repeat(70));
      const du = new Map(
        execFileSync('du', ['-b', '--one-file-system', '-d', '2', '.'], { cwd: top, encoding: 'utf8' })
          .trim()
          .split('\n')
          .map((l) => l.split('\t'))
          .map(([size, p]) => [p.replace(/^\.\/?/, ''), Number(size)]),
      );
      const src = createFsSource(top, { followSymlinks: false, allowedRoots: [top] });
      const deadline = Date.now() + 10_000;
      const a = src.dirSize(Buffer.from('a'), deadline, 1);
      // Asked after 'a' (the walk asks one level down next): from the same pass, hard link included.
      const b = src.dirSize(Buffer.from('a/b'), deadline, 0);
      assert.deepEqual({ size: a.size, partial: a.partial }, { size: du.get('a'), partial: false });
      assert.deepEqual({ size: b.size, partial: b.partial }, { size: du.get('a/b'), partial: false });
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });

  it('is partial when the deadline has passed', () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-du-'));
    try {
      for (let i = 0; i < 600; i++) fs.writeFileSync(path.join(big, `f${i}`), 'x');
      const r = duApparent(Buffer.from(big), Date.now() - 1);
      assert.equal(r.partial, true);
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});

describe('createFsSource, lazily', () => {
  it('lists names and types from the directory read, and lstat only on fill (the native module: as it reads)', () => {
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    const r = src.list(Buffer.alloc(0), 0) as Iterable<RawEntry>;
    const a = [...r].find((e) => e.name.toString() === 'a.txt');
    assert.ok(a);
    assert.equal(a.type, 'file');
    if (readsDents()) {
      // Read and stat'ed in one call per chunk (fsat.c readPacked): nothing left to fill.
      assert.equal(a.lazy, undefined);
      assert.equal(a.size, 5);
      assert.equal(a.mtimeSec, 1_700_000_000);
      return;
    }
    assert.ok(a.lazy);
    assert.equal(a.size, 0, 'not stat-ed yet');
    const filled = src.fill!(Buffer.alloc(0), a);
    assert.equal(filled.size, 5);
    assert.equal(filled.mtimeSec, 1_700_000_000);
    assert.equal(filled.lazy, undefined);
  });

  it('stats no more of a large directory as it reads than the walk may keep (at least 4096), the rest on fill', () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-big-'));
    try {
      for (let i = 0; i < 6000; i++) fs.writeFileSync(path.join(big, `f${i}`), 'abc');
      const src = createFsSource(big, { followSymlinks: false, allowedRoots: [big] });
      const all = [...(src.list(Buffer.alloc(0), 10) as Iterable<RawEntry>)];
      const lazy = all.filter((e) => e.lazy);
      assert.equal(all.length, 6000);
      if (readsDents()) assert.ok(lazy.length > 0 && lazy.length <= 6000 - 4096, `${lazy.length} lazy`);
      else assert.equal(lazy.length, 6000);
      assert.equal(src.fill!(Buffer.alloc(0), lazy[0]).size, 3);
      assert.ok(all.filter((e) => !e.lazy).every((e) => e.size === 3));
      // Every entry's lstat wanted (an order by size): none left lazy.
      assert.equal(
        [...(src.list(Buffer.alloc(0)) as Iterable<RawEntry>)].filter((e) => e.lazy).length,
        readsDents() ? 0 : 6000,
      );
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});

describe('createFsSource, whole reads', () => {
  it('reads a directory known small (from its lstat) in one call, with the same entries as a streamed read', () => {
    const streamed = listNames(createFsSource(root, { followSymlinks: false, allowedRoots: [root] }));
    let seen = 0;
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root], onEntry: () => seen++ });
    const r = src.root();
    assert.ok(r.size > 0 && r.size <= WHOLE_READ_MAX_DIR_BYTES);
    const whole = listNames(src);
    assert.equal(seen, whole.size);
    assert.deepEqual([...whole.keys()].sort(), [...streamed.keys()].sort());
    for (const [k, e] of whole) assert.deepEqual(e, streamed.get(k));
    // A filled subdirectory is read whole too, its full path built from the reused prefix.
    const sub = src.fill!(Buffer.alloc(0), { ...whole.get('sub')!, lazy: true });
    assert.equal(sub.type, 'dir');
    assert.deepEqual([...listNames(src, 'sub').keys()].sort(), ['f', 'hard']);
  });

  it('stops a whole read when cancelled', () => {
    let cancelled = false;
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root], isCancelled: () => cancelled });
    src.root();
    const it = (src.list(Buffer.alloc(0)) as Iterable<RawEntry>)[Symbol.iterator]();
    it.next();
    cancelled = true;
    assert.throws(() => it.next(), WalkCancelled);
  });

  it('reports a directory that vanished between its lstat and its read', () => {
    const gone = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-gone-'));
    fs.mkdirSync(path.join(gone, 'd'));
    try {
      const src = createFsSource(gone, { followSymlinks: false, allowedRoots: [gone] });
      src.root();
      const d = src.fill!(Buffer.alloc(0), { ...(listNames(src).get('d') as RawEntry), lazy: true });
      assert.equal(d.type, 'dir');
      fs.rmdirSync(path.join(gone, 'd'));
      assert.equal((src.list(Buffer.from('d')) as { error: { code: string } }).error.code, 'NOT_FOUND');
    } finally {
      fs.rmSync(gone, { recursive: true, force: true });
    }
  });
});

describe('createFsSource, per walk', () => {
  // V8 gives a generator function a map of its own, in the old generation, at its first
  // call, pointing back at the function: a listing generator declared per source left that
  // map, dead, holding the source and its walk through every scavenge until a full
  // collection (bench/results/structure.why.md).
  it('lists through one generator function for every source, none made per source', () => {
    const a = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    const b = createFsSource(root, { followSymlinks: false, allowedRoots: [root] });
    for (const dir of ['', 'sub']) {
      const fromA = a.list(Buffer.from(dir));
      const fromB = b.list(Buffer.from(dir));
      assert.ok(!('error' in fromA) && !('error' in fromB), 'listing failed');
      assert.equal(Object.getPrototypeOf(fromA), Object.getPrototypeOf(fromB), `listing of '${dir}'`);
      // Read to the end: each listing closes its read descriptor there.
      assert.equal([...fromA].length, [...fromB].length);
    }
    a.close();
    b.close();
  });
});

describe('utcOffsetAt', () => {
  it('gives the offset of the 15-minute bucket, cached or not', () => {
    const times = [
      0,
      -1,
      1_700_000_000,
      1_700_000_899,
      1_700_000_900,
      -5_000_000_000,
      2 ** 40,
      1_700_000_000 + 900 * 65_536,
    ];
    for (let pass = 0; pass < 2; pass++) {
      for (const t of times) {
        const expected = -new Date(Math.floor(t / 900) * 900_000).getTimezoneOffset() || 0;
        assert.equal(utcOffsetAt(t), expected, `t=${t}`);
      }
    }
  });
});

describe('createFsSource, by descriptor', () => {
  it('never follows a directory swapped for a symlink to outside after the walk began', () => {
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-swap-')));
    try {
      fs.mkdirSync(path.join(top, 'd'));
      fs.writeFileSync(path.join(top, 'd', 'inside'), 'i');
      const src = createFsSource(top, { followSymlinks: false, allowedRoots: [top] });
      assert.equal(src.root().type, 'dir');
      // The name now leads outside; a path string would be re-resolved through it.
      fs.renameSync(path.join(top, 'd'), path.join(top, 'd-moved'));
      fs.symlinkSync(outside, path.join(top, 'd'));
      const r = src.list(Buffer.from('d'));
      assert.ok('error' in r, 'the symlink is not listed as the directory');
      const entry = src.fill?.(Buffer.alloc(0), { ...src.root(), name: Buffer.from('d'), lazy: true });
      assert.equal(entry?.type, 'symlink');
      assert.notEqual(entry?.inode, fs.statSync(outside).ino);
      src.close();
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });

  it('lists a tree deeper than the descriptors it keeps open, reopening from an open ancestor', () => {
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-deep-')));
    try {
      const parts = Array.from({ length: MAX_OPEN_DIRS + 10 }, (_, i) => `l${i}`);
      fs.mkdirSync(path.join(top, ...parts), { recursive: true });
      fs.writeFileSync(path.join(top, ...parts, 'leaf'), 'x');
      const src = createFsSource(top, { followSymlinks: false, allowedRoots: [top] });
      src.root();
      // Down, then the top levels again (closed by then), then the bottom.
      for (let i = 0; i < parts.length; i++) assert.equal(listNames(src, parts.slice(0, i).join('/')).size, 1);
      assert.deepEqual([...listNames(src, parts[0]).keys()], ['l1']);
      assert.deepEqual([...listNames(src, parts.join('/')).keys()], ['leaf']);
      src.close();
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });
});

describe('createFsSource, the read descriptor', () => {
  const openFds = () => fs.readdirSync('/proc/self/fd').length;

  it('is closed however a read ends: done, dropped mid-directory or cancelled', () => {
    const before = openFds();
    let cancelled = false;
    const src = createFsSource(root, { followSymlinks: false, allowedRoots: [root], isCancelled: () => cancelled });
    listNames(src);
    const dropped = (src.list(Buffer.alloc(0)) as Iterable<RawEntry>)[Symbol.iterator]();
    dropped.next();
    dropped.return?.();
    const it = (src.list(Buffer.alloc(0)) as Iterable<RawEntry>)[Symbol.iterator]();
    it.next();
    cancelled = true;
    assert.throws(() => it.next(), WalkCancelled);
    src.close();
    assert.equal(openFds(), before);
  });
});

// The suite again without the native module (FLEETLS_NATIVE=0): node:fs's reads (whole,
// streamed, Buffer names for unknown types) stay the fallback, and must list alike.
it('passes without the native module too', { skip: process.env.FLEETLS_NATIVE === '0' }, () => {
  execFileSync(process.execPath, ['--test', new URL(import.meta.url).pathname], {
    env: { ...process.env, FLEETLS_NATIVE: '0' },
    stdio: 'pipe',
  });
});
