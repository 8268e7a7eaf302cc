// Permission tests with find's meaning: `MODE` exactly these bits, `-MODE` all of them,
// `/MODE` any of them (`/000` matches everything, as in GNU find). MODE is octal or
// symbolic, built from no bits as find does (`g+w,o+w`, `u=rwx`, `/o+w`).
import { invalidArgument } from '../errors/errors.js';
import { quoted } from '../errors/quoted.js';
import type { PermMatch, PermSpec } from './filter-types.js';

export { PERM_MATCHES, type PermMatch, type PermSpec } from './filter-types.js';

export const PERM_HELP =
  'octal or symbolic mode: MODE = exactly these bits, -MODE = all of them, /MODE = any of them (e.g. 644, -u+x, /022, /o+w, u=rw,go=r)';

const CLAUSE = /^([ugoa]*)((?:[-+=][rwxst]*)+)$/;
const WHO_SHIFT: Record<string, number> = { u: 6, g: 3, o: 0 };

function symbolic(text: string): number | undefined {
  let mode = 0;
  for (const clause of text.split(',')) {
    const m = CLAUSE.exec(clause);
    if (!m) return undefined;
    const who = m[1] === '' || m[1].includes('a') ? 'ugo' : m[1];
    // The bits of `who` an '=' replaces, special bits included.
    let mask = 0;
    for (const w of who) mask |= (7 << WHO_SHIFT[w]) | (w === 'u' ? 0o4000 : w === 'g' ? 0o2000 : 0o1000);
    for (const op of m[2].match(/[-+=][rwxst]*/g) ?? []) {
      let bits = 0;
      for (const p of op.slice(1)) {
        for (const w of who) {
          if (p === 'r') bits |= 4 << WHO_SHIFT[w];
          else if (p === 'w') bits |= 2 << WHO_SHIFT[w];
          else if (p === 'x') bits |= 1 << WHO_SHIFT[w];
          else if (p === 's' && w !== 'o') bits |= w === 'u' ? 0o4000 : 0o2000;
          else if (p === 't' && w === 'o') bits |= 0o1000;
        }
      }
      if (op[0] === '+') mode |= bits;
      else if (op[0] === '-') mode &= ~bits;
      else mode = (mode & ~mask) | bits;
    }
  }
  return mode;
}

/** A find-style permission test from text such as `644`, `-220`, `/o+w`; `arg` names the argument. */
export function parsePerm(arg: string, value: unknown): PermSpec {
  const bad = (why = `is not a mode; use ${PERM_HELP}`) => invalidArgument(`${arg}: ${quoted(value)} ${why}`);
  if (typeof value !== 'string') throw bad();
  const s = value.trim();
  if (s.startsWith('+')) throw bad("uses find's obsolete +MODE; write /MODE for any of these bits");
  const match: PermMatch = s[0] === '-' ? 'all' : s[0] === '/' ? 'any' : 'exact';
  const body = match === 'exact' ? s : s.slice(1);
  const mode = /^[0-7]{1,4}$/.test(body) ? Number.parseInt(body, 8) : symbolic(body);
  if (mode === undefined || body === '') throw bad();
  return { match, mode };
}

/** Does an st_mode pass the test? Only permission bits (07777) are compared. */
export function permMatches(spec: PermSpec, mode: number): boolean {
  const bits = mode & 0o7777;
  if (spec.match === 'exact') return bits === spec.mode;
  if (spec.match === 'all') return (bits & spec.mode) === spec.mode;
  return spec.mode === 0 || (bits & spec.mode) !== 0;
}

/** The test as find writes it (`-perm` argument), octal. */
export function permArgument(spec: PermSpec): string {
  const octal = spec.mode.toString(8).padStart(4, '0');
  return spec.match === 'exact' ? octal : `${spec.match === 'all' ? '-' : '/'}${octal}`;
}
