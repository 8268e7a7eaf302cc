// errno → fleetls codes: the one table for every Node file system and socket call, used by
// the agent's policy, service and embedded backend, the SFTP source and the SSH client.

import type { EntryError, EntryErrorCode } from '../domain/types.js';
import type { Code } from './codes.js';
import { ownValue } from './own-key.js';

export interface ErrnoRow {
  code: Code;
  /** The error row a walk shows for it; absent: a generic ERROR row naming the errno. */
  entry?: EntryErrorCode;
  says: string;
}

const NOT_FOUND: ErrnoRow = { code: 'not_found', entry: 'NOT_FOUND', says: 'path does not exist' };
const DENIED: ErrnoRow = { code: 'permission_denied', entry: 'DENIED', says: 'permission denied' };

export const ERRNO_TABLE: Readonly<Record<string, ErrnoRow>> = {
  ENOENT: NOT_FOUND,
  ENOTDIR: NOT_FOUND,
  EACCES: DENIED,
  EPERM: DENIED,
  ETIMEDOUT: { code: 'deadline_exceeded', says: 'timed out' },
  ELOOP: { code: 'internal', says: 'too many levels of symbolic links' },
  EIO: { code: 'internal', says: 'input/output error' },
  // A request for a name longer than NAME_MAX is a bad argument, whatever the tree holds.
  ENAMETOOLONG: { code: 'invalid_argument', says: 'file name too long' },
  EMFILE: { code: 'internal', says: 'too many open files' },
  ENFILE: { code: 'internal', says: 'too many open files in the system' },
  ENOMEM: { code: 'internal', says: 'out of memory' },
  // Sockets: the peer is not there (a host failure, status `unreachable`).
  ECONNREFUSED: { code: 'unavailable', says: 'connection refused' },
  ECONNRESET: { code: 'unavailable', says: 'connection reset by peer' },
  ECONNABORTED: { code: 'unavailable', says: 'connection aborted' },
  EPIPE: { code: 'unavailable', says: 'connection closed by peer' },
  EHOSTUNREACH: { code: 'unavailable', says: 'no route to host' },
  ENETUNREACH: { code: 'unavailable', says: 'network is unreachable' },
  EADDRNOTAVAIL: { code: 'unavailable', says: 'address not available' },
  ENOTFOUND: { code: 'unavailable', says: 'host name not found' },
  EAI_AGAIN: { code: 'unavailable', says: 'host name lookup failed' },
};

/**
 * strerror(3) texts → errno, for a remote tool's message (GNU find and stat over SSH say
 * "find: 'x': Permission denied"): the message's errno goes through the table above.
 */
const STRERROR_ERRNO: readonly (readonly [string, string])[] = [
  ['No such file or directory', 'ENOENT'],
  ['Not a directory', 'ENOTDIR'],
  ['Permission denied', 'EACCES'],
];

/** The errno a remote tool's message names, if it names one of STRERROR_ERRNO's. */
export function errnoFromMessage(message: string): string | undefined {
  return STRERROR_ERRNO.find(([text]) => message.includes(text))?.[1];
}

/** The errno string of a caught error, if it has one. */
export function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The table's row for `errno` (own keys only: never Object.prototype's). */
export function errnoRowOf(errno: string | undefined): ErrnoRow | undefined {
  return ownValue(ERRNO_TABLE, errno);
}

/** errno of a failed file system or socket call → code; undefined when the table does not know it. */
export function codeFromErrno(errno: string | undefined): Code | undefined {
  return errnoRowOf(errno)?.code;
}

/** errno of a failed lstat/readdir inside a walk → the entry-level error row. */
export function entryErrorFromErrno(errno: string | undefined, detail?: string): EntryError {
  const entry = errnoRowOf(errno);
  if (entry?.entry) return { code: entry.entry, detail: detail ?? entry.says };
  return { code: 'ERROR', detail: detail ?? (errno ? errno : 'unknown error') };
}
