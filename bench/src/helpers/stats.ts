// Medians of several runs after a warm-up, with fewer runs when one call is slow.

export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The q-quantile (0..1) of xs, nearest rank. */
export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export interface Sampled<T> {
  /** Median of `ms` over the runs (warm-up excluded). */
  ms: number;
  runs: number;
  /** The run whose time is the median's (or the lower middle one). */
  sample: T;
  all: T[];
}

/**
 * One warm-up, then `runs` runs (at most 3 if the warm-up took over 3 s, 1 over 15 s).
 * `fn` returns its own `ms` so setup outside the timed part is not counted.
 */
export async function sampled<T extends { ms: number }>(fn: () => Promise<T>, runs = 5): Promise<Sampled<T>> {
  const warm = await fn();
  const n = warm.ms > 15_000 ? 1 : warm.ms > 3_000 ? Math.min(3, runs) : runs;
  const all: T[] = [];
  for (let i = 0; i < n; i++) all.push(await fn());
  const sorted = [...all].sort((a, b) => a.ms - b.ms);
  return { ms: median(all.map((r) => r.ms)), runs: n, sample: sorted[(sorted.length - 1) >> 1], all };
}

export const fmtMs = (ms: number) =>
  !Number.isFinite(ms)
    ? '–'
    : ms >= 10_000
      ? `${(ms / 1000).toFixed(1)} s`
      : ms >= 100
        ? `${ms.toFixed(0)} ms`
        : `${ms.toFixed(1)} ms`;
export const fmtRate = (r: number) =>
  !Number.isFinite(r)
    ? '–'
    : r >= 1e6
      ? `${(r / 1e6).toFixed(2)}M/s`
      : r >= 1e3
        ? `${(r / 1e3).toFixed(0)}k/s`
        : `${r.toFixed(0)}/s`;
export const fmtBytes = (b: number) =>
  !Number.isFinite(b)
    ? '–'
    : b >= 1024 ** 2
      ? `${(b / 1024 ** 2).toFixed(1)} MiB`
      : b >= 1024
        ? `${(b / 1024).toFixed(1)} KiB`
        : `${b.toFixed(0)} B`;
export const fmtInt = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : '–');
