// Hung or starved? A file system call that has not returned for the timeout is a hung
// mount only if its thread is stuck in the kernel; on a machine short of CPU the same wait
// is a thread that was not scheduled (issue 18: a healthy /usr marked hung by 500 calls
// on 2 cores). The kernel tells them apart: /proc/self/task/TID/stat's state is R for a
// thread running or waiting for a CPU, D for one in an uninterruptible wait (a hung NFS or
// FUSE request), S for one sleeping; and /proc/self/task/TID/syscall names the system
// call a sleeping thread is in, so one waiting for work (futex, epoll...) is not taken for
// one blocked in a lookup (a FUSE request waits interruptibly at first: S in statx).
import * as fs from 'node:fs';

/** What a thread is doing: `blocked` in a system call that is not a wait for work, `waiting` for work, `running` (or runnable), or `unknown`. */
export type ThreadActivity = 'running' | 'blocked' | 'waiting' | 'unknown';

/** System calls a thread sleeps in while it waits for work (event loops, thread pools, GC helpers), by architecture. */
const WAIT_SYSCALLS: Readonly<Record<string, ReadonlySet<number>>> = {
  // futex, epoll_wait, epoll_pwait, epoll_pwait2, poll, ppoll, select, pselect6, nanosleep, clock_nanosleep, wait4, rt_sigtimedwait, pause, futex_waitv
  x64: new Set([202, 232, 281, 441, 7, 271, 23, 270, 35, 230, 61, 128, 34, 449]),
  // futex, epoll_pwait, epoll_pwait2, ppoll, pselect6, nanosleep, clock_nanosleep, wait4, rt_sigtimedwait, futex_waitv
  arm64: new Set([98, 22, 441, 73, 72, 101, 115, 260, 137, 449]),
};
const waits = WAIT_SYSCALLS[process.arch];

/** This thread's id once read (a module's state is per thread; a thread keeps its id), null: /proc did not say. */
let threadId: number | null | undefined;

/** The calling thread's id (from /proc/thread-self), or undefined where /proc does not say. */
export function ownThreadId(): number | undefined {
  // Read once per thread, not once per walk: the readlink was ~1 % of a small walk's worker time.
  if (threadId === undefined) {
    try {
      const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
      threadId = Number.isInteger(tid) && tid > 0 ? tid : null;
    } catch {
      threadId = null;
    }
  }
  return threadId ?? undefined;
}

/** The state letter of /proc/self/task/TID/stat (after the parenthesised name, which may hold spaces). */
export function parseStatState(stat: string): string | undefined {
  const close = stat.lastIndexOf(')');
  return close < 0 ? undefined : stat.charAt(close + 2) || undefined;
}

/** What thread `tid` of this process is doing now. */
export function threadActivity(tid: number): ThreadActivity {
  let state: string | undefined;
  try {
    state = parseStatState(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'latin1'));
  } catch {
    return 'unknown';
  }
  if (state === 'R') return 'running';
  if (state === 'D') return 'blocked';
  if (state !== 'S') return 'unknown';
  if (waits === undefined) return 'unknown';
  let nr: number;
  try {
    nr = Number(fs.readFileSync(`/proc/self/task/${tid}/syscall`, 'latin1').split(' ')[0]);
  } catch {
    return 'unknown';
  }
  // "running" (not a number): it woke up between the two reads.
  if (!Number.isInteger(nr)) return 'running';
  return waits.has(nr) ? 'waiting' : 'blocked';
}

/**
 * The threads of this process (but the caller) blocked in a system call now. For a call
 * raced against a timeout on libuv's pool, whose thread is not known: when none is, twice
 * in a row, the call waited in the pool's queue or for a CPU, and its mount is not to blame.
 * Undefined when /proc does not say.
 */
export function blockedThreads(): Set<number> | undefined {
  const self = ownThreadId();
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const blocked = new Set<number>();
  let known = false;
  for (const t of tids) {
    const tid = Number(t);
    if (tid === self) continue;
    const a = threadActivity(tid);
    if (a === 'blocked') blocked.add(tid);
    if (a !== 'unknown') known = true;
  }
  return known ? blocked : undefined;
}
