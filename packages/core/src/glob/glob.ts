// Glob matching over '/'-separated relative paths, in time linear in the path for a given
// pattern: no regular expression is ever built from user input. Each pattern is compiled to
// segments matched with the classic iterative wildcard algorithm (backtrack to the last star
// only), once over characters inside a segment and once over segments for `**`.
//
// Semantics (Jupyter MCP's list_files uses fnmatch on the whole relative path, where `*`
// crosses '/'; we keep its everyday behaviour without that surprise):
// - `*` matches any run of characters except '/', a leading '.' included (hidden entries are
//   listed by default, as the peers do); `?` one character; `[abc]`, `[a-z]`, `[!x]`, `[^x]`
//   one character of a class; `\x` the character x; `{a,b}` alternatives (nested, at most 64).
// - `**` as a whole segment matches any number of segments, zero included (`a/**` matches a).
//   Elsewhere (`a**b`) it is a plain `*`.
// - A pattern with no '/' matches the base name at any depth: `*.log` matches `a/b/x.log`,
//   as in Jupyter. A pattern with a '/' matches the whole relative path; one leading '/'
//   anchors it at the root (and is dropped), a trailing '/' is dropped.
// - Matching is case-sensitive (Linux names).
import { invalidArgument } from '../errors/errors.js';
import { braceAlternatives, classEnd, shownPattern } from './braces.js';

/** Longest pattern accepted, in UTF-16 code units. */
export const MAX_GLOB_LENGTH = 1024;

const STAR = 0;
const ANY = 1;
const LITERAL = 2;
const CLASS = 3;

type Token =
  | { kind: typeof STAR }
  | { kind: typeof ANY }
  | { kind: typeof LITERAL; cp: number }
  | { kind: typeof CLASS; negated: boolean; ranges: number[] };

/** One path segment's matcher; `globstar` is a whole-segment `**`. */
type Segment = { globstar: true } | { globstar: false; test: (segment: string) => boolean };

function cpLen(cp: number): number {
  return cp > 0xffff ? 2 : 1;
}

function parseClass(p: string, open: number, end: number): Token {
  let i = open + 1;
  let negated = false;
  if (p[i] === '!' || p[i] === '^') {
    negated = true;
    i++;
  }
  const ranges: number[] = [];
  const last = end - 1; // the closing ']'
  let first = true;
  while (i < last) {
    if (p[i] === ']' && !first) break;
    first = false;
    if (p[i] === '\\') i++;
    const lo = p.codePointAt(i)!;
    i += cpLen(lo);
    let hi = lo;
    if (p[i] === '-' && i + 1 < last) {
      i++;
      if (p[i] === '\\') i++;
      hi = p.codePointAt(i)!;
      i += cpLen(hi);
    }
    if (lo <= hi) ranges.push(lo, hi); // a reversed range matches nothing
  }
  return { kind: CLASS, negated, ranges };
}

/** Tokens of each '/'-separated segment; `null` stands for a whole-segment `**`. */
function tokenize(alt: string, pattern: string): (Token[] | null)[] {
  const segments: (Token[] | null)[] = [];
  let cur: Token[] = [];
  let i = 0;
  const atSegmentStart = () => i === 0 || alt[i - 1] === '/';
  while (i < alt.length) {
    const c = alt[i];
    if (c === '/') {
      segments.push(cur);
      cur = [];
      i++;
    } else if (c === '*' && atSegmentStart() && alt[i + 1] === '*' && (i + 2 === alt.length || alt[i + 2] === '/')) {
      segments.push(null);
      cur = [];
      i += alt[i + 2] === '/' ? 3 : 2;
      if (i === alt.length) return segments;
    } else if (c === '*') {
      if (cur.length === 0 || cur[cur.length - 1].kind !== STAR) cur.push({ kind: STAR });
      i++;
    } else if (c === '?') {
      cur.push({ kind: ANY });
      i++;
    } else if (c === '[') {
      const end = classEnd(alt, i);
      if (end < 0) throw invalidArgument(`pattern ${shownPattern(pattern)} has an unbalanced '['`);
      cur.push(parseClass(alt, i, end));
      i = end;
    } else {
      if (c === '\\' && i + 1 < alt.length) i++; // a trailing lone backslash is literal
      const cp = alt.codePointAt(i)!;
      cur.push({ kind: LITERAL, cp });
      i += cpLen(cp);
    }
  }
  segments.push(cur);
  return segments;
}

function matchOne(tok: Token, cp: number): boolean {
  switch (tok.kind) {
    case ANY:
      return true;
    case LITERAL:
      return tok.cp === cp;
    case CLASS: {
      const r = tok.ranges;
      let hit = false;
      for (let k = 0; k < r.length && !hit; k += 2) hit = cp >= r[k] && cp <= r[k + 1];
      return hit !== tok.negated;
    }
    default:
      return false;
  }
}

/** Where `name` goes on after `tok` matched at code unit `t`; -1 where it does not match there. */
function stepCodePoint(tok: Token, name: string, t: number): number {
  const cp = name.codePointAt(t)!;
  return matchOne(tok, cp) ? t + cpLen(cp) : -1;
}

