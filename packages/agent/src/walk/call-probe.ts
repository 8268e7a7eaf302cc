// Which file system call a walk worker is in, shared with the main thread: the worker
// writes the path before each call and bumps a counter after it; the main thread samples
// the pair and calls a worker stuck when one call outlasts the timeout and the worker's
// thread is blocked in the kernel (walk/thread-state.ts), not merely waiting for a CPU. A thread
// blocked in a system call on a hung mount cannot be interrupted; it can only be noticed.
import { ownThreadId, threadActivity } from './thread-state.js';

export const PROBE_PATH_MAX = 4096;
/** The probe's Int32 slots, then its path from this byte. */
const HEADER = 32;
export const PROBE_BYTES = HEADER + PROBE_PATH_MAX;

/** The slots of the probe's header (fsat.c writes SEQ and LEN as PROBE_SEQ and PROBE_LEN). */
const SLOT = {
  /** 1 while the worker is in a call. */
  STATE: 0,
  /** Moves on after each call (and each entry the native directory read stats): a sample that sees it move saw progress. */
  SEQ: 1,
  /** The path's length in bytes. */
  LEN: 2,
  /** 1: the call resolves symlinks. */
  FOLLOWS: 3,
  /** The worker thread's id, for its state in /proc (0: unknown). */
  TID: 4,
} as const;

/** Samples in a row that must find the thread blocked before a call counts as stuck. */
const BLOCKED_SAMPLES = 2;

/** Worker side: brackets each call. */
export class CallProbe {
  private readonly ctl: Int32Array;
  private readonly path: Uint8Array;
  /** The whole probe, for the native module's directory read to name each entry it stats (fsat.c readPacked). */
  readonly bytes: Uint8Array;

  constructor(shared: SharedArrayBuffer) {
    this.bytes = new Uint8Array(shared, 0, PROBE_BYTES);
    this.ctl = new Int32Array(shared, 0, HEADER / 4);
    this.path = new Uint8Array(shared, HEADER, PROBE_PATH_MAX);
    Atomics.store(this.ctl, SLOT.TID, ownThreadId() ?? 0);
  }

  /**
   * Before a call on `p`; `follows`: the call resolves symlinks (realpath, stat), so it may
   * reach another mount. Returns the bytes of `p` the probe holds (it is cut at PROBE_PATH_MAX).
   */
  enter(p: Uint8Array, follows = false): number {
    const n = Math.min(p.length, PROBE_PATH_MAX);
    this.path.set(n === p.length ? p : p.subarray(0, n));
    this.ctl[SLOT.LEN] = n;
    this.ctl[SLOT.FOLLOWS] = follows ? 1 : 0;
    Atomics.store(this.ctl, SLOT.STATE, 1);
    return n;
  }

  leave(): void {
    Atomics.add(this.ctl, SLOT.SEQ, 1);
    Atomics.store(this.ctl, SLOT.STATE, 0);
  }
}

export interface StuckCall {
  /** latin1 string of the path's bytes (cut at PROBE_PATH_MAX). */
  path: string;
  follows: boolean;
}

/** Main-thread side: one per running worker, sampled by a timer. */
export class CallWatch {
  private readonly ctl: Int32Array;
  private readonly path: Uint8Array;
  private seq = -1;
  private since: number | undefined;
  private blocked = 0;

  constructor(readonly shared: SharedArrayBuffer = new SharedArrayBuffer(PROBE_BYTES)) {
    this.ctl = new Int32Array(shared, 0, HEADER / 4);
    this.path = new Uint8Array(shared, HEADER, PROBE_PATH_MAX);
  }

  /** The call in progress when it has not returned for `timeoutMs` of samples, else undefined. */
  sample(now: number, timeoutMs: number): StuckCall | undefined {
    if (Atomics.load(this.ctl, SLOT.STATE) === 0) {
      this.since = undefined;
      return undefined;
    }
    const seq = Atomics.load(this.ctl, SLOT.SEQ);
    if (this.since === undefined || seq !== this.seq) {
      this.seq = seq;
      this.since = now;
      this.blocked = 0;
      return undefined;
    }
    if (now - this.since < timeoutMs) return undefined;
    // Hung or starved: a thread running, runnable or waiting for work is not stuck in the
    // kernel, however long its call has taken (where /proc does not say, the time decides).
    const tid = Atomics.load(this.ctl, SLOT.TID);
    const activity = tid > 0 ? threadActivity(tid) : 'unknown';
    if (activity === 'running' || activity === 'waiting') {
      this.blocked = 0;
      return undefined;
    }
    if (activity === 'blocked' && ++this.blocked < BLOCKED_SAMPLES) return undefined;
    const n = this.ctl[SLOT.LEN];
    return { path: Buffer.from(this.path.subarray(0, n)).toString('latin1'), follows: this.ctl[SLOT.FOLLOWS] === 1 };
  }
}

/** `fn()` bracketed by the probe on `path`, when there is one (brackets never nest: one call at a time). */
export function watched<T>(probe: CallProbe | undefined, path: Uint8Array, fn: () => T, follows = false): T {
  if (probe === undefined) return fn();
  probe.enter(path, follows);
  try {
    return fn();
  } finally {
    probe.leave();
  }
}
