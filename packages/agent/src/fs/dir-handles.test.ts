// DirHandles keeps the last directory's descriptor beside its LRU map: every answer must
// still be a descriptor of that very directory, open, through evictions and after a
// directory's name was swapped for another directory's.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { openNoFollow } from './beneath.js';
import { DirHandles, MAX_OPEN_DIRS } from './dir-handles.js';

let root: string;
const COUNT = MAX_OPEN_DIRS * 2 + 3;
const name = (i: number) => `d${i}`;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-handles-')));
  for (let i = 0; i < COUNT; i++) fs.mkdirSync(path.join(root, name(i), 'sub'), { recursive: true });
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The inode the descriptor is open on (throws EBADF when it is closed). */
const inoOfFd = (fd: number) => fs.fstatSync(fd).ino;
const inoOf = (rel: string) => fs.lstatSync(path.join(root, rel)).ino;

it('answers each directory with an open descriptor of it, the same Buffer asked in a row or after evictions', () => {
  const handles = new DirHandles(openNoFollow(Buffer.from(root), true));
  try {
    const rels = Array.from({ length: COUNT }, (_, i) => Buffer.from(`${name(i)}/sub`));
    for (let round = 0; round < 3; round++) {
      for (const [i, rel] of rels.entries()) {
        // Entries of one directory ask for it with the same Buffer, many times in a row.
        for (let k = 0; k < 3; k++) assert.equal(inoOfFd(handles.fdOf(rel)), inoOf(`${name(i)}/sub`));
      }
      // Back to the first: its descriptor was evicted (more than MAX_OPEN_DIRS since), and the
      // same Buffer object must not get the number it had.
      assert.equal(inoOfFd(handles.fdOf(rels[0])), inoOf(`${name(0)}/sub`));
      // Alternating two directories, each evicted in between by a third's parents.
      assert.equal(inoOfFd(handles.fdOf(rels[COUNT - 1])), inoOf(`${name(COUNT - 1)}/sub`));
      assert.equal(inoOfFd(handles.fdOf(rels[0])), inoOf(`${name(0)}/sub`));
    }
  } finally {
    handles.close();
  }
});

it('a name swapped for another directory after its descriptor was evicted opens what the name is now', () => {
  const handles = new DirHandles(openNoFollow(Buffer.from(root), true));
  try {
    const a = Buffer.from(name(1));
    const before = inoOf(name(1));
    assert.equal(inoOfFd(handles.fdOf(a)), before);
    // Evict it: every other directory opened since.
    for (let i = 2; i < COUNT; i++) handles.fdOf(Buffer.from(name(i)));
    fs.renameSync(path.join(root, name(1)), path.join(root, 'moved'));
    fs.mkdirSync(path.join(root, name(1)));
    const now = inoOfFd(handles.fdOf(a));
    assert.notEqual(now, before);
    assert.equal(now, inoOf(name(1)));
  } finally {
    handles.close();
  }
});
