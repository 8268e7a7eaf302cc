// Where a request may go: its path must be absolute and normalised (core's path policy),
// inside the allowed roots as written AND after resolving symlinks, and it must exist (its
// parent here; a last name left unresolved, by the call that reads it). A refusal names the
// path asked for only: what lies outside the roots is neither looked up nor told.
// Used by the gRPC service and the embedded backend alike; errors are FleetErrors.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { assertAllowed, FleetError, fleetErrorAt, isInside, normalizeRequestPath, OutsideRoots } from '@fleetls/core';
import { resolveConfinedAsync } from '../fs/confined-path.js';
import { bounded, defaultFsGuard, type FsGuard } from '../walk/bounded-call.js';

export interface AllowedRoots {
  /** As configured (normalised), under `rootfs` when set. */
  configured: string[];
  /** Their real paths (symlinks resolved); the walker is confined to these. */
  real: string[];
  /** The host's / as mounted here (--path-rootfs); request paths are read under it. */
  rootfs?: string;
}

/**
 * Resolves the configured roots once, at startup. A root that does not exist is kept as
 * written. With `rootfs`, roots name host paths and are resolved under it, so a host's
 * absolute symlink resolves inside this file system and is refused unless it lands back
 * inside the roots.
 */
export function resolveRoots(roots: string[], rootfs?: string): AllowedRoots {
  const configured = roots.map((r) => underRootfs(nodePath.resolve(r), rootfs));
  const real = configured.map((r) => {
    try {
      return fs.realpathSync(r);
    } catch {
      return r;
    }
  });
  return { configured, real: [...new Set(real)], ...(rootfs ? { rootfs } : {}) };
}

/** A normalised absolute host path, as seen from here. */
function underRootfs(path: string, rootfs: string | undefined): string {
  return rootfs ? nodePath.join(rootfs, path) : path;
}

/**
 * Checks a request path and returns the real path to operate on. `followFinal`: resolve the
 * last component too (Walk; Stat with follow_symlinks); otherwise only its parent, so that
 * a symlink itself can be described without following it.
 */
export async function resolveAllowedPath(
  input: string,
  roots: AllowedRoots,
  followFinal: boolean,
  arg = 'path',
  guard: FsGuard = defaultFsGuard(),
): Promise<string> {
  const path = underRootfs(normalizeRequestPath(input, arg), roots.rootfs);
  if (roots.configured.length === 0) {
    throw new FleetError(
      'permission_denied',
      `${arg}: no allowed roots are configured on this agent (start it with --allow DIR)`,
    );
  }
  assertAllowed(path, [...roots.configured, ...roots.real]);
  // Resolved by descriptor, beneath the roots: a name outside them is refused before it is
  // looked up, and the refusal names the path asked for, never where it led (confined-path.ts).
  const lookable = [...roots.configured, ...roots.real].map((r) => Buffer.from(r));
  let real: string;
  try {
    const resolved = await bounded(path, guard, () => resolveConfinedAsync(Buffer.from(path), lookable, followFinal));
    real = resolved.toString();
  } catch (err) {
    if (err instanceof OutsideRoots) throw leadsOutside(arg, path, err);
    throw fleetErrorAt(err, path);
  }
  // A way down to a root (an ancestor of one) is not a place to read.
  if (real !== path && !roots.real.some((root) => isInside(root, real))) throw leadsOutside(arg, path);
  return real;
}

/** The refusal of a path whose resolution leaves the roots: the path as asked, nothing of where it led. */
function leadsOutside(arg: string, path: string, cause?: unknown): FleetError {
  return new FleetError('permission_denied', `${arg}: ${path} leads outside the allowed roots`, { cause });
}
