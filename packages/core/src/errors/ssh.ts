// ssh2 failures → fleetls codes: ssh2 tags each error with the stage that failed
// (`err.level`), and SFTP answers carry a status number (draft-ietf-secsh-filexfer §9.1).

import type { Code } from './codes.js';
import { codeFromErrno } from './errno.js';
import { ownValue } from './own-key.js';

export const SSH_LEVEL_TABLE: Readonly<Record<string, Code>> = {
  'client-socket': 'unavailable',
  'client-dns': 'unavailable',
  'client-timeout': 'deadline_exceeded',
  'client-authentication': 'unauthenticated',
  // The ssh-agent (SSH_AUTH_SOCK) failed to sign: we could not authenticate.
  agent: 'unauthenticated',
  // No algorithm in common, or the connection dropped before the handshake.
  handshake: 'unavailable',
  protocol: 'unavailable',
};

/**
 * ssh2 throws these two without a level, when a call is made on a connection that is gone
 * (lib/client.js); matched exactly, never by pattern.
 */
const LEVELLESS: Readonly<Record<string, Code>> = {
  'Not connected': 'unavailable',
  'No response from server': 'unavailable',
};

/** An ssh2 error → code: its socket errno first, then its level; undefined if neither says. */
export function codeFromSshError(err: { code?: unknown; level?: unknown; message?: unknown }): Code | undefined {
  return (
    codeFromErrno(typeof err.code === 'string' ? err.code : undefined) ??
    (typeof err.level === 'string' ? ownValue(SSH_LEVEL_TABLE, err.level) : undefined) ??
    (typeof err.level !== 'string' && typeof err.message === 'string' ? ownValue(LEVELLESS, err.message) : undefined)
  );
}

/**
 * What a failed call on an open ssh2 connection means for a retry: `gone`, the connection
 * died under it (one of LEVELLESS: reconnect once); `refused`, the server refused the
 * channel (ssh2's "(SSH) Channel open failure: …", with the server's reason code: MaxSessions
 * reached, or a forwarding refused). Matched exactly, never by pattern.
 */
export function sshCallFailure(err: unknown): 'gone' | 'refused' | undefined {
  const e = err as { level?: unknown; message?: unknown; reason?: unknown } | undefined;
  if (typeof e?.message !== 'string') return undefined;
  if (typeof e.level !== 'string' && ownValue(LEVELLESS, e.message) !== undefined) return 'gone';
  if (e.message.startsWith(CHANNEL_OPEN_FAILURE) && 'reason' in e) return 'refused';
  return undefined;
}

/** ssh2's message prefix of a refused channel open (lib/utils.js onChannelOpenFailure). */
const CHANNEL_OPEN_FAILURE = '(SSH) Channel open failure: ';

/** SFTP status numbers → errno, so that file errors go through the one errno table. */
export const SFTP_STATUS_ERRNO: Readonly<Record<string, string>> = {
  2: 'ENOENT', // SSH_FX_NO_SUCH_FILE
  3: 'EACCES', // SSH_FX_PERMISSION_DENIED
  6: 'ECONNRESET', // SSH_FX_NO_CONNECTION
  7: 'ECONNRESET', // SSH_FX_CONNECTION_LOST
};

export function errnoFromSftp(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? ownValue(SFTP_STATUS_ERRNO, String(code)) : undefined;
}
