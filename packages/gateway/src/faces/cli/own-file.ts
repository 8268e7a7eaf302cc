// A file the CLI writes into a directory an operator named (pki's keys and certificates, nats'
// seeds and configuration): never through a symlink, nor into a file linked elsewhere too
// (issue 35, I1): a link planted there would have had a key written over its target and the
// target chmodded. Opened O_NOFOLLOW, checked by descriptor, then truncated and written.
import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { FleetError } from '@fleetls/core';

export interface OwnFile {
  /** The mode a new file is made with. */
  mode: number;
  /** Also set `mode` on a file that was there (pki: a key is 0600 whatever it was). */
  chmod?: boolean;
  /** Only a new file: one that is there is left alone (EEXIST is thrown). */
  fresh?: boolean;
  /** The refusal's words around why: `${why}` → `pki: refusing to write F: ${why} (…)`. */
  refusal(why: string): string;
}

export function writeOwnFile(file: string, text: string, own: OwnFile): void {
  const { O_WRONLY, O_CREAT, O_NOFOLLOW, O_EXCL } = constants;
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_NOFOLLOW | (own.fresh ? O_EXCL : 0), own.mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    throw new FleetError('permission_denied', own.refusal('it is a symlink'));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink > 1) {
      const what = st.isFile() ? `a file with ${st.nlink} links` : 'not a regular file';
      throw new FleetError('permission_denied', own.refusal(`it is ${what}`));
    }
    ftruncateSync(fd, 0);
    if (own.chmod) fchmodSync(fd, own.mode);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
