// What directory sizing (du/apparent.ts) reads of one entry: lstat of a name in its open
// directory, by the native module where it is loaded (fsat.ts), else through the magic link.
import * as fs from 'node:fs';
import { typeFromMode } from '@fleetls/core';
import { atFd } from '../fs/beneath.js';
import { FIELDS, lstatAt } from '../fs/fsat.js';

/** What sizing reads of an entry's lstat. */
export interface DuStat {
  dev: number;
  ino: number;
  nlink: number;
  size: number;
  blocks: number;
  dir: boolean;
}

/** lstat of `name` in directory `fd`: by the native module where it is loaded, else through the magic link. */
export function duStat(fd: number, name: Buffer): DuStat {
  const f = lstatAt(fd, name);
  if (f !== undefined)
    return {
      dev: f[FIELDS.dev],
      ino: f[FIELDS.ino],
      nlink: f[FIELDS.nlink],
      size: f[FIELDS.size],
      blocks: f[FIELDS.blocks],
      dir: typeFromMode(f[FIELDS.mode]) === 'dir',
    };
  const st = fs.lstatSync(atFd(fd, name));
  return { dev: st.dev, ino: st.ino, nlink: st.nlink, size: st.size, blocks: st.blocks, dir: st.isDirectory() };
}
