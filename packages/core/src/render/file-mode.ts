// The file type held in a POSIX st_mode, as lstat and SFTP attributes give it.
import type { EntryType } from '../domain/types.js';

/** The file-type bits of st_mode. */
const S_IFMT = 0o170000;

/** The entry type of a POSIX st_mode; 'unknown' for type bits no entry type has. */
export function typeFromMode(mode: number): EntryType {
  switch (mode & S_IFMT) {
    case 0o100000:
      return 'file';
    case 0o040000:
      return 'dir';
    case 0o120000:
      return 'symlink';
    case 0o010000:
      return 'fifo';
    case 0o140000:
      return 'socket';
    case 0o020000:
      return 'char';
    case 0o060000:
      return 'block';
    default:
      return 'unknown';
  }
}
