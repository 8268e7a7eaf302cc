import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { bindMountedOver, freePort, launch, makeTree, range, run, waitFor } from './index.js';

describe('makeTree', () => {
  const base = mkdtempSync(join(tmpdir(), 'fleetls-testkit-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  it('makes files, sized and dated files, directories, links and non-UTF-8 names', () => {
    const root = makeTree(join(base, 't'), [
      ['a/b/deep.txt', 'deep'],
      ['sparse.img', { size: 5 * 1024 ** 3, mtime: 1_600_000_000 }],
      ['empty/', { dir: true }],
      ['link', { link: 'a' }],
      [Buffer.from('bad-\xff.txt', 'latin1'), 'b'],
      ...range(
        3,
        (i) => `big/f${i}`,
        (i) => 'x'.repeat(i),
      ),
    ]);
    assert.equal(readFileSync(join(root, 'a/b/deep.txt'), 'utf8'), 'deep');
    const sparse = lstatSync(join(root, 'sparse.img'));
    assert.equal(sparse.size, 5 * 1024 ** 3);
    assert.equal(sparse.mtimeMs, 1_600_000_000_000);
    assert.ok(lstatSync(join(root, 'empty')).isDirectory());
    assert.equal(readlinkSync(join(root, 'link')), 'a');
    assert.deepEqual(readdirSync(join(root, 'big')).sort(), ['f0', 'f1', 'f2']);
    assert.equal(lstatSync(join(root, 'big/f2')).size, 2);
    assert.ok(readdirSync(root, { encoding: 'buffer' }).some((n) => n.equals(Buffer.from('bad-\xff.txt', 'latin1'))));
  });

  it('makes hard links and fifos, gives bytes a size, and dates every entry the spec leaves undated', () => {
    let n = 0;
    const root = makeTree(
      join(base, 'h'),
      [
        ['d/a', 'aa'],
        ['d/a-again', { hardLink: 'd/a' }],
        ['pipe', { fifo: true, mode: 0o600 }],
        ['grown', { data: 'boot', size: 4096 }],
        ['dated', { data: 'x', mtime: 1_700_000_000.5 }],
        ['to-d', { link: 'd', mtime: 1_500_000_000 }],
      ],
      { mtime: () => 1_600_000_000 + n++ },
    );
    assert.equal(lstatSync(join(root, 'd/a')).ino, lstatSync(join(root, 'd/a-again')).ino);
    assert.equal(lstatSync(join(root, 'd/a')).nlink, 2);
    assert.ok(lstatSync(join(root, 'pipe')).isFIFO());
    assert.equal(lstatSync(join(root, 'pipe')).mode & 0o777, 0o600);
    assert.equal(readFileSync(join(root, 'grown'), 'latin1'), `boot${'\0'.repeat(4092)}`);
    assert.equal(lstatSync(join(root, 'dated')).mtimeMs, 1_700_000_000_500);
    assert.equal(lstatSync(join(root, 'to-d')).mtimeMs, 1_500_000_000_000);
    // The root, then d (made on the way), then d/a, then pipe and grown, in the order made.
    assert.equal(lstatSync(root).mtimeMs, 1_600_000_000_000);
    assert.equal(lstatSync(join(root, 'd')).mtimeMs, 1_600_000_001_000);
    assert.equal(lstatSync(join(root, 'grown')).mtimeMs, 1_600_000_004_000);
  });

  // Needs root, as the suite does (chown).
  it('gives an entry its own owner over the tree owner', () => {
    const root = makeTree(
      join(base, 'o'),
      { 'a/mine': 'm', 'a/roots': { data: 'r', uid: 0, gid: 0 } },
      { uid: 65534, gid: 65534 },
    );
    assert.equal(lstatSync(root).uid, 65534);
    assert.equal(lstatSync(join(root, 'a')).uid, 65534);
    assert.equal(lstatSync(join(root, 'a/mine')).gid, 65534);
    assert.equal(lstatSync(join(root, 'a/roots')).uid, 0);
  });

  it('applies modes last, so a closed directory keeps what the spec put in it', () => {
    const root = makeTree(join(base, 'm'), { 'locked/secret': 's', 'locked/': { dir: true, mode: 0o700 } });
    assert.equal(lstatSync(join(root, 'locked')).mode & 0o777, 0o700);
    assert.equal(readFileSync(join(root, 'locked/secret'), 'utf8'), 's');
  });
});

