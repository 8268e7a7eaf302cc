// Ranking on the remote side: for a ranked walk (top N by size or mtime) the remote awk keeps
// every record the engine needs to decide the answer and drops the rest before they cross
// the network. The engine still ranks what arrives with its own comparator, so the answer is
// the one a full listing gives: awk only drops what cannot be in it, and counts what it drops.
//
// Kept: the path itself, directories (descent, depth counts, error rows), symlinks,
// unreadable-dir and pruned records, entries of a type awk does not know; and among the
// other entries (candidates) every one not hidden (when hidden ones are excluded) whose
// primary key is at least the K-th best seen (K = offset + top N), ties included. An entry
// dropped has K entries strictly better on the primary key, so it is not in the top K
// under any tie rule. awk's numbers are doubles: rounding is monotonic, so a superset is
// still kept. When the type filter leaves directories out of the rows (RankOptions.ancestors),
// only the directories above a row that is sent are sent; the others, and symlinks of a type
// not asked for, are counted (seen, depth-limited) instead: the engine would have counted them
// and shown none of them.

import type { EntryType, WalkRequest, WalkSummary } from '../domain/types.js';
import { filterExactRemotely } from './filter-predicates.js';

/** find's %y letter of each candidate type (symlinks come as full records: they have a target). */
const TYPE_LETTER: Partial<Record<EntryType, string>> = {
  file: 'f',
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

// find prints each candidate (file, fifo, socket, device: no link target) as one record of
// space-separated fields with the path last (it may hold spaces): `c %y - %s %T@ %Tz %m %U
// %G %i %n %D %d %P`, and everything else as full records of FIELDS NUL-terminated fields
// (find/command.ts), which awk passes on. A kept candidate, and the path itself, leave awk
// as a full R record. With stubs (a caller that can stat the kept few itself, as the agent
// can), a candidate is only `c %y KEY %P` and a kept one leaves as a K record: type and
// path, and a row that fails the filters is an `s` record, counted as seen. The trailer is
// a C record: entries dropped as seen, and as matched. With restat (RankOptions.restat),
// the kept stubs leave instead as absolute paths on descriptor 3, after everything else has
// been written and flushed, for the find that stats them again in the same pipeline. With
// a cap, awk stops reading once it has passed that many records on (END then runs).
// Slots of dropped candidates are reused, never deleted (mawk's delete is slow).
const PROGRAM = `BEGIN { RS = "\\0"; ORS = ""; n = 0; hn = 0; top = 0; alive = 0; nfree = 0; seen = 0; matched = 0; limit = 2 * K + 1024; passed = 0; nq = 0 }
n == 0 && substr($0, 1, 2) == "c " {
  y = substr($0, 3, 1)
  if (stubs) {
    # The key is the number that starts what follows "c y " (awk reads a string's numeric prefix).
    k = substr($0, 5) + 0
    if (hidden) { path = substr($0, 5); path = substr(path, index(path, " ") + 1) }
  } else {
    rest = substr($0, 7); i = index(rest, " "); sz = substr(rest, 1, i - 1)
    rest = substr(rest, i + 1); i = index(rest, " "); mt = substr(rest, 1, i - 1)
    k = bysize ? sz : mt
    if (hidden) path = pathOf($0)
  }
  if (index(types, y) == 0) { seen++; next }
  if (hidden && hiddenPath(path)) next
  k = k * sign
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
  live[s] = 1; bk[s] = k; b[s] = $0; alive++
  if (alive >= limit) { compact(); if (2 * alive > limit) limit = 2 * alive }
  next
}
n == 0 && substr($0, 1, 1) == "s" { if (!hidden || hiddenPath(substr($0, 3)) == 0) seen++; next }
# With ancestors and restat, a directory below the path comes as \`d %d %P\`: kept back as
# whole() keeps a full one, and stat'ed again with the rows only if one below it is sent.
n == 0 && substr($0, 1, 2) == "d " {
  rest = substr($0, 3); i = index(rest, " "); p = substr(rest, i + 1)
  if (hidden && hiddenPath(p)) next
  seen++; dir[p] = ""
  if (substr(rest, 1, i - 1) + 0 >= maxdepth) deep++
  next
}
ancestors { rec = rec $0 "\\0"; fld[n] = $0; if (++n == F) { n = 0; whole(); rec = "" }; next }
{ print $0 "\\0"; if (++n == F) { n = 0; counted() } }
# A record passed on: past the cap, no more are read.
function counted() { if (cap && ++passed >= cap) exit }
# With ancestors: one full record, in rec and fld[0..F-1] (kind, %y, ..., %d = 12, %P = 14).
# The path itself, and rows of a type asked for (error and pruned records too) pass, their
# directories sent with them; a directory is kept back (as seen) until a row below it is
# sent, or counted as depth-limited at the depth limit; other rows are only counted.
function whole(   p) {
  p = fld[14]
  if (fld[12] == 0) { print rec; return }
  if (hidden && hiddenPath(p)) return
  if (fld[0] == "R" && index(rowtypes, fld[1]) == 0) {
    seen++
    if (fld[1] == "d") { dir[p] = rec; if (fld[12] >= maxdepth) deep++ }
    return
  }
  need(p)
  print rec
  counted()
}
# Sends the directories above p not sent yet (seen by the engine now, not here).
function need(p,   i, j) {
  for (;;) {
    j = 0
    while ((i = index(substr(p, j + 1), "/")) > 0) j += i
    if (j == 0) return
    p = substr(p, 1, j - 1)
    if (p in sent) return
    sent[p] = 1
    if (p in dir) {
      seen--
      if (dir[p] == "") q[++nq] = p
      else { print dir[p]; counted() }
    }
  }
}
# Everything after the 13th space.
function pathOf(r,   j) {
  for (j = 1; j <= 13; j++) r = substr(r, index(r, " ") + 1)
  return r
}
# A kept candidate: a full R record (fields 2 to 13, an empty link target, the path), or
# with stubs a K record: the type, empty fields, the path; with restat its path is queued
# for the restat instead (but the path itself, a file: the caller stats it as -H would).
function full(r,   j, i, out, p) {
  if (stubs) {
    out = "K\\0" substr(r, 3, 1)
    for (j = 2; j <= 13; j++) out = out "\\0"
    r = substr(r, 5)
    p = substr(r, index(r, " ") + 1)
    if (restat && p != "") { q[++nq] = p; return }
    print out "\\0" p "\\0"
    return
  }
  out = "R"
  r = substr(r, 3)
  for (j = 2; j <= 13; j++) { i = index(r, " "); out = out "\\0" substr(r, 1, i - 1); r = substr(r, i + 1) }
  print out "\\0\\0" r "\\0"
}
# 1: the entry is hidden (seen, then pruned); 2: below a hidden directory (never seen).
function hiddenPath(p,   i) {
  for (;;) {
    i = index(p, "/")
    if (i == 0) { if (substr(p, 1, 1) == ".") { seen++; return 1 } return 0 }
    if (substr(p, 1, 1) == ".") return 2
    p = substr(p, i + 1)
  }
}
function compact(   i) {
  if (hn < K) return
  for (i = 1; i <= top; i++)
    if (live[i] && bk[i] < h[1]) { live[i] = 0; b[i] = ""; free[++nfree] = i; alive--; seen++; matched++ }
}
END {
  compact()
  for (i = 1; i <= top; i++) if (live[i]) { if (ancestors) need(stubs ? substr(b[i], index(substr(b[i], 5), " ") + 5) : pathOf(b[i])); full(b[i]) }
  print "C\\0" seen "\\0" matched "\\0" deep "\\0"
  for (j = 5; j <= F; j++) print "\\0"
  if (nq == 0) exit
  # Everything above reaches stdout before the restat can write its first record.
  fflush()
  # The listed path from the environment: -v would read its backslashes as escapes.
  root = ENVIRON["FLEETLS_ROOT"]
  if (root != "/") root = root "/"
  for (i = 1; i <= nq; i++) print root q[i] "\\0" > "/dev/fd/3"
  close("/dev/fd/3")
}`;

/**
 * find's -printf for a candidate: the fields of a full record, space-separated, the path
 * last; with stubs only the type, the primary key and the path. `type`: the type letter
 * when the caller's test already knows it (one directive fewer), else %y.
 */
export function candidateFormat(req: WalkRequest, stubs: boolean, type = '%y'): string {
  if (stubs) return `c ${type} ${req.order === 'size' ? '%s' : '%T@'} %P\\0`;
  return `c ${type} - %s %T@ %Tz %m %U %G %i %n %D %d %P\\0`;
}

/** The find primaries that select candidates: types without a link target. */
export const CANDIDATE_TYPES = [
  '-type',
  'f',
  '-o',
  '-type',
  'p',
  '-o',
  '-type',
  's',
  '-o',
  '-type',
  'c',
  '-o',
  '-type',
  'b',
];

/** find's %y letter of every type a row filter names. */
const ROW_LETTER: Partial<Record<EntryType, string>> = { ...TYPE_LETTER, dir: 'd', symlink: 'l' };

export interface RankOptions {
  /** Kept candidates leave as K records (find/command.ts FindArgsOptions.stubs). */
  stubs?: boolean;
  /**
   * Directories only as the ancestors of rows (see `directoriesAreRows`): the others are
   * counted, as seen or depth-limited, instead of sent. Not with two halves of a tree.
   */
  ancestors?: boolean;
  /**
   * With stubs: the kept candidates (but the path itself) are written, after everything
   * else, as absolute paths on descriptor 3 (the listed path read from $FLEETLS_ROOT), for
   * a find in the same pipeline to stat again (find/command.ts, buildWalkCommand).
   */
  restat?: boolean;
  /** Records passed on at most (0: no cap); awk then stops reading, as `head` would stop it. */
  cap?: number;
}

/** Can a directory be a row of this walk? Otherwise it is only the way to one. */
export function directoriesAreRows(req: WalkRequest): boolean {
  return req.types.length === 0 || req.types.includes('dir');
}

/** awk's arguments (run with LC_ALL=C) for a pre-ranked walk over findArgs' output. */
export function rankArgs(req: WalkRequest, fields: number, opts: RankOptions = {}): string[] {
  const types =
    req.types.length === 0 ? Object.values(TYPE_LETTER).join('') : req.types.map((t) => TYPE_LETTER[t] ?? '').join('');
  const rowTypes = req.types.map((t) => ROW_LETTER[t] ?? '').join('');
  const vars: [string, string | number][] = [
    ['F', fields],
    ['K', req.offset + req.topN],
    ['bysize', req.order === 'size' ? 1 : 0],
    // The heap keeps the largest keys: negate them when the smallest rank first.
    ['sign', req.direction === 'descending' ? 1 : -1],
    ['hidden', req.excludeHidden ? 1 : 0],
    // Never empty, so index() of a letter means "in the filter".
    ['types', types === '' ? '-' : types],
    ['stubs', opts.stubs ? 1 : 0],
    ['ancestors', opts.ancestors ? 1 : 0],
    ['rowtypes', rowTypes === '' ? '-' : rowTypes],
    ['maxdepth', Math.max(0, Math.floor(req.maxDepth))],
    ['restat', opts.restat && opts.stubs ? 1 : 0],
    ['cap', Math.max(0, Math.floor(opts.cap ?? 0))],
  ];
  return [...vars.flatMap(([k, v]) => ['-v', `${k}=${v}`]), PROGRAM];
}

/** What the remote awk dropped: entries the engine would have seen, and of those, matched. */
export interface RankDropped {
  seen: number;
  matched: number;
  /** Directories at the depth limit not sent (RankOptions.ancestors). */
  depthLimited: number;
}

/**
 * The summary of a walk over a pre-ranked listing, made what a full listing gives: the
 * dropped entries counted as seen and matched, and the top_n cut's total with them.
 */
export function addDropped(summary: WalkSummary, dropped: RankDropped, req: WalkRequest): void {
  summary.entriesSeen += dropped.seen;
  summary.entriesMatched += dropped.matched;
  summary.depthLimitedDirs += dropped.depthLimited;
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
