// A glob's `{a,b}` alternatives (nested, at most MAX_GLOB_ALTERNATIVES), expanded before the
// glob is compiled (glob.ts), and the bits of pattern syntax both steps read: a class's
// closing ']' (brace expansion steps over classes whole) and a pattern as errors quote it.
import { invalidArgument } from '../errors/errors.js';

/** Most alternatives one pattern may expand to through `{a,b}`. */
export const MAX_GLOB_ALTERNATIVES = 64;

/** A pattern as an error quotes it: at most 60 characters. */
export function shownPattern(pattern: string): string {
  return pattern.length > 60 ? `'${pattern.slice(0, 60)}…'` : `'${pattern}'`;
}

/** Index just past the ']' closing the class opened at `open`, or -1 when there is none. */
export function classEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a ']' first in the class is literal
  while (i < pattern.length) {
    if (pattern[i] === '\\') i += 2;
    else if (pattern[i] === ']') return i + 1;
    else i++;
  }
  return -1;
}

// Brace expansion: a sequence of literal text and alternative groups, expanded with a cap.
type Part = string | Part[][];

function parseBraces(p: string, pattern: string): Part[] {
  let i = 0;
  const seq = (inGroup: boolean): Part[] => {
    const parts: Part[] = [];
    let text = '';
    while (i < p.length) {
      const c = p[i];
      if (c === '\\') {
        text += p.slice(i, i + 2);
        i += 2;
      } else if (c === '[') {
        const end = classEnd(p, i);
        if (end < 0) throw invalidArgument(`pattern ${shownPattern(pattern)} has an unbalanced '['`);
        text += p.slice(i, end);
        i = end;
      } else if (c === '{') {
        i++;
        const alternatives: Part[][] = [seq(true)];
        while (p[i] === ',') {
          i++;
          alternatives.push(seq(true));
        }
        if (p[i] !== '}') throw invalidArgument(`pattern ${shownPattern(pattern)} has an unbalanced '{'`);
        i++;
        if (text) parts.push(text);
        text = '';
        parts.push(alternatives);
      } else if (c === '}' || c === ',') {
        if (inGroup) break;
        if (c === '}') throw invalidArgument(`pattern ${shownPattern(pattern)} has an unbalanced '}'`);
        text += c;
        i++;
      } else {
        text += c;
        i++;
      }
    }
    if (text) parts.push(text);
    return parts;
  };
  return seq(false);
}

function countOf(parts: Part[], pattern: string): number {
  let n = 1;
  for (const part of parts) {
    if (typeof part === 'string') continue;
    let sum = 0;
    for (const alt of part) sum += countOf(alt, pattern);
    n *= sum;
    if (n > MAX_GLOB_ALTERNATIVES) {
      throw invalidArgument(
        `pattern ${shownPattern(pattern)} expands to more than ${MAX_GLOB_ALTERNATIVES} alternatives through {…}`,
      );
    }
  }
  return n;
}

function expand(parts: Part[]): string[] {
  let out = [''];
  for (const part of parts) {
    if (typeof part === 'string') {
      out = out.map((s) => s + part);
    } else {
      const alts = part.flatMap((alt) => expand(alt));
      out = out.flatMap((s) => alts.map((a) => s + a));
    }
  }
  return out;
}

/** The distinct patterns `pattern` expands to through `{…}` (itself when it has none); invalid_argument past the cap. */
export function braceAlternatives(pattern: string): string[] {
  const parts = parseBraces(pattern, pattern);
  countOf(parts, pattern);
  return [...new Set(expand(parts))];
}
