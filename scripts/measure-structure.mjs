#!/usr/bin/env node
// Measures issue 24's structure figures over the production sources (packages/*/src,
// proto/src and the dashboard, packages/gateway/web; without tests, `testing/` helpers,
// generated code or the test kit): functions over 80 lines, files over 350 lines, `as
// unknown as` casts, exported functions with one-letter parameters, and src/ roots over 6
// files (every package's, tests counted).
// `node scripts/measure-structure.mjs [-v]` prints the counts, `-v` each hit.
// No dependencies (TypeScript 7 has no JS compiler API): a small tokenizer that knows
// strings, templates, comments and regular expressions finds function bodies by their braces,
// and a function spans from its first line (name or parameters) to its closing brace.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const verbose = process.argv.includes('-v');
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 350;
const MAX_ROOT_FILES = 6;

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'dist', 'gen', 'testing'].includes(name) || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const PUNCT = ['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '&&=', '||=', '??=', '=>', '==', '!=', '<=', '>='];
const PUNCT2 = ['&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<'];
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'in', 'of', 'void', 'throw', 'delete', 'new', 'yield', 'await', 'else', 'do']);

/** Tokens of a TypeScript source: `{ t: text, line, kind }`, kind one of word, punct, str. */
export function tokenize(text) {
  const tokens = [];
  const braces = []; // for each open `{`: true when it opened a template substitution
  let i = 0;
  let line = 1;
  const push = (t, kind, at) => tokens.push({ t, kind, line: at });
  const last = () => tokens[tokens.length - 1];
  const template = () => {
    // from just after a backtick or `}` of a substitution, to the next `${` or closing backtick
    const at = line;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        return push('`', 'str', at);
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2;
        braces.push(true);
        return push('`${', 'str', at);
      } else {
        if (c === '\n') line++;
        i++;
      }
    }
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '/' && text[i + 1] === '/') while (i < text.length && text[i] !== '\n') i++;
    else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (; i < stop; i++) if (text[i] === '\n') line++;
    } else if (c === "'" || c === '"') {
      const at = line;
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
      i++;
      push('""', 'str', at);
    } else if (c === '`') {
      i++;
      template();
    } else if (c === '}' && braces.length && braces[braces.length - 1]) {
      braces.pop();
      i++;
      template();
    } else if (/[A-Za-z_$0-9#@]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z_$0-9#@.]/.test(text[j]) && !(text[j] === '.' && /[A-Za-z_$]/.test(c))) j++;
      push(text.slice(i, j), 'word', line);
      i = j;
    } else if (c === '/' && isRegexStart(last())) {
      let inClass = false;
      for (i++; i < text.length; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '[') inClass = true;
        else if (text[i] === ']') inClass = false;
        else if (text[i] === '/' && !inClass) break;
      }
      for (i++; /[a-z]/.test(text[i] ?? ''); ) i++;
      push('/re/', 'str', line);
    } else {
      const p = PUNCT.find((s) => text.startsWith(s, i)) ?? PUNCT2.find((s) => text.startsWith(s, i)) ?? c;
      if (p === '{') braces.push(false);
      else if (p === '}') braces.pop();
      push(p, 'punct', line);
      i += p.length;
    }
  }
  return tokens;
}

function isRegexStart(prev) {
  if (!prev) return true;
  if (prev.kind === 'word') return REGEX_AFTER_WORD.has(prev.t);
  if (prev.kind === 'str') return false;
  return ![')', ']', '}'].includes(prev.t);
}

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);
const NOT_METHODS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'with', 'return', 'await']);

/** Index of the token that closes the bracket opened at `k`. */
function matchForward(tokens, k) {
  let depth = 0;
  for (let j = k; j < tokens.length; j++) {
    if (OPEN.has(tokens[j].t)) depth++;
    else if (CLOSE.has(tokens[j].t) && --depth === 0) return j;
  }
  return tokens.length - 1;
}

function matchBackward(tokens, k) {
  let depth = 0;
  for (let j = k; j >= 0; j--) {
    if (CLOSE.has(tokens[j].t)) depth++;
    else if (OPEN.has(tokens[j].t) && --depth === 0) return j;
  }
  return 0;
}

