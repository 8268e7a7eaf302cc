import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confinedResolution, MAX_SYMLINKS, type NameKind, OutsideRoots } from './confined-resolution.js';

/** A file system as paths: a directory, a file, or a symlink's target. */
type Tree = Record<string, 'dir' | 'file' | { link: string }>;

const TREE: Tree = {
  '/srv': 'dir',
  '/srv/www': 'dir',
  '/srv/www/a': 'dir',
  '/srv/www/a/f': 'file',
  '/srv/www/up': { link: '../www/a' },
  '/srv/www/abs': { link: '/srv/www/a/f' },
  '/srv/www/out': { link: '/srv/other/x' },
  '/srv/www/dotdot': { link: '/root/NAME/..' },
  '/srv/www/rel-out': { link: '../../etc' },
  '/srv/www/loop': { link: 'loop' },
  '/srv/www/via-file': { link: 'a/f/..' },
  '/srv/other': 'dir',
  '/srv/other/x': 'file',
  '/data': { link: 'mnt/disk' },
  '/mnt': 'dir',
  '/mnt/disk': 'dir',
  '/mnt/disk/logs': 'dir',
  '/mnt/disk/logs/l': 'file',
};

/** Runs the resolution against TREE, recording every path looked up. */
function resolve(path: string, roots: string[], followFinal = true): { real: string; looked: string[] } {
  const looked: string[] = [];
  const cwd: string[] = [];
  const steps = confinedResolution(
    Buffer.from(path),
    roots.map((r) => Buffer.from(r)),
    followFinal,
  );
  let step = steps.next();
  while (!step.done) {
    const s = step.value;
    let answer: NameKind | undefined;
    if (s.op === 'up') cwd.pop();
    else if (s.op === 'root') cwd.length = 0;
    else {
      const p = `/${[...cwd, s.name.toString()].join('/')}`;
      looked.push(p);
      const node = TREE[p];
      if (node === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      if (node === 'dir') {
        cwd.push(s.name.toString());
        answer = 'dir';
      } else answer = node === 'file' ? 'other' : Buffer.from(node.link);
    }
    step = steps.next(answer);
  }
  return { real: step.value.toString(), looked };
}

const WWW = ['/srv/www'];

describe('confinedResolution', () => {
  it('follows links inside the roots, relative and absolute, `..` physically', () => {
    assert.equal(resolve('/srv/www/up/f', WWW).real, '/srv/www/a/f');
    assert.equal(resolve('/srv/www/abs', WWW).real, '/srv/www/a/f');
    assert.equal(resolve('/srv/www', WWW).real, '/srv/www');
  });

  it('leaves the last name unlooked-up unless asked to follow it', () => {
    const r = resolve('/srv/www/abs', WWW, false);
    assert.deepEqual(r, { real: '/srv/www/abs', looked: ['/srv', '/srv/www'] });
  });

  it('goes through the ancestors of a root and links on the way to it', () => {
    assert.equal(resolve('/data/logs/l', ['/data/logs', '/mnt/disk/logs']).real, '/mnt/disk/logs/l');
  });

  it('stops at the first outside name without looking it up', () => {
    for (const p of ['/srv/www/out', '/srv/www/dotdot', '/srv/www/rel-out']) {
      assert.throws(
        () => resolve(p, WWW),
        (e) => e instanceof OutsideRoots && !e.message.includes('/'),
        p,
      );
    }
    // What was looked up before the refusal: only the way to the root and the link in it.
    const seen: string[] = [];
    const steps = confinedResolution(Buffer.from('/srv/www/dotdot'), [Buffer.from('/srv/www')], true);
    let step = steps.next();
    const answers: Record<string, NameKind> = { srv: 'dir', www: 'dir', dotdot: Buffer.from('/root/NAME/..') };
    assert.throws(() => {
      while (!step.done) {
        const s = step.value;
        if (s.op === 'lookup') seen.push(s.name.toString());
        step = steps.next(s.op === 'lookup' ? answers[s.name.toString()] : undefined);
      }
    }, OutsideRoots);
    assert.deepEqual(seen, ['srv', 'www', 'dotdot']);
  });

  it('fails a file used as a directory with ENOTDIR, and a loop with ELOOP', () => {
    assert.throws(() => resolve('/srv/www/via-file', WWW), { code: 'ENOTDIR' });
    assert.throws(() => resolve('/srv/www/loop', WWW), { code: 'ELOOP' });
    assert.equal(MAX_SYMLINKS, 40);
  });
});
