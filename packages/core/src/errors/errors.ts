// One error vocabulary for every process: a closed code enum, one error class, and
// `FleetError.from(unknown)` that normalises anything caught. Platform errors (errno,
// gRPC status, ssh2 levels, TLS) are translated to these codes by one table each
// (errors/errno.ts, errors/ssh.ts, errors/tls.ts here; gRPC's in @fleetls/proto wire/grpc-status.ts),
// used at each boundary.

import type { EntryErrorCode, HostStatusCode } from '../domain/types.js';
import type { Code } from './codes.js';
import { codeFromErrno, errnoOf, errnoRowOf } from './errno.js';

export { CODES, type Code } from './codes.js';

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
      // As AbortSignal.abort() and AbortSignal.timeout() name their reasons.
      const named =
        err.name === 'AbortError' ? 'cancelled' : err.name === 'TimeoutError' ? 'deadline_exceeded' : undefined;
      return new FleetError(codeFromErrno(errnoOf(err)) ?? named ?? fallback, err.message, { cause: err });
    }
    return new FleetError(fallback, String(err));
  }
}

/** Shorthand for the error every bad argument gets: it names the argument and its bounds. */
export function invalidArgument(message: string): FleetError {
  return new FleetError('invalid_argument', message);
}

/**
 * A failed file system call on `path`, named so by its caller → FleetError: "path does not
 * exist: P", "permission denied: P", "file name too long: P"; other errors keep Node's
 * message (it names the call and the path).
 */
export function fleetErrorAt(err: unknown, path: string, errno = errnoOf(err)): FleetError {
  if (err instanceof FleetError) return err;
  const row = errnoRowOf(errno);
  if (row?.entry || row?.code === 'invalid_argument')
    return new FleetError(row.code, `${row.says}: ${path}`, { cause: err });
  return FleetError.from(err);
}

/** A whole host's failure → its status row code. */
/**
 * The failure an entry's error row stands for when it is all a host answered (its root could
 * not be listed). TIMEOUT is a read that did not answer in time: deadline_exceeded, so the
 * host's status is `timeout`, as when its whole call runs out of time.
 */
const ENTRY_ERROR_CODE: Readonly<Record<EntryErrorCode, Code>> = {
  NOT_FOUND: 'not_found',
  DENIED: 'permission_denied',
  TIMEOUT: 'deadline_exceeded',
  ERROR: 'internal',
  PRUNED: 'internal',
};

export function codeFromEntryError(code: EntryErrorCode): Code {
  return ENTRY_ERROR_CODE[code];
}

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
