// "Did you mean": the known name closest to a mistyped one, for unknown-argument errors.
// Spelling variants (maxDepth, max-depth, MAX_DEPTH) match exactly once folded; otherwise
// the nearest by edit distance, if it is near enough to be a typo rather than a guess.

const fold = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');

/** Edits from a to b, a swap of neighbours counting as one (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known name `name` most likely meant, or undefined when none is close. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const f = fold(name);
  const same = known.find((k) => fold(k) === f);
  if (same) return same;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = editDistance(f, fold(k));
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(fold(best).length / 3)) ? best : undefined;
}
