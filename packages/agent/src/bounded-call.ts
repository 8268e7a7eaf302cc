// File system calls the main thread makes for a request (resolving its path, Stat) go
// to libuv's thread pool and are raced against the timeout: a hung mount fails the request
// with a clear status, and the event loop, health and every other request keep answering.
// A path on a mount already known to hang is refused before any call is made.
import { FleetError } from '@fleetls/core';
import { DEFAULT_FS_TIMEOUT_MS, type HungMounts, hungMounts } from './hung-mounts.js';

export interface FsGuard {
  timeoutMs: number;
  hung: HungMounts;
}

export const DEFAULT_FS_GUARD: FsGuard = { timeoutMs: DEFAULT_FS_TIMEOUT_MS, hung: hungMounts };

/** `call()` on `path`, or deadline_exceeded when its mount hangs (known, or not answering now). */
export async function bounded<T>(path: string, guard: FsGuard, call: () => Promise<T>): Promise<T> {
  const bytes = Buffer.from(path).toString('latin1');
  const known = guard.hung.covering(bytes);
  if (known) throw new FleetError('deadline_exceeded', `${path}: ${known.detail}`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The call resolves symlinks: only this path is marked, its target's mount is unknown.
      const mount = guard.hung.mark({ path: bytes, follows: true }, guard.timeoutMs);
      reject(new FleetError('deadline_exceeded', `${path}: ${mount.detail}`));
    }, guard.timeoutMs);
  });
  try {
    return await Promise.race([call(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
