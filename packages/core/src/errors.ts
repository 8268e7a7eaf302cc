// One error vocabulary for every process: a closed code enum, one error class, and
// `FleetError.from(unknown)` that normalises anything caught. Platform errors (errno,
// gRPC status, ssh2 levels) are translated to these codes once, at each boundary.
import type { EntryError, HostStatusCode } from './types.js';

export const CODES = [
  'invalid_argument',
  'permission_denied',
  'not_found',
  'unauthenticated',
  'unavailable',
  'deadline_exceeded',
  'cancelled',
  'resource_exhausted',
  'internal',
] as const;
export type Code = (typeof CODES)[number];

export class FleetError extends Error {
  override name = 'FleetError';
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static from(err: unknown, fallback: Code = 'internal'): FleetError {
    if (err instanceof FleetError) return err;
    if (err instanceof Error) {
      const code = codeFromErrno((err as NodeJS.ErrnoException).code);
      return new FleetError(code ?? fallback, err.message, { cause: err });
    }
    return new FleetError(fallback, String(err));
  }
}

/** Shorthand for the error every bad argument gets: it names the argument and its bounds. */
export function invalidArgument(message: string): FleetError {
  return new FleetError('invalid_argument', message);
}

/** errno of a failed file system call → code; undefined when it is not a file system error. */
export function codeFromErrno(errno: string | undefined): Code | undefined {
  switch (errno) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'not_found';
    case 'EACCES':
    case 'EPERM':
      return 'permission_denied';
    case 'ETIMEDOUT':
      return 'deadline_exceeded';
    case 'ELOOP':
    case 'EIO':
    case 'ENAMETOOLONG':
    case 'EMFILE':
    case 'ENFILE':
    case 'ENOMEM':
      return 'internal';
    default:
      return undefined;
  }
}

/** errno of a failed lstat/readdir inside a walk → the entry-level error row. */
export function entryErrorFromErrno(errno: string | undefined, detail?: string): EntryError {
  switch (errno) {
    case 'ENOENT':
    case 'ENOTDIR':
      return { code: 'NOT_FOUND', detail: detail ?? 'path does not exist' };
    case 'EACCES':
    case 'EPERM':
      return { code: 'DENIED', detail: detail ?? 'permission denied' };
    default:
      return { code: 'ERROR', detail: detail ?? (errno ? errno : 'unknown error') };
  }
}

/** A whole host's failure → its status row code. */
export function hostStatusFromCode(code: Code): HostStatusCode {
  switch (code) {
    case 'unavailable':
      return 'unreachable';
    case 'deadline_exceeded':
      return 'timeout';
    case 'unauthenticated':
      return 'auth';
    case 'permission_denied':
      return 'denied';
    case 'not_found':
      return 'not_found';
    default:
      return 'error';
  }
}