/** Where `path` goes on after `seg` matched its segment `i`; -1 where it does not match there. */
function stepSegment(seg: Segment, path: string[], i: number): number {
  return !seg.globstar && seg.test(path[i]) ? i + 1 : -1;
}

/**
 * The classic iterative wildcard match, for both levels of a glob: a segment's tokens against
 * the code points of a name (`*` the star), or a pattern's segments against a path's segments
 * (`**` the star), `stars[p]` saying which items are stars. O(n × |items|) worst case, no
 * recursion: a mismatch backtracks to the last star only, which then takes one unit more.
 */
function wildcardMatch(stars: Uint8Array, items: readonly (Token | Segment)[], text: string | string[]): boolean {
  const segments = typeof text !== 'string';
  const n = text.length;
  const m = stars.length;
  let t = 0;
  let p = 0;
  let starP = -1;
  let starT = 0;
  while (t < n) {
    if (p < m) {
      if (stars[p] === 1) {
        starP = p++;
        starT = t;
        continue;
      }
      const after = segments ? stepSegment(items[p] as Segment, text, t) : stepCodePoint(items[p] as Token, text, t);
      if (after >= 0) {
        t = after;
        p++;
        continue;
      }
    }
    if (starP < 0) return false;
    p = starP + 1;
    starT = segments ? starT + 1 : starT + cpLen(text.codePointAt(starT)!);
    t = starT;
  }
  while (p < m && stars[p] === 1) p++;
  return p === m;
}

function literalOf(toks: Token[]): string | undefined {
  let s = '';
  for (const tok of toks) {
    if (tok.kind !== LITERAL) return undefined;
    s += String.fromCodePoint(tok.cp);
  }
  return s;
}

function segmentTest(toks: Token[]): (segment: string) => boolean {
  const lit = literalOf(toks);
  if (lit !== undefined) return (s) => s === lit;
  if (toks.length === 1 && toks[0].kind === STAR) return () => true;
  // `*.log` and `core.*`: the common shapes, without the general loop.
  if (toks[0].kind === STAR) {
    const suffix = literalOf(toks.slice(1));
    if (suffix !== undefined) return (s) => s.endsWith(suffix);
  }
  if (toks[toks.length - 1].kind === STAR) {
    const prefix = literalOf(toks.slice(0, -1));
    if (prefix !== undefined) return (s) => s.startsWith(prefix);
  }
  const stars = Uint8Array.from(toks, (tok) => (tok.kind === STAR ? 1 : 0));
  return (s) => wildcardMatch(stars, toks, s);
}

function baseNameOf(relPath: string): string {
  const k = relPath.lastIndexOf('/');
  return k < 0 ? relPath : relPath.slice(k + 1);
}

function compileAlternative(alt: string, pattern: string): (relPath: string) => boolean {
  const segs = tokenize(alt, pattern);
  if (segs.length === 1) {
    const toks = segs[0];
    if (toks === null) return () => true;
    const test = segmentTest(toks);
    return (relPath) => test(baseNameOf(relPath));
  }
  // One leading '/' anchors (it is dropped); empty segments from '//' and a trailing '/' go.
  const kept = segs.filter((s) => s === null || s.length > 0);
  if (kept.length === 0) throw invalidArgument(`pattern ${shownPattern(pattern)} has nothing to match`);
  const matchers: Segment[] = kept.map((toks) =>
    toks === null ? { globstar: true } : { globstar: false, test: segmentTest(toks) },
  );
  const stars = Uint8Array.from(matchers, (seg) => (seg.globstar ? 1 : 0));
  return (relPath) => {
    const path = relPath === '' ? [] : relPath.split('/');
    return wildcardMatch(stars, matchers, path);
  };
}

/** Compiles one glob; a bad pattern throws invalid_argument naming it. */
export function compileGlob(pattern: string): (relPath: string) => boolean {
  if (typeof pattern !== 'string') throw invalidArgument(`pattern must be a string, got ${typeof pattern}`);
  if (pattern.length === 0) throw invalidArgument('pattern must not be empty');
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw invalidArgument(
      `pattern must be at most ${MAX_GLOB_LENGTH} characters, got ${pattern.length}: ${shownPattern(pattern)}`,
    );
  }
  const tests = braceAlternatives(pattern).map((alt) => {
    if (alt === '') return (relPath: string) => relPath === '';
    return compileAlternative(alt, pattern);
  });
  return anyOf(tests);
}

/** Compiles several globs into one test that any of them passes; an empty list never matches. */
export function compileGlobs(patterns: string[]): (relPath: string) => boolean {
  const tests = [...new Set(patterns)].map(compileGlob);
  if (tests.length === 0) return () => false;
  return anyOf(tests);
}

/** A test that any of `tests` passes (the one itself when there is one). */
function anyOf(tests: ((relPath: string) => boolean)[]): (relPath: string) => boolean {
  if (tests.length === 1) return tests[0];
  return (relPath) => {
    for (const t of tests) if (t(relPath)) return true;
    return false;
  };
}
