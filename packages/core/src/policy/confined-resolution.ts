// Symlink resolution that never looks outside the allowed roots. realpath(3) follows every
// link wherever it leads, so a refusal made after it can only say where the path went, and
// whether it failed as "not found" or as "outside" tells whether an outside path exists.
// Here each name is checked before it is looked up: a name that is neither inside a root
// nor an ancestor of one (the way down to a root) ends the resolution, unlooked-up, so the
// answer is the same whatever lies outside. Pure: the caller does each lookup (by
// descriptor, beneath the directory reached so far) and answers the generator's steps.

/** What a name looked up in the current directory turned out to be. */
export type NameKind =
  /** A directory: the caller has moved into it. */
  | 'dir'
  /** Anything else but a symlink (the caller stays where it was). */
  | 'other'
  /** A symlink: its target, as read (the caller stays where it was). */
  | Buffer;

/**
 * What the caller does next, from its current directory: `lookup` a name in it (and move
 * into it if it is a directory), go `up` to its parent, or back to `/`.
 */
export type ResolveStep = { op: 'lookup'; name: Buffer } | { op: 'up' } | { op: 'root' };

/** The resolution left the allowed roots; carries nothing about where. As errno EACCES. */
export class OutsideRoots extends Error {
  override name = 'OutsideRoots';
  readonly code = 'EACCES';
  constructor() {
    super('outside the allowed roots');
  }
}

/** Linux's MAXSYMLINKS: more links on one path fail with ELOOP, as the kernel's lookup does. */
export const MAX_SYMLINKS = 40;

const SLASH = 0x2f;
const DOT = Buffer.from('.');
const DOTDOT = Buffer.from('..');

function errnoError(code: 'ELOOP' | 'ENOTDIR', message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The non-empty components of a path (bytes). */
export function pathComponents(path: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path[i] === SLASH) {
      if (i > start) parts.push(path.subarray(start, i));
      start = i + 1;
    }
  }
  return parts;
}

function joined(parts: readonly Buffer[]): Buffer {
  if (parts.length === 0) return Buffer.from('/');
  const out: Buffer[] = [];
  for (const p of parts) out.push(Buffer.from('/'), p);
  return Buffer.concat(out);
}

/** Whether `inner` is `outer` or below it, component-wise. */
export function isBelow(outer: Buffer, inner: Buffer): boolean {
  if (outer.length === 1 && outer[0] === SLASH) return inner[0] === SLASH;
  if (inner.length < outer.length || !inner.subarray(0, outer.length).equals(outer)) return false;
  return inner.length === outer.length || inner[outer.length] === SLASH;
}

/** Inside a root, or on the way down to one: the only places a resolution may look. */
function mayLook(path: Buffer, roots: readonly Buffer[]): boolean {
  for (const root of roots) if (isBelow(root, path) || isBelow(path, root)) return true;
  return false;
}

/**
 * Resolves the absolute `path` (symlinks followed, `..` taken physically) from `/`, yielding
 * each lookup for the caller to make, and returns the real path. `followFinal`: the last
 * name is looked up (and followed) too; otherwise it is returned unlooked-up beside its
 * resolved parent. Throws OutsideRoots before looking up any name that is neither inside
 * one of `roots` nor an ancestor of one; ELOOP past MAX_SYMLINKS; ENOTDIR when a name
 * that must be a directory is not. The caller still checks that the answer is inside a
 * root (an ancestor is a way through, not a place to read).
 */
export function* confinedResolution(
  path: Buffer,
  roots: readonly Buffer[],
  followFinal: boolean,
): Generator<ResolveStep, Buffer, NameKind | undefined> {
  /** The real directories reached so far, from `/`. */
  const reached: Buffer[] = [];
  /** Names still to resolve, the next one last. */
  const pending = pathComponents(path).reverse();
  let links = 0;
  while (pending.length > 0) {
    const name = pending.pop() as Buffer;
    if (name.equals(DOT)) continue;
    if (name.equals(DOTDOT)) {
      // The parent of a real directory is its path's parent: no lookup, and on the way to a root.
      if (reached.length > 0) {
        reached.pop();
        yield { op: 'up' };
      }
      continue;
    }
    const last = pending.length === 0;
    const candidate = [...reached, name];
    if (!mayLook(joined(candidate), roots)) throw new OutsideRoots();
    if (last && !followFinal) return joined(candidate);
    const kind = yield { op: 'lookup', name };
    if (kind === 'dir') {
      reached.push(name);
      continue;
    }
    if (kind === 'other' || kind === undefined) {
      if (!last) throw errnoError('ENOTDIR', 'not a directory');
      return joined(candidate);
    }
    if (++links > MAX_SYMLINKS) throw errnoError('ELOOP', 'too many levels of symbolic links');
    if (kind[0] === SLASH) {
      reached.length = 0;
      yield { op: 'root' };
    }
    const target = pathComponents(kind);
    for (let i = target.length - 1; i >= 0; i--) pending.push(target[i]);
  }
  return joined(reached);
}