/** From the token after a parameter list's `)`: the index of the body's `{` (skipping a return type). */
function bodyAfterParams(tokens, k) {
  if (tokens[k]?.t !== ':') return tokens[k]?.t === '{' ? k : -1;
  let angle = 0;
  for (let j = k + 1; j < tokens.length; j++) {
    const t = tokens[j].t;
    if (t === '<') angle++;
    else if (t === '>') angle--;
    else if (t === '=>' && angle === 0) return -1; // an arrow's return type: not a body here
    else if (t === ';' || (angle === 0 && (t === '=' || t === ',' || CLOSE.has(t)))) return -1; // an expression
    else if (t === '{' && angle === 0) {
      const prev = tokens[j - 1];
      if ([':', '|', '&', '<', ',', '(', '=>', '?'].includes(prev.t)) j = matchForward(tokens, j);
      else return j;
    } else if (OPEN.has(t)) j = matchForward(tokens, j);
  }
  return -1;
}

/** Functions of a source as `{ name, start, end }` lines: declarations, methods, arrows. */
export function functions(tokens) {
  const found = [];
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k];
    if (tok.t === 'function' && tok.kind === 'word') {
      let p = k + 1;
      if (tokens[p]?.t === '*') p++;
      const name = tokens[p]?.kind === 'word' ? tokens[p++].t : '(anonymous)';
      if (tokens[p]?.t === '<') while (p < tokens.length && tokens[p].t !== '(') p++;
      if (tokens[p]?.t !== '(') continue;
      const body = bodyAfterParams(tokens, matchForward(tokens, p) + 1);
      if (body >= 0) found.push({ name, start: tok.line, end: tokens[matchForward(tokens, body)].line });
    } else if (tok.t === '=>') {
      const prev = tokens[k - 1];
      let open = prev.t === ')' ? matchBackward(tokens, k - 1) : k - 1;
      // `(params): (() => void) => {`: the parenthesised return type is not the parameter list
      while (tokens[open - 1]?.t === ':' && tokens[open - 2]?.t === ')') open = matchBackward(tokens, open - 2);
      const start = tokens[open].line;
      let end;
      if (tokens[k + 1]?.t === '{') end = tokens[matchForward(tokens, k + 1)].line;
      else {
        let j = k + 1;
        for (; j < tokens.length; j++) {
          const t = tokens[j].t;
          // `word {` or `) {` cannot stand in an expression: this `=>` was a function type
          // (a return type such as `): (s: string) => boolean {`), not an arrow.
          if (t === '{' && (tokens[j - 1].kind === 'word' || [')', ']', '>'].includes(tokens[j - 1].t))) break;
          if (OPEN.has(t)) j = matchForward(tokens, j);
          else if (CLOSE.has(t) || t === ',' || t === ';') break;
        }
        if (tokens[j]?.t === '{') continue;
        end = tokens[Math.max(k + 1, j - 1)].line;
      }
      found.push({ name: arrowName(tokens, k), start, end });
    } else if (tok.kind === 'word' && tokens[k + 1]?.t === '(' && !NOT_METHODS.has(tok.t)) {
      const before = tokens[k - 1]?.t;
      const memberStart = ['{', '}', ';', ',', 'async', 'get', 'set', 'static', '*', 'private', 'public', 'protected'];
      if (!memberStart.includes(before ?? '{') || (before === '*' && tokens[k - 2]?.t === 'function')) continue;
      const body = bodyAfterParams(tokens, matchForward(tokens, k + 1) + 1);
      if (body >= 0) found.push({ name: tok.t, start: tok.line, end: tokens[matchForward(tokens, body)].line });
    }
  }
  return found;
}

/**
 * Exported functions (`export [async] function f(…)`, `export const f = [async] (…) =>`) with
 * a one-letter parameter, as `{ name, line, params }`: an exported function is read where it
 * is called, and its parameters' names are the reader's only help there.
 */
