import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { resolveWalkRequest, type WalkRequest } from '@fleetls/core';
import type { Mount } from '../fs/mounts.js';
import { jsOnlyReason, probeFind } from './route.js';

describe('which walks go to find', () => {
  before(async () => assert.equal(await probeFind(), true, 'GNU find and awk on this host'));
  const ranked = resolveWalkRequest({ path: '/data/a', shape: 'ranked', order: 'size' });
  const mounts = (...m: [string, string][]): Mount[] => m.map(([point, fsType]) => ({ point, fsType }));
  const local = mounts(['/', 'ext4'], ['/data', 'xfs'], ['/data/a/tmp', 'tmpfs'], ['/other', 'nfs4']);

  it('a ranked walk by size or mtime over local file systems', () => {
    assert.equal(jsOnlyReason(ranked, [], local), undefined);
    assert.equal(jsOnlyReason({ ...ranked, order: 'modified', direction: 'ascending' }, [], local), undefined);
  });

  it('not the other shapes, orders, globs or followed symlinks', () => {
    const others: Partial<WalkRequest>[] = [
      { shape: 'tree' },
      { order: 'name' },
      { include: ['*.c'] },
      { followSymlinks: true },
    ];
    for (const over of others)
      assert.equal(jsOnlyReason({ ...ranked, ...over }, [], local), 'shape', JSON.stringify(over));
  });

  it('not on or over a network, FUSE or pseudo file system, nor a hung mount', () => {
    assert.equal(jsOnlyReason({ ...ranked, path: '/other/x' }, [], local), 'nfs4 mount');
    assert.equal(
      jsOnlyReason(ranked, [], [...local, ...mounts(['/data/a/b/s', 'fuse.sshfs'])]),
      'fuse.sshfs mount below',
    );
    assert.equal(
      jsOnlyReason({ ...ranked, path: '/' }, [], [...local, ...mounts(['/proc', 'proc'])]),
      'nfs4 mount below',
    );
    assert.equal(jsOnlyReason(ranked, [], [...local, ...mounts(['/data/a/p', 'proc'])]), 'proc mount below');
    const hung = { point: '/data/a/b', exact: false, detail: 'hung' };
    assert.equal(jsOnlyReason(ranked, [hung], local), 'hung mount');
    assert.equal(jsOnlyReason(ranked, [{ ...hung, point: '/data' }], local), 'hung mount');
    assert.equal(jsOnlyReason(ranked, [{ ...hung, point: '/elsewhere' }], local), undefined);
  });
});
