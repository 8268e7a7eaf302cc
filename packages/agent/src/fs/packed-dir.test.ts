// A directory read and stat'ed by the native module in one call per chunk (fsat.c readPacked,
// packed-dir.ts): every name's bytes and every entry's lstat as node:fs gives them through the
// directory's magic link (a symlink not followed, hard links, an odd name, a FIFO, a sparse
// file, a time before 1970), a directory of several chunks each entry once, the d_types left
// unstat'ed by the mask, the hung-mount probe told each entry, and wrong arguments refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CallProbe, CallWatch, PROBE_BYTES } from '../walk/call-probe.js';
import { O_PATH } from './beneath.js';
import { readPacked } from './fsat.js';
import { NAME_ONLY, PACKED_BYTES, type PackedDir, PackedReader, STAT_ALL, STAT_DIRS, STATED } from './packed-dir.js';
import { rawFromRecord, rawFromStats } from './raw-stats.js';

/** Reads a directory chunk by chunk, handing `each` every record; how many chunks it took. */
function readAll(
  reader: PackedReader,
  dirFd: number,
  mask: number,
  each: (dir: PackedDir, i: number) => void,
  probe?: CallProbe,
  dirLen = 0,
): number {
  const dir = reader.open(dirFd);
  let chunks = 0;
  try {
    while (dir.next(mask, probe, dirLen)) {
      chunks++;
      for (let i = 0; i < dir.count; i++) each(dir, i);
    }
  } finally {
    dir.close();
  }
  return chunks;
}