export function oneLetterParams(tokens) {
  const found = [];
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k].t !== 'export') continue;
    let j = k + 1;
    if (tokens[j]?.t === 'default') j++;
    if (tokens[j]?.t === 'async') j++;
    let name;
    let open;
    if (tokens[j]?.t === 'function') {
      j++;
      if (tokens[j]?.t === '*') j++;
      name = tokens[j]?.t;
      j++;
      if (tokens[j]?.t === '<') j = skipAngles(tokens, j);
      open = j;
    } else if (tokens[j]?.t === 'const' && tokens[j + 2]?.t === '=') {
      name = tokens[j + 1].t;
      j += 3;
      if (tokens[j]?.t === 'async') j++;
      if (tokens[j]?.t === '<') j = skipAngles(tokens, j);
      if (tokens[j]?.t !== '(' || tokens[matchForward(tokens, j) + 1]?.t !== '=>') {
        // `(…): T =>` has a return type between the parameters and the arrow
        const close = tokens[j]?.t === '(' ? matchForward(tokens, j) : -1;
        if (close < 0 || tokens[close + 1]?.t !== ':') continue;
      }
      open = j;
    } else continue;
    if (tokens[open]?.t !== '(') continue;
    const params = [];
    const close = matchForward(tokens, open);
    let angle = 0; // inside a parameter's type arguments (`Tool<A, P, R>`): no parameter names there
    for (let i = open + 1; i < close; i++) {
      const t = tokens[i];
      if (OPEN.has(t.t)) {
        i = matchForward(tokens, i);
        continue;
      }
      if (t.t === '<') angle++;
      else if (t.t === '>' || t.t === '>>') angle = Math.max(0, angle - t.t.length);
      const first = tokens[i - 1].t === '(' || tokens[i - 1].t === ',' || tokens[i - 1].t === '...';
      if (angle === 0 && first && t.kind === 'word' && /^[A-Za-z_$]$/.test(t.t) && [':', ',', ')', '=', '?'].includes(tokens[i + 1]?.t))
        params.push(t.t);
    }
    if (params.length) found.push({ name, line: tokens[k].line, params });
  }
  return found;
}

/** Index just past the `>` that closes the type parameters opened at `k`. */
function skipAngles(tokens, k) {
  let depth = 0;
  for (let j = k; j < tokens.length; j++) {
    if (tokens[j].t === '<') depth++;
    else if (tokens[j].t === '>' && --depth === 0) return j + 1;
    else if (tokens[j].t === '>>') {
      depth -= 2;
      if (depth <= 0) return j + 1;
    }
  }
  return tokens.length;
}

/** The name an arrow is bound to (`const name = (…) =>` or `name: (…) =>`), else `(arrow)`. */
function arrowName(tokens, k) {
  let j = k - 1;
  if (tokens[j].t === ')') j = matchBackward(tokens, j);
  j--;
  if (tokens[j]?.t === 'async') j--;
  if ((tokens[j]?.t === '=' || tokens[j]?.t === ':') && tokens[j - 1]?.kind === 'word') return tokens[j - 1].t;
  return '(arrow)';
}

// The dashboard (packages/gateway/web) is shipped to browsers: production code as much as src/.
const dirs = [
  'proto/src',
  ...readdirSync(join(root, 'packages'))
    .filter((p) => p !== 'testkit')
    .map((p) => `packages/${p}/src`),
  'packages/gateway/web',
];
const files = dirs.flatMap((d) => sources(join(root, d)));
const longFunctions = [];
const longFiles = [];
const casts = [];
const oneLetter = [];
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  const where = relative(root, f);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) longFiles.push([lines, where]);
  const tokens = tokenize(text);
  for (const fn of functions(tokens)) {
    const n = fn.end - fn.start + 1;
    if (n > MAX_FUNCTION_LINES) longFunctions.push([n, `${where}:${fn.start} ${fn.name}`]);
  }
  for (const fn of oneLetterParams(tokens)) oneLetter.push(`${where}:${fn.line} ${fn.name}(${fn.params.join(', ')})`);
  for (let k = 0; k + 2 < tokens.length; k++) {
    if (tokens[k].t === 'as' && tokens[k + 1].t === 'unknown' && tokens[k + 2].t === 'as') {
      casts.push([tokens[k].line, where]);
    }
  }
}

// Every package's src/ root (the test kit's too, tests counted): more files than this want a folder.
const crowded = ['proto/src', ...readdirSync(join(root, 'packages')).map((p) => `packages/${p}/src`)]
  .map((d) => [readdirSync(join(root, d), { withFileTypes: true }).filter((e) => e.isFile()).length, d])
  .filter(([n]) => n > MAX_ROOT_FILES);

const byLength = (a, b) => b[0] - a[0];
const report = [
  [`functions over ${MAX_FUNCTION_LINES} lines`, longFunctions.sort(byLength).map(([n, w]) => `${n} ${w}`)],
  [`files over ${MAX_FILE_LINES} lines`, longFiles.sort(byLength).map(([n, w]) => `${n} ${w}`)],
  ['`as unknown as` casts', casts.map(([line, w]) => `${w}:${line}`)],
  ['exported functions with one-letter parameters', oneLetter],
  [`src/ roots over ${MAX_ROOT_FILES} files`, crowded.map(([n, d]) => `${n} ${d}`)],
];
for (const [title, hits] of report) {
  console.log(`${title} (production): ${hits.length}`);
  if (verbose) for (const h of hits) console.log(`  ${h}`);
}
