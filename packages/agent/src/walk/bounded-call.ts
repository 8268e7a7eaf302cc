// File system calls the main thread makes for a request (resolving its path, Stat) go
// to libuv's thread pool and are raced against the timeout: a hung mount fails the request
// with a clear status, and the event loop, health and every other request keep answering.
// A path on a mount already known to hang is refused before any call is made.
import { FleetError } from '@fleetls/core';
import { DEFAULT_FS_TIMEOUT_MS, HungMounts } from './hung-mounts.js';
import { blockedThreads } from './thread-state.js';

export interface FsGuard {
  timeoutMs: number;
  hung: HungMounts;
}

/** A guard of its own (default bound, hung mounts remembered by it alone), for a caller that passes none. */
export function defaultFsGuard(): FsGuard {
  return { timeoutMs: DEFAULT_FS_TIMEOUT_MS, hung: new HungMounts() };
}

/** How long a second look waits before it confirms that a thread is still blocked. */
const CONFIRM_MS = 100;
/**
 * How long a call may wait in all while no thread is blocked in the kernel (the pool's
 * queue, or a machine short of CPU) before it fails without marking its mount: past the
 * longest deadline a caller gives (the gateway's call deadline is 60 s).
 */
const MAX_STARVED_MS = 120_000;

/** Threads blocked now and still blocked a moment later; undefined when /proc does not say. */
async function stillBlocked(): Promise<boolean | undefined> {
  const first = blockedThreads();
  if (first === undefined) return undefined;
  if (first.size === 0) return false;
  await new Promise((r) => setTimeout(r, CONFIRM_MS));
  const second = blockedThreads();
  if (second === undefined) return undefined;
  for (const tid of first) if (second.has(tid)) return true;
  return false;
}

/**
 * `call()` on `path`, or deadline_exceeded when its mount hangs (known, or not answering
 * now). The call runs on libuv's pool, where it may also wait behind others or for a CPU:
 * at the timeout, its mount is marked hung only if a thread of the process is blocked in
 * a system call (walk/thread-state.ts); if none is, the wait goes on, and a call that still has
 * not answered after MAX_STARVED_MS fails without marking the mount.
 */
export async function bounded<T>(path: string, guard: FsGuard, call: () => Promise<T>): Promise<T> {
  const bytes = Buffer.from(path).toString('latin1');
  const known = guard.hung.covering(bytes);
  if (known) throw new FleetError('deadline_exceeded', `${path}: ${known.detail}`);
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const timeout = new Promise<never>((_, reject) => {
    let waited = 0;
    const check = async () => {
      waited++;
      const blocked = await stillBlocked();
      if (settled) return;
      if (blocked === false && waited * guard.timeoutMs < MAX_STARVED_MS) {
        timer = setTimeout(check, guard.timeoutMs);
        return;
      }
      if (blocked === false) {
        reject(
          new FleetError(
            'deadline_exceeded',
            `${path}: no answer within ${waited * guard.timeoutMs} ms, with no file system call blocked: ` +
              'the agent is short of CPU or busy (its mount is not marked hung)',
          ),
        );
        return;
      }
      // The call resolves symlinks: only this path is marked, its target's mount is unknown.
      const mount = guard.hung.mark({ path: bytes, follows: true }, guard.timeoutMs);
      reject(new FleetError('deadline_exceeded', `${path}: ${mount.detail}`));
    };
    timer = setTimeout(check, guard.timeoutMs);
  });
  // The loser of the race must not be an unhandled rejection.
  timeout.catch(() => {});
  try {
    return await Promise.race([call(), timeout]);
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}