describe('a directory read and stat’ed in one native call per chunk', () => {
  let root: string;
  let fd: number;
  const odd = Buffer.from([0xff, 0x61, 0xe9]);
  const reader = PackedReader.ifLoaded() as PackedReader;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-packed-'));
    const at = (n: string) => path.join(root, n);
    fs.writeFileSync(at('file'), 'hello');
    fs.mkdirSync(at('dir'));
    fs.symlinkSync('file', at('link'));
    fs.symlinkSync('nowhere', at('dangling'));
    execFileSync('mkfifo', [at('fifo')]);
    fs.linkSync(at('file'), at('hard'));
    fs.writeFileSync(at('sparse'), '');
    fs.truncateSync(at('sparse'), 5 * 2 ** 30);
    fs.writeFileSync(at('neg-frac'), '');
    execFileSync('touch', ['-h', '-d', '@-1.5', at('neg-frac')]);
    fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), odd]), 'x');
    fs.mkdirSync(at('many'));
    for (let i = 0; i < 5000; i++) fs.writeFileSync(at(`many/entry-${i}`), '');
    fd = fs.openSync(root, O_PATH | fs.constants.O_DIRECTORY);
  });
  after(() => {
    fs.closeSync(fd);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is what a build runs', () => {
    assert.ok(reader, 'the module is loaded');
  });

  it('gives every name’s bytes and the RawEntry node:fs gives, for every kind of entry', () => {
    const got = new Map<string, ReturnType<typeof rawFromRecord>>();
    readAll(reader, fd, STAT_ALL, (dir, i) => {
      assert.equal(dir.state(i), STATED);
      const name = dir.name(i);
      got.set(name.toString('latin1'), rawFromRecord(name, dir, i));
    });
    const names = fs.readdirSync(root, { encoding: 'buffer' }) as Buffer[];
    assert.deepEqual([...got.keys()].sort(), names.map((n) => n.toString('latin1')).sort());
    for (const name of names) {
      const viaProc = rawFromStats(
        name,
        fs.lstatSync(Buffer.concat([Buffer.from(`/proc/self/fd/${fd}/`), name]), { bigint: true }),
      );
      assert.deepEqual(got.get(name.toString('latin1')), viaProc, name.toString('latin1'));
    }
    assert.equal(got.get('link')?.type, 'symlink', 'not followed');
    assert.equal(got.get('hard')?.nlink, 2);
    assert.equal(got.get('hard')?.inode, got.get('file')?.inode);
    assert.deepEqual([got.get('neg-frac')?.mtimeSec, got.get('neg-frac')?.mtimeNsec], [-2, 500_000_000]);
  });

  it('gives the allocated blocks (st_blocks) beside the size', () => {
    const blocks = new Map<string, number>();
    readAll(reader, fd, STAT_ALL, (dir, i) => {
      blocks.set(dir.name(i).toString('latin1'), dir.blocks(i));
    });
    for (const n of ['file', 'sparse', 'dir']) assert.equal(blocks.get(n), fs.lstatSync(path.join(root, n)).blocks, n);
  });

  it('reads a directory of several chunks, each entry once', () => {
    const manyFd = fs.openSync(path.join(root, 'many'), O_PATH | fs.constants.O_DIRECTORY);
    try {
      const seen = new Set<string>();
      const chunks = readAll(reader, manyFd, STAT_ALL, (dir, i) => {
        const n = dir.name(i).toString();
        assert.ok(!seen.has(n), n);
        seen.add(n);
        assert.equal(dir.type(i), 'file');
      });
      assert.ok(chunks > 1, `${chunks} chunks`);
      assert.equal(seen.size, 5000);
    } finally {
      fs.closeSync(manyFd);
    }
  });

  it('stats only the d_types its mask names, the others read by name and d_type', () => {
    const states = new Map<string, [number, string]>();
    readAll(reader, fd, STAT_DIRS, (dir, i) => {
      states.set(dir.name(i).toString('latin1'), [dir.state(i), dir.state(i) === STATED ? dir.type(i) : dir.dtype(i)]);
    });
    assert.deepEqual(states.get('dir'), [STATED, 'dir']);
    assert.deepEqual(states.get('file'), [NAME_ONLY, 'file']);
    assert.deepEqual(states.get('link'), [NAME_ONLY, 'symlink']);
    assert.deepEqual(states.get('fifo'), [NAME_ONLY, 'fifo']);
    readAll(reader, fd, 0, (dir, i) => assert.equal(dir.state(i), NAME_ONLY));
  });

  it('tells the hung-mount probe each entry it stats, and gives it back the directory', () => {
    const shared = new SharedArrayBuffer(PROBE_BYTES);
    const probe = new CallProbe(shared);
    const ctl = new Int32Array(shared, 0, 8);
    const dirPath = Buffer.from(root);
    const held = probe.enter(dirPath);
    const named: string[] = [];
    // The path the probe holds while each record is read back is the last entry stat'ed.
    readAll(reader, fd, STAT_ALL, (dir, i) => named.push(dir.name(i).toString('latin1')), probe, held);
    const seq = ctl[1];
    assert.equal(seq, named.length, 'one call per entry');
    assert.equal(ctl[2], held, "the directory's path again");
    probe.leave();
    // The watch reads the same bytes: stuck in a stat, it names the entry.
    const watch = new CallWatch(shared);
    assert.equal(watch.sample(0, 0), undefined, 'not in a call');
  });

  it('refuses wrong arguments with a TypeError naming the argument', () => {
    const dir = reader.open(fd);
    try {
      assert.throws(() => dir.next(STAT_ALL, undefined, -1), { name: 'TypeError', message: /dirLen/ });
      const small = Buffer.allocUnsafeSlow(PACKED_BYTES - 8);
      assert.throws(() => readPacked(0, small, STAT_ALL, null, 0), { name: 'TypeError', message: /buf must be/ });
      assert.throws(() => readPacked(0, Buffer.allocUnsafeSlow(PACKED_BYTES), STAT_ALL, new Uint8Array(8), 0), {
        name: 'TypeError',
        message: /probe must be/,
      });
    } finally {
      dir.close();
    }
    assert.throws(() => reader.open(987_654), { code: 'EBADF' });
  });
});
