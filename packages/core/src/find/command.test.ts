import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { WalkRequest } from '../domain/types.js';
import { parseDirSizes } from '../du/find-dir-sizes.js';
import { WALK_DEFAULTS } from '../limits/limits.js';
import { HOSTILE_NAMES as HOSTILE } from '../testing/hostile-names.js';
import { buildDirSizeCommand, buildStatCommand, buildWalkCommand, FIELDS } from './command.js';
import { collectListing, FindRecordParser, parseFindRecords, parseTimestamp, parseUtcOffset } from './records.js';
import { exitFromStderr, shellQuote, validateRemotePath } from './remote-shell.js';
import { parseStat } from './stat.js';

function req(path: string, over: Partial<WalkRequest> = {}): WalkRequest {
  return { ...WALK_DEFAULTS, path, deadlineMs: 10_000, ...over };
}

describe('shellQuote', () => {
  for (const s of [...HOSTILE, '', "''", "'", 'ü'])
    it(`round-trips ${JSON.stringify(s)} through sh`, () => {
      const out = execFileSync('sh', ['-c', `printf '%s' ${shellQuote(s)}`], { encoding: 'utf8' });
      assert.equal(out, s);
    });
});

describe('validateRemotePath', () => {
  it('accepts absolute paths with hostile characters', () => {
    for (const s of HOSTILE.filter((h) => !h.includes('\n'))) assert.equal(validateRemotePath(`/x/${s}`), `/x/${s}`);
  });
  for (const bad of ['', 'rel/x', '-rf', '--help', '/a\nb', '/a\rb', '/a\0b'])
    it(`rejects ${JSON.stringify(bad)}`, () =>
      assert.throws(() => validateRemotePath(bad), { name: 'FleetError', code: 'invalid_argument' }));
});

describe('timestamps', () => {
  it('parses %T@ exactly, without floating point', () => {
    assert.deepEqual(parseTimestamp('1700000000.1234567890'), [1700000000, 123456789]);
    assert.deepEqual(parseTimestamp('1700000000.0000000000'), [1700000000, 0]);
    assert.deepEqual(parseTimestamp('5'), [5, 0]);
    assert.deepEqual(parseTimestamp('-1.5000000000'), [-2, 500000000]);
    assert.deepEqual(parseTimestamp('-3.0000000000'), [-3, 0]);
  });
  it('parses %Tz', () => {
    assert.equal(parseUtcOffset('+0000'), 0);
    assert.equal(parseUtcOffset('+0530'), 330);
    assert.equal(parseUtcOffset('-0800'), -480);
  });
});

function fields(kind: string, f: Partial<Record<string, string | Buffer>>): Buffer {
  const order = ['y', 'Y', 's', 'T', 'z', 'm', 'U', 'G', 'i', 'n', 'D', 'd', 'l', 'P'];
  const def: Record<string, string> = {
    y: 'f',
    Y: 'f',
    s: '10',
    T: '1700000000.5000000000',
    z: '+0100',
    m: '644',
    U: '1000',
    G: '100',
    i: '42',
    n: '1',
    D: '2049',
    d: '1',
    l: '',
    P: 'x',
  };
  const parts = [Buffer.from(kind), ...order.map((k) => Buffer.from(f[k] ?? def[k]))];
  return Buffer.concat(parts.flatMap((p) => [p, Buffer.from([0])]));
}

