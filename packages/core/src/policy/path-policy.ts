// Request paths: validated and normalised lexically, then checked against the allowed roots.
// Pure string logic: the agent realpaths a path (resolving symlinks) before `assertAllowed`.
import { FleetError, invalidArgument } from '../errors/errors.js';

/** Longest request path, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

function quoted(s: string): string {
  return s.length > 80 ? `'${s.slice(0, 80)}…'` : `'${s}'`;
}

/**
 * Validates a request path (non-empty, absolute, no NUL, CR or LF, at most 4096 bytes) and
 * normalises it: '//' and '.' collapse, '..' resolves lexically ('/..' is '/'), no trailing '/'.
 * Errors name `arg` and the bound.
 */
export function normalizeRequestPath(input: string, arg = 'path'): string {
  if (typeof input !== 'string') throw invalidArgument(`${arg} must be a string, got ${typeof input}`);
  if (input.length === 0) throw invalidArgument(`${arg} must not be empty`);
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes > MAX_PATH_BYTES) throw invalidArgument(`${arg} must be at most ${MAX_PATH_BYTES} bytes, got ${bytes}`);
  if (input.includes('\0')) throw invalidArgument(`${arg} must not contain NUL bytes`);
  if (input.includes('\n') || input.includes('\r')) throw invalidArgument(`${arg} must not contain line breaks`);
  if (input[0] !== '/') throw invalidArgument(`${arg} must be absolute, got ${quoted(input)}`);
  const out: string[] = [];
  for (const part of input.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** Whether `path` is `root` or below it, component-wise: '/srv/a' is not inside '/srv/ab'. */
export function isInside(root: string, path: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || (path.startsWith(root) && path.charCodeAt(root.length) === 0x2f);
}

/** Throws permission_denied unless `path` (normalised, real) is inside one of `roots`. */
export function assertAllowed(path: string, roots: string[]): void {
  if (roots.length === 0) {
    throw new FleetError('permission_denied', 'no allowed roots are configured; start the agent with --allow DIR');
  }
  for (const root of roots) if (isInside(root, path)) return;
  // Each root once (an agent checks its configured roots and their real paths, often the same).
  const named = [...new Set(roots)].join(', ');
  throw new FleetError('permission_denied', `path ${quoted(path)} is outside the allowed roots (${named})`);
}
