// A walk request confined to the allowed roots (its path resolved to a real path beneath
// one of them): shared by the gRPC service and the embedded backend, and apart from the
// service so that the embedded backend loads no gRPC.
import type { WalkRequest } from '@fleetls/core';
import { defaultFsGuard, type FsGuard } from '../walk/bounded-call.js';
import { type AllowedRoots, resolveAllowedPath } from './policy.js';

/** Shared by the service and the embedded backend: the request, validated and confined. */
export async function prepareWalk(
  req: WalkRequest,
  roots: AllowedRoots,
  guard: FsGuard = defaultFsGuard(),
): Promise<WalkRequest> {
  const real = await resolveAllowedPath(req.path, roots, true, 'path', guard);
  return { ...req, path: real };
}
