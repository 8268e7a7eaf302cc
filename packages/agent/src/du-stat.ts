// What directory sizing (du-apparent.ts) reads of one entry: lstat of a name in its open
// directory, by the native module where it is loaded (fsat.ts), else through the magic link.
import * as fs from 'node:fs';
import { atFd } from './beneath.js';
import { FIELDS, lstatAt } from './fsat.js';

/** What sizing reads of an entry's lstat. */
export interface DuStat {
  dev: number;
  ino: number;
  nlink: number;
  size: number;
  blocks: number;
  dir: boolean;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

/** lstat of `name` in directory `fd`: by fstatat where the native module is loaded, else through the magic link. */
export function duStat(fd: number, name: Buffer): DuStat {
  const f = lstatAt(fd, name);
  if (f !== undefined)
    return {
      dev: f[FIELDS.dev],
      ino: f[FIELDS.ino],
      nlink: f[FIELDS.nlink],
      size: f[FIELDS.size],
      blocks: f[FIELDS.blocks],
      dir: (f[FIELDS.mode] & S_IFMT) === S_IFDIR,
    };
  const st = fs.lstatSync(atFd(fd, name));
  return { dev: st.dev, ino: st.ino, nlink: st.nlink, size: st.size, blocks: st.blocks, dir: st.isDirectory() };
}
