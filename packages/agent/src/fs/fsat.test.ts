// The native module (native/fsat.c through fsat.ts): its lstat against node:fs's lstat of
// the same entry through the directory's magic link (the same RawEntry for every kind of
// entry, a symlink not followed), its open (O_PATH only, never through a symlink), errno
// codes as node:fs names them, and a name that is not one component of the directory refused. A build has the module: not finding it fails here
// (FLEETLS_NATIVE=0 is the one way to run without it: the last test, in a child process).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { O_PATH } from './beneath.js';
import { lstatAt, openDirRead, openPathAt, readsDents, statRoute } from './fsat.js';
import { fieldsAreLink, rawFromFields, rawFromStats } from './raw-stats.js';

describe('lstat by fstatat on a directory descriptor', () => {
  let root: string;
  let fd: number;
  const names = ['file', 'dir', 'link', 'dangling', 'fifo', 'hard', 'old', 'sparse', 'neg-frac'];
  const odd = Buffer.from([0xff, 0x61, 0xe9]);

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-fsat-'));
    const at = (n: string) => path.join(root, n);
    fs.writeFileSync(at('file'), 'hello');
    fs.mkdirSync(at('dir'));
    fs.symlinkSync('file', at('link'));
    fs.symlinkSync('nowhere', at('dangling'));
    execFileSync('mkfifo', [at('fifo')]);
    fs.linkSync(at('file'), at('hard'));
    fs.writeFileSync(at('old'), '');
    fs.utimesSync(at('old'), 86_400.25, 86_400.25);
    fs.writeFileSync(at('sparse'), '');
    fs.truncateSync(at('sparse'), 5 * 2 ** 30);
    // Before 1970 with a fraction: the second floored, the nanosecond positive (the wire's uint32).
    // (node:fs's utimes takes a negative time as now: GNU touch sets it.)
    fs.writeFileSync(at('neg-frac'), '');
    execFileSync('touch', ['-h', '-d', '@-1.5', at('neg-frac')]);
    fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), odd]), 'x');
    fd = fs.openSync(root, O_PATH | fs.constants.O_DIRECTORY);
  });
  after(() => {
    fs.closeSync(fd);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is what a build runs', () => {
    assert.match(statRoute(), /^fstatat \(.*fsat\.node\)$/);
  });

  it('needs no glibc past 2.28, as the executable (statx, not fstatat: GLIBC_2.33)', () => {
    const symbols = execFileSync('objdump', ['-T', fileURLToPath(new URL('./fsat.node', import.meta.url))], {
      encoding: 'utf8',
    });
    const versions = [...symbols.matchAll(/GLIBC_(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.ok(versions.length > 0, symbols);
    for (const [major, minor] of versions) assert.ok(major === 2 && minor <= 28, `GLIBC_${major}.${minor}`);
  });

  it('gives the RawEntry node:fs gives, for every kind of entry and an odd name', () => {
    for (const name of [...names.map((n) => Buffer.from(n)), odd]) {
      const f = lstatAt(fd, name);
      assert.ok(f, 'the module is loaded');
      const native = rawFromFields(name, f);
      const viaProc = rawFromStats(
        name,
        fs.lstatSync(Buffer.from(`/proc/self/fd/${fd}/${name.toString('latin1')}`, 'latin1'), { bigint: true }),
      );
      assert.deepEqual(native, viaProc, name.toString('latin1'));
    }
    const old = rawFromFields(Buffer.from('neg-frac'), lstatAt(fd, Buffer.from('neg-frac')) as Float64Array);
    assert.deepEqual([old.mtimeSec, old.mtimeNsec], [-2, 500_000_000]);
  });

  it('does not follow a symlink', () => {
    assert.ok(fieldsAreLink(lstatAt(fd, Buffer.from('link')) as Float64Array));
    assert.ok(fieldsAreLink(lstatAt(fd, Buffer.from('dangling')) as Float64Array));
    assert.ok(!fieldsAreLink(lstatAt(fd, Buffer.from('file')) as Float64Array));
  });

  it('throws what node:fs throws for a missing entry and a descriptor that is not a directory', () => {
    assert.throws(() => lstatAt(fd, Buffer.from('missing')), { code: 'ENOENT', syscall: 'lstat' });
    const file = fs.openSync(path.join(root, 'file'), 'r');
    try {
      assert.throws(() => lstatAt(file, Buffer.from('x')), { code: 'ENOTDIR' });
    } finally {
      fs.closeSync(file);
    }
    assert.throws(() => lstatAt(987_654, Buffer.from('x')), { code: 'EBADF' });
  });

  it('opens a name for lookups only (O_PATH), never through a symlink', () => {
    const file = openPathAt(fd, Buffer.from('file'), false) as number;
    const dir = openPathAt(fd, Buffer.from('dir'), true) as number;
    const link = openPathAt(fd, Buffer.from('link'), false) as number;
    try {
      assert.equal(fs.fstatSync(file).ino, fs.lstatSync(path.join(root, 'file')).ino);
      assert.ok(fs.fstatSync(dir).isDirectory());
      // The link itself, not its target.
      assert.equal(fs.fstatSync(link).ino, fs.lstatSync(path.join(root, 'link')).ino);
      // No I/O through an O_PATH descriptor.
      assert.throws(() => fs.readSync(file, Buffer.alloc(5)), { code: 'EBADF' });
    } finally {
      for (const d of [file, dir, link]) fs.closeSync(d);
    }
    assert.throws(
      () => openPathAt(fd, Buffer.from('link'), true),
      (err: NodeJS.ErrnoException) => err.code === 'ENOTDIR' || err.code === 'ELOOP',
    );
    assert.throws(() => openPathAt(fd, Buffer.from('file'), true), { code: 'ENOTDIR', syscall: 'open' });
    assert.throws(() => openPathAt(fd, Buffer.from('missing'), false), { code: 'ENOENT' });
  });

  it('refuses wrong arguments with a TypeError naming the argument (the module itself, as any caller would reach it)', () => {
    const m = { exports: {} as Record<string, (...a: unknown[]) => unknown> };
    process.dlopen(m, fileURLToPath(new URL('./fsat.node', import.meta.url)));
    const { lstatAt: rawLstat, openAt: rawOpen, openDirRead: rawOpenDir } = m.exports;
    const name = Buffer.from('file');
    for (const [call, message] of [
      [() => rawLstat(fd), /lstatAt: takes three arguments/],
      [() => rawLstat('3', name, new Float64Array(10)), /lstatAt: dirFd must be a number/],
      [() => rawLstat(fd, 'file', new Float64Array(10)), /lstatAt: name must be a Buffer/],
      [() => rawLstat(fd, name, new Float64Array(9)), /lstatAt: out must be a Float64Array of 10/],
      [() => rawLstat(fd, name, new Float32Array(10)), /lstatAt: out must be a Float64Array of 10/],
      [() => rawOpen(fd, name, 1), /openAt: dir must be a boolean/],
      [() => rawOpenDir(), /openDirRead: takes one argument/],
      [() => rawOpenDir('3'), /openDirRead: dirFd must be a number/],
    ] as const)
      assert.throws(call, { name: 'TypeError', message });
  });

  it('refuses a name that is not one component of the directory', () => {
    for (const name of ['', '.', '..', 'dir/../file', '/etc/passwd', 'fi\0le', 'x'.repeat(256)]) {
      assert.throws(() => lstatAt(fd, Buffer.from(name)), { code: 'EINVAL' }, JSON.stringify(name));
      assert.throws(() => openPathAt(fd, Buffer.from(name), true), { code: 'EINVAL' }, JSON.stringify(name));
    }
  });
});

describe('a directory opened for reading from its O_PATH descriptor', () => {
  let root: string;
  let pathFd: number;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-dents-'));
    fs.mkdirSync(path.join(root, 'sub'));
    fs.symlinkSync('sub', path.join(root, 'link'));
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    pathFd = fs.openSync(root, O_PATH | fs.constants.O_DIRECTORY);
  });
  after(() => {
    fs.closeSync(pathFd);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is what a build runs', () => {
    assert.ok(readsDents());
  });

  it('opens only for reading a directory, never following a symlink; gives errnos as node:fs names them', () => {
    const fd = openDirRead(pathFd) as number;
    try {
      assert.equal(fs.fstatSync(fd).ino, fs.statSync(root).ino);
      // The opened descriptor's flags: read only (not O_PATH), the directory itself.
      const flags = Number.parseInt(
        /flags:\s+(\d+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '',
        8,
      );
      assert.equal(flags & (O_PATH | 3), fs.constants.O_RDONLY);
    } finally {
      fs.closeSync(fd);
    }
    const file = fs.openSync(path.join(root, 'fifo'), O_PATH);
    const link = fs.openSync(path.join(root, 'link'), O_PATH | fs.constants.O_NOFOLLOW);
    try {
      assert.throws(() => openDirRead(file), { code: 'ENOTDIR', syscall: 'opendir' });
      assert.throws(
        () => openDirRead(link),
        (err: NodeJS.ErrnoException) => ['ENOTDIR', 'ELOOP'].includes(err.code ?? ''),
      );
    } finally {
      fs.closeSync(file);
      fs.closeSync(link);
    }
    assert.throws(() => openDirRead(987_654), { code: 'EBADF' });
  });

  it('refuses to open a directory it may search but not list (EACCES)', {
    skip: process.getuid?.() !== 0 && 'needs root',
  }, () => {
    const script = `
      const fs = await import('node:fs');
      const { openDirRead } = await import(${JSON.stringify(new URL('./fsat.js', import.meta.url).href)});
      const fd = fs.openSync(process.argv[1], ${O_PATH | fs.constants.O_DIRECTORY});
      try { openDirRead(fd); process.stdout.write('opened'); } catch (err) { process.stdout.write(err.code); }
    `;
    const locked = path.join(root, 'locked');
    fs.mkdirSync(locked, { mode: 0o111 });
    fs.chmodSync(locked, 0o111);
    fs.chmodSync(root, 0o755);
    try {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, locked], {
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
      });
      assert.equal(out, 'EACCES');
    } finally {
      fs.rmdirSync(locked);
    }
  });
});

it('without the native module (FLEETLS_NATIVE=0), says why and leaves every entry to the magic link', () => {
  const script = `
    const { lstatAt, openPathAt, openDirRead, readsDents, statRoute } = await import(${JSON.stringify(new URL('./fsat.js', import.meta.url).href)});
    process.stdout.write(JSON.stringify({ route: statRoute(), got: lstatAt(0, Buffer.from('x')) ?? openPathAt(0, Buffer.from('x'), true) ?? openDirRead(0) ?? null, dents: readsDents() }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, FLEETLS_NATIVE: '0' },
    encoding: 'utf8',
  });
  assert.deepEqual(JSON.parse(out), { route: 'proc-fd (FLEETLS_NATIVE=0)', got: null, dents: false });
});
