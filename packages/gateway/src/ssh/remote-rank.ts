// Ranking on the remote side: for a ranked walk (top N by size or mtime) the remote awk keeps
// every record the engine needs to decide the answer and drops the rest before they cross
// the network. The engine still ranks what arrives with its own comparator, so the answer is
// the one a full listing gives: awk only drops what cannot be in it, and counts what it drops.
//
// Kept: the path itself, directories (descent, depth counts, error rows), unreadable-dir
// records, anything hidden or below a hidden directory (the engine prunes those), entries of
// a type awk does not know; and among the other entries, every one whose primary key is at
// least the K-th best primary key seen (K = offset + top N), ties included. An entry dropped
// has K entries strictly better on the primary key, so it is not in the top K under any tie
// rule. awk's numbers are doubles: rounding is monotonic, so a superset is still kept.
import type { EntryType, WalkRequest, WalkSummary } from '@fleetls/core';
import { filterExactRemotely } from './find-filter-predicates.js';

/** find's %y letter of each type awk may drop when the type filter excludes it. */
const TYPE_LETTER: Partial<Record<EntryType, string>> = {
  file: 'f',
  symlink: 'l',
  fifo: 'p',
  socket: 's',
  char: 'c',
  block: 'b',
};

/**
 * Can this walk be pre-ranked remotely? Only the ranked shape by size or mtime, and only
 * filters awk applies exactly (types, hidden); globs and followed symlinks (loop detection
 * is the engine's) list in full.
 */
export function remoteRankable(req: WalkRequest): boolean {
  return (
    req.shape === 'ranked' &&
    req.order !== 'name' &&
    req.include.length === 0 &&
    req.exclude.length === 0 &&
    !req.followSymlinks &&
    filterExactRemotely(req)
  );
}

// Records are FIELDS NUL-terminated fields (find-command.ts): 1 kind, 2 %y, 4 %s, 5 %T@,
// 13 %d, 15 %P. The trailer is a 'C' record: entries dropped as seen, and as matched.
// Slots of dropped candidates are reused, never deleted (mawk's delete is slow).
const PROGRAM = `BEGIN { RS = "\\0"; ORS = ""; n = 0; hn = 0; top = 0; alive = 0; nfree = 0; seen = 0; matched = 0; limit = 2 * K + 1024 }
{
  f[++n] = $0
  if (n < F) next
  n = 0
  if (f[1] != "R" || f[2] == "d" || f[13] == "0" || index(" flpscb", f[2]) < 2 || (hidden && index("/" f[F], "/.") > 0)) { emit(); next }
  if (index(types, f[2]) == 0) { seen++; next }
  k = (bysize ? f[4] : f[5]) * sign
  if (hn < K) {
    i = ++hn; h[i] = k
    while (i > 1 && h[int(i / 2)] > h[i]) { p = int(i / 2); t = h[p]; h[p] = h[i]; h[i] = t; i = p }
  } else if (k > h[1]) {
    h[1] = k; i = 1
    for (;;) {
      l = 2 * i; m = i
      if (l <= hn && h[l] < h[m]) m = l
      if (l < hn && h[l + 1] < h[m]) m = l + 1
      if (m == i) break
      t = h[m]; h[m] = h[i]; h[i] = t; i = m
    }
  } else if (k < h[1]) { seen++; matched++; next }
  s = nfree > 0 ? free[nfree--] : ++top
  live[s] = 1; bk[s] = k; alive++
  r = f[1]; for (j = 2; j <= F; j++) r = r "\\0" f[j]
  b[s] = r "\\0"
  if (alive >= limit) { compact(); if (2 * alive > limit) limit = 2 * alive }
}
function emit(   j) { for (j = 1; j <= F; j++) print f[j] "\\0" }
function compact(   i) {
  if (hn < K) return
  for (i = 1; i <= top; i++)
    if (live[i] && bk[i] < h[1]) { live[i] = 0; b[i] = ""; free[++nfree] = i; alive--; seen++; matched++ }
}
END {
  compact()
  for (i = 1; i <= top; i++) if (live[i]) print b[i]
  print "C\\0" seen "\\0" matched "\\0"
  for (j = 4; j <= F; j++) print "\\0"
}`;

/** The awk stage for a pre-ranked walk; `quote` is the shell quoting of find-command.ts. */
export function rankStage(req: WalkRequest, fields: number, quote: (s: string) => string): string {
  const types =
    req.types.length === 0 ? Object.values(TYPE_LETTER).join('') : req.types.map((t) => TYPE_LETTER[t] ?? '').join('');
  const vars: [string, string | number][] = [
    ['F', fields],
    ['K', req.offset + req.topN],
    ['bysize', req.order === 'size' ? 1 : 0],
    // The heap keeps the largest keys: negate them when the smallest rank first.
    ['sign', req.direction === 'descending' ? 1 : -1],
    ['hidden', req.excludeHidden ? 1 : 0],
    // Never empty, so index() of a letter means "in the filter".
    ['types', types === '' ? '-' : types],
  ];
  return `LC_ALL=C awk ${vars.map(([k, v]) => `-v ${k}=${v}`).join(' ')} ${quote(PROGRAM)}`;
}

/** What the remote awk dropped: entries the engine would have seen, and of those, matched. */
export interface RankDropped {
  seen: number;
  matched: number;
}

/**
 * The summary of a walk over a pre-ranked listing, made what a full listing gives: the
 * dropped entries counted as seen and matched, and the top_n cut's total with them.
 */
export function addDropped(summary: WalkSummary, dropped: RankDropped, req: WalkRequest): void {
  summary.entriesSeen += dropped.seen;
  summary.entriesMatched += dropped.matched;
  const keep = req.offset + req.topN;
  const cut = summary.truncations.find((t) => t.reason === 'top_n');
  if (cut) cut.total = summary.entriesMatched;
  else if (summary.entriesMatched > keep)
    summary.truncations.push({
      dir: Buffer.alloc(0),
      shown: summary.entriesSent,
      total: summary.entriesMatched,
      reason: 'top_n',
    });
}

/** The probe's check that awk reads and writes NUL bytes (mawk, gawk; not every busybox). */
export const AWK_PROBE = `printf 'a\\0b\\0' | LC_ALL=C awk 'BEGIN { RS = "\\0"; x = "a" "\\0" "b" } END { print "awk=" NR length(x) }'`;
export const AWK_PROBE_OK = 'awk=23';
