// What every remote script shares: single-quoted arguments, paths fit for a command line,
// `timeout`'s seconds and status, and the marker that carries the script's exit status on
// stderr (an SSH exec's own status cannot tell a listing cut by `timeout` from one that failed).
import { FleetError } from '../errors/errors.js';

/** Marks the end of the remote script on stderr with find's exit status. */
export const EXIT_MARK = 'fleetls-exit:';

/** Quotes one argument for a POSIX shell: always single quotes, `'` as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A path that may be put on a remote command line: absolute, no NUL, no newline. */
export function validateRemotePath(path: string): string {
  if (typeof path !== 'string' || path === '') throw new FleetError('invalid_argument', 'path: must not be empty');
  if (!path.startsWith('/'))
    throw new FleetError('invalid_argument', `path: must be absolute, got ${JSON.stringify(path)}`);
  if (path.includes('\0')) throw new FleetError('invalid_argument', 'path: must not contain NUL');
  if (/[\n\r]/.test(path)) throw new FleetError('invalid_argument', 'path: must not contain a newline');
  // Absolute already means no leading '-'; kept explicit so no caller can relax the check above.
  if (path.startsWith('-')) throw new FleetError('invalid_argument', 'path: must not start with "-"');
  return path;
}

/** Whole seconds `timeout` gets for a deadline (at least 1). */
export function timeoutSeconds(deadlineMs: number): number {
  return Math.max(1, Math.ceil(deadlineMs / 1000));
}

/** The remote script's exit status from its stderr marker; undefined when it never got there. */
export function exitFromStderr(stderr: string): number | undefined {
  const i = stderr.lastIndexOf(EXIT_MARK);
  if (i < 0) return undefined;
  const n = Number.parseInt(stderr.slice(i + EXIT_MARK.length), 10);
  return Number.isFinite(n) ? n : undefined;
}

/** stderr without the exit marker, for messages. */
export function stderrMessage(stderr: string): string {
  const i = stderr.lastIndexOf(EXIT_MARK);
  return (i < 0 ? stderr : stderr.slice(0, i)).trim();
}

/** `timeout` exits 124, or 137 when its KILL reached its own process group. */
export function timedOut(exit: number | undefined): boolean {
  return exit === 124 || exit === 137;
}