describe('FindRecordParser', () => {
  const hostileNames = [
    Buffer.from([0xff, 0xfe, 0x41]),
    Buffer.from('new\nline'),
    Buffer.from('tab\there'),
    Buffer.from(`'"$(x)\``),
    Buffer.from('dir/sub/deep'),
  ];
  const stream = Buffer.concat([
    fields('R', { P: '', d: '0', y: 'd', m: '755' }),
    ...hostileNames.map((n, i) => fields('R', { P: n, i: String(i + 1) })),
    fields('D', { P: 'locked', y: 'd', m: '0', d: '1' }),
    fields('R', { P: 'ln', y: 'l', m: '777', l: Buffer.from([0x2f, 0xff, 0x0a]) }),
  ]);

  it('parses every record the same whatever the chunk boundaries', async () => {
    const whole = new FindRecordParser(false).push(stream);
    assert.equal(whole.length, hostileNames.length + 3);
    for (const size of [1, 2, 3, 7, FIELDS, 64, 1000]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
      const got = [];
      for await (const item of parseFindRecords(chunks)) got.push(item);
      assert.deepEqual(got, whole, `chunk size ${size}`);
    }
    assert.deepEqual(
      whole.slice(1, 1 + hostileNames.length).map((r) => r.record.path),
      hostileNames,
    );
  });

  it("reads a restat's A records relative to the listed path, and none outside it", () => {
    const a = (p: string | Buffer) => fields('A', { P: Buffer.concat([Buffer.from('/top/'), Buffer.from(p)]), d: '0' });
    const parser = new FindRecordParser(false, '/top');
    const items = parser.push(Buffer.concat([a('x'), a(hostileNames[4]), fields('A', { P: '/other/y', d: '0' })]));
    assert.deepEqual(
      items.map((it) => [it.record.path.toString(), it.depth]),
      [
        ['x', 1],
        ['dir/sub/deep', 3],
      ],
    );
    assert.equal(parser.garbled, 1);
    assert.equal(new FindRecordParser(false).push(a('x')).length, 0, 'no A record without the listed path');
  });

  it('builds lstat-exact fields', () => {
    const [root, first] = new FindRecordParser(false).push(stream);
    assert.equal(root.depth, 0);
    assert.equal(root.record.type, 'dir');
    assert.equal(root.record.mode, 0o40755);
    assert.deepEqual(first.record, {
      path: hostileNames[0],
      type: 'file',
      size: 10,
      mtimeSec: 1700000000,
      mtimeNsec: 500000000,
      utcOffsetMin: 60,
      mode: 0o100644,
      uid: 1000,
      gid: 100,
      inode: 1,
      nlink: 1,
      dev: 2049,
    });
    const items = new FindRecordParser(false).push(stream);
    const ln = items.at(-1)!;
    assert.equal(ln.record.type, 'symlink');
    assert.equal(ln.record.mode, 0o120777);
    assert.deepEqual(ln.record.linkTarget, Buffer.from([0x2f, 0xff, 0x0a]));
    assert.equal(items.at(-2)!.denied, true);
  });

  it('reports a stream cut mid-record and drops garbled records', () => {
    const p = new FindRecordParser(false);
    const items = p.push(stream.subarray(0, stream.length - 3));
    assert.equal(items.length, hostileNames.length + 2);
    assert.equal(p.incomplete(), true);
    const q = new FindRecordParser(false);
    q.push(fields('Z', {}));
    assert.equal(q.garbled, 1);
  });

  it('collectListing: root, dir errors, cap', () => {
    const items = new FindRecordParser(false).push(stream);
    const l = collectListing(items, 3);
    assert.equal(l.root?.type, 'dir');
    assert.equal(l.records.length, 3);
    assert.equal(l.capped, true);
    const all = collectListing(items, 100);
    assert.equal(all.capped, false);
    assert.deepEqual([...all.dirErrors.keys()], ['locked']);
    assert.equal(all.dirErrors.get('locked')?.code, 'DENIED');
  });
});

describe('parseDirSizes', () => {
  it('keys sizes by relative path and marks ancestors of unreadable dirs partial', () => {
    const out = Buffer.from(
      'Ea/locked\x00' +
        '4096\t./a/locked\x00' +
        '8192\t./a\x00' +
        '100\t./b\x00' +
        '9000\t.\x00' +
        // du -B1's allocated sizes follow the A record.
        'A\x00' +
        '4096\t./a/locked\x00' +
        '12288\t./a\x00' +
        '4096\t./b\x00' +
        '20480\t.\x00',
    );
    const m = parseDirSizes(out);
    assert.deepEqual(Object.fromEntries(m), {
      'a/locked': { size: 4096, partial: true, allocated: 4096, unreadableDirs: 1 },
      a: { size: 8192, partial: true, allocated: 12288, unreadableDirs: 1 },
      b: { size: 100, partial: false, allocated: 4096 },
      '': { size: 9000, partial: true, allocated: 20480, unreadableDirs: 1 },
    });
  });
});

