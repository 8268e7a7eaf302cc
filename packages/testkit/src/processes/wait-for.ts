// Waiting on a condition instead of sleeping a fixed time: a test goes on as soon as what it
// waits for holds, and fails naming it when it never does.

export interface WaitOptions {
  /** Give up after this (default 10 s). */
  timeoutMs?: number;
  /** Ask again after this (default 10 ms). */
  everyMs?: number;
  /** What is waited for, for the error; a function is asked at the failure, to say what was last seen. */
  what?: string | (() => string);
}

/** Resolves with the first truthy value `cond` returns; rejects after `timeoutMs`. */
export async function waitFor<T>(cond: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const everyMs = opts.everyMs ?? 10;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (Date.now() >= until) {
      const what = typeof opts.what === 'function' ? opts.what() : opts.what;
      throw new Error(`${what ?? 'condition'} not met within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