describe('waitFor', () => {
  it('resolves with the first truthy value', async () => {
    let n = 0;
    assert.equal(await waitFor(() => (++n >= 3 ? n : 0), { everyMs: 1 }), 3);
  });
  it('fails naming what it waited for', async () => {
    await assert.rejects(
      waitFor(() => false, { timeoutMs: 30, what: 'the sshd log line' }),
      /the sshd log line not met within 30 ms/,
    );
  });
  it('asks a `what` function at the failure, for what was last seen', async () => {
    let last = 0;
    await assert.rejects(
      waitFor(() => ++last > 1e9, { timeoutMs: 30, everyMs: 1, what: () => `more than 1e9 (last ${last})` }),
      /more than 1e9 \(last \d+\) not met within 30 ms/,
    );
  });
});

describe('launch and run', () => {
  const node = (script: string): [string, string[]] => [process.execPath, ['-e', script]];

  it('waits for a line on stderr and gives its first group', async () => {
    const p = launch(
      ...node(
        "console.error('starting'); setTimeout(() => console.error('ready at 1234'), 50); setInterval(() => {}, 1000)",
      ),
    );
    assert.equal(await p.waitFor(/ready at (\d+)/), '1234');
    const seen: string[] = [];
    p.stderrLines((l) => seen.push(l));
    assert.deepEqual(seen, ['starting', 'ready at 1234']);
    assert.equal(await p.stop('SIGKILL'), null);
  });

  it('kills a process that does not say it is ready in time', async () => {
    const p = launch(...node('setInterval(() => {}, 1000)'), { name: 'silent' });
    await assert.rejects(p.waitFor(/ready/, 200), /silent did not print \/ready\/ within 200 ms \(killed\)/);
    assert.equal(p.child.signalCode, 'SIGKILL');
  });

  it('rejects the wait when the process exits first', async () => {
    const p = launch(...node("console.error('no'); process.exit(3)"), { name: 'quitter' });
    await assert.rejects(p.waitFor(/ready/), /quitter exited \(3\) before printing/);
  });

  it('runs to the end with every byte of output', async () => {
    const r = await run(
      ...node("process.stdout.write('x'.repeat(200000)); process.stderr.write('e'); process.exitCode = 2"),
    );
    assert.deepEqual([r.code, r.stdout.length, r.stderr], [2, 200000, 'e']);
  });
});

describe('freePort', () => {
  it('gives a loopback port whose connections are refused', async () => {
    const port = await freePort();
    const code = await new Promise<string | undefined>((resolve) =>
      connect(port, '127.0.0.1')
        .once('connect', () => resolve('connected'))
        .once('error', (e: NodeJS.ErrnoException) => resolve(e.code)),
    );
    assert.equal(code, 'ECONNREFUSED');
  });
});

describe('bindMountedOver', () => {
  it('shows the command the other tree at the path, and the rest of the machine the original', {
    skip: process.getuid?.() !== 0 && 'mounting needs root',
  }, async () => {
    const base = mkdtempSync(join(tmpdir(), 'fleetls-testkit-mount-'));
    try {
      const path = makeTree(join(base, 'path'), { f: 'original' });
      const other = makeTree(join(base, 'other'), { f: 'other' });
      const [command, ...args] = [...bindMountedOver(other, path), 'cat', join(path, 'f')];
      const r = await run(command, args);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'other', '']);
      assert.equal(readFileSync(join(path, 'f'), 'utf8'), 'original');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