describe('commands run against a real tree with local sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'findcmd-'));
  const root = join(dir, 'root');
  mkdirSync(root);
  mkdirSync(join(root, 'sub'));
  for (const n of HOSTILE) writeFileSync(join(root, 'sub', n), n);
  writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xff, 0x2e, 0x74])]), 'x');
  symlinkSync('sub', join(root, 'link'));
  const hostileDir = join(dir, "$(touch PWNED) it's; `x`");
  mkdirSync(hostileDir);
  writeFileSync(join(hostileDir, '-rf'), '');

  const run = (cmd: string) => spawnSync('sh', ['-c', cmd], { cwd: dir, maxBuffer: 1 << 26 });

  it('lists hostile names exactly, with lstat values, and runs nothing', () => {
    const r = run(buildWalkCommand(req(root), { maxRecords: 1000 }));
    assert.equal(exitFromStderr(r.stderr.toString()), 0, r.stderr.toString());
    const l = collectListing(new FindRecordParser(false).push(r.stdout), 1000);
    const names = l.records.map((x) => x.path.toString('latin1')).sort();
    const want = [
      'link',
      'sub',
      Buffer.from([0xff, 0x2e, 0x74]).toString('latin1'),
      ...HOSTILE.map((n) => `sub/${Buffer.from(n).toString('latin1')}`),
    ].sort();
    assert.deepEqual(names, want);
    for (const rec of l.records) {
      const st = lstatSync(Buffer.concat([Buffer.from(`${root}/`), rec.path]), { bigint: true });
      assert.equal(rec.size, Number(st.size));
      assert.equal(rec.mode, Number(st.mode));
      assert.equal(rec.inode, Number(st.ino));
      assert.equal(rec.dev, Number(st.dev));
      assert.equal(rec.nlink, Number(st.nlink));
      assert.equal(BigInt(rec.mtimeSec) * 1_000_000_000n + BigInt(rec.mtimeNsec), st.mtimeNs);
    }
    assert.deepEqual(l.records.find((x) => x.path.toString() === 'link')?.linkTarget, Buffer.from('sub'));
    assert.equal(existsSync(join(dir, 'PWNED')), false);
    assert.equal(existsSync(join(root, 'PWNED')), false);
  });

  it('a hostile root path, a symlinked root, and a missing one', () => {
    const r = run(buildWalkCommand(req(hostileDir), { maxRecords: 10 }));
    const l = collectListing(new FindRecordParser(false).push(r.stdout), 10);
    assert.deepEqual(
      l.records.map((x) => x.path.toString()),
      ['-rf'],
    );
    const viaLink = collectListing(
      new FindRecordParser(false).push(run(buildWalkCommand(req(join(root, 'link')), { maxRecords: 100 })).stdout),
      100,
    );
    assert.equal(viaLink.root?.type, 'dir');
    assert.equal(viaLink.records.length, HOSTILE.length);
    const missing = run(buildWalkCommand(req(join(root, 'nope')), { maxRecords: 10 }));
    assert.equal(missing.stdout.length, 0);
    assert.notEqual(exitFromStderr(missing.stderr.toString()), 0);
    assert.equal(existsSync(join(dir, 'PWNED')), false);
  });

  it('caps the records read remotely', () => {
    const r = run(buildWalkCommand(req(root), { maxRecords: 3 }));
    const items = new FindRecordParser(false).push(r.stdout);
    assert.equal(items.length, 3 + 2);
    assert.equal(collectListing(items, 3).capped, true);
  });

  it('caps a pre-ranked listing in awk itself', () => {
    // 40 directories pass awk on (they are rows of a walk of every type); a cap of 3 lets
    // through 5 records (the path itself, and one more to show the cap), then the trailer.
    const wide = join(dir, 'wide');
    for (let i = 0; i < 40; i++) mkdirSync(join(wide, `d${i}`), { recursive: true });
    const ranked = req(wide, { shape: 'ranked', order: 'size', topN: 1 });
    const parser = new FindRecordParser(false);
    const items = parser.push(run(buildWalkCommand(ranked, { maxRecords: 3, rank: true })).stdout);
    assert.equal(items.length, 3 + 2);
    assert.equal(collectListing(items, 3).capped, true);
    assert.ok(parser.dropped, 'awk ended with its trailer');
    const all = collectListing(
      new FindRecordParser(false).push(run(buildWalkCommand(ranked, { maxRecords: 100, rank: true })).stdout),
      100,
    );
    assert.equal(all.records.length, 40);
    assert.equal(all.capped, false);
  });

  for (const restat of ['files0', 'xargs'] as const)
    it(`stats hostile names again in the listing's own exec (${restat}), under a hostile path`, () => {
      // Inside its own `sh -c`, and given as it is to a POSIX login shell (dash, bash).
      const shells = [
        ['sh', false],
        ['dash', true],
        ['bash', true],
      ] as const;
      for (const [shell, posixShell] of shells)
        for (const top of [root, hostileDir]) {
          const ranked = req(top, { shape: 'ranked', order: 'size', topN: 100, types: ['file'] });
          const cmd = buildWalkCommand(ranked, { maxRecords: 1000, rank: true, stubs: true, restat, posixShell });
          const r = spawnSync(shell, ['-c', cmd], { cwd: dir, maxBuffer: 1 << 26 });
          const err = r.stderr.toString();
          assert.equal(exitFromStderr(err), 0, err);
          assert.equal(r.status, 0, err);
          const parser = new FindRecordParser(false, top);
          const l = collectListing(parser.push(r.stdout), 1000);
          assert.equal(parser.garbled, 0);
          assert.equal(l.stubs.length, 0);
          const files = l.records.filter((x) => x.type === 'file');
          const want =
            top === root
              ? [
                  Buffer.from([0xff, 0x2e, 0x74]).toString('latin1'),
                  ...HOSTILE.map((n) => `sub/${Buffer.from(n).toString('latin1')}`),
                ]
              : ['-rf'];
          assert.deepEqual(files.map((x) => x.path.toString('latin1')).sort(), want.sort());
          for (const rec of files) {
            const st = lstatSync(Buffer.concat([Buffer.from(`${top}/`), rec.path]), { bigint: true });
            assert.equal(rec.size, Number(st.size));
            assert.equal(rec.inode, Number(st.ino));
            assert.equal(BigInt(rec.mtimeSec) * 1_000_000_000n + BigInt(rec.mtimeNsec), st.mtimeNs);
          }
        }
      assert.equal(existsSync(join(dir, 'PWNED')), false);
      assert.equal(existsSync(join(root, 'PWNED')), false);
    });

  it('stat of hostile names', () => {
    for (const n of HOSTILE) {
      const p = join(root, 'sub', n);
      if (n.includes('\n')) {
        assert.throws(() => buildStatCommand(p, false, 5), { code: 'invalid_argument' });
        continue;
      }
      const r = run(buildStatCommand(p, false, 5));
      const info = parseStat(r.stdout, false);
      assert.ok(info, `${n}: ${r.stderr}`);
      assert.equal(info.entry.size, Buffer.byteLength(n));
      assert.equal(info.entry.type, 'file');
      assert.equal(info.owner, 'root');
    }
    assert.equal(existsSync(join(dir, 'PWNED')), false);
  });

  it('dir sizes', () => {
    const r = run(buildDirSizeCommand(req(root, { maxDepth: 1 }), { ionice: true }));
    const m = parseDirSizes(r.stdout);
    assert.ok(m.get('sub')!.size >= HOSTILE.join('').length);
    assert.ok(m.has(''));
    assert.equal(m.has('link'), false);
  });

  it('cleans up', () => {
    assert.ok(readdirSync(dir).length > 0);
    rmSync(dir, { recursive: true, force: true });
  });
});
