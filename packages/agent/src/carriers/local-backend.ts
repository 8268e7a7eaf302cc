// The agent embedded in the gateway: `localhost` with no inventory, or where the inventory
// names it. Same path policy, walker, stat and admission (max concurrent walks, the same
// refusal) as the gRPC service, no network; errors are FleetErrors.
import type { HostBackend, OnEntriesSeen, Row, StatInfo, WalkRequest, WalkSummary } from '@fleetls/core';
import { FleetError, fleetErrorAt } from '@fleetls/core';
import { resolveFilterNames } from '../service/id-names.js';
import { resolveAllowedPath, resolveRoots } from '../service/policy.js';
import { prepareWalk } from '../service/prepare-walk.js';
import { statPath } from '../service/stat.js';
import { createWalkAdmission, DEFAULT_MAX_CONCURRENT_WALKS } from '../service/walk-admission.js';
import { AGENT_VERSION } from '../version.js';
import type { FsGuard } from '../walk/bounded-call.js';
import { DEFAULT_FS_TIMEOUT_MS } from '../walk/hung-mounts.js';
import { WalkPool } from '../walk/pool.js';
import { watchSeen } from '../walk/progress.js';
import { startWalk } from '../walk/walker.js';

export interface LocalBackendOptions {
  /** Default `/`: the whole machine, as the user running the gateway sees it. */
  allowedRoots?: string[];
  /** Walks at once; one more is refused as the agent refuses it (default 8, the agent's). */
  maxConcurrentWalks?: number;
}

export function createLocalBackend(opts: LocalBackendOptions = {}): HostBackend {
  const roots = resolveRoots(opts.allowedRoots ?? ['/']);
  // Without it every call started a walk and its worker thread (~15 MiB each): 300 at once took 3.5 GB.
  // The backend's own workers and hung-mount memory (never shared with another backend or agent).
  const pool = new WalkPool();
  const guard: FsGuard = { timeoutMs: DEFAULT_FS_TIMEOUT_MS, hung: pool.hung };
  const admission = createWalkAdmission(opts.maxConcurrentWalks ?? DEFAULT_MAX_CONCURRENT_WALKS, pool);
  return {
    via: 'embedded',

    async *walk(
      req: WalkRequest,
      signal: AbortSignal,
      onEntriesSeen?: OnEntriesSeen,
    ): AsyncGenerator<Row[], WalkSummary, void> {
      if (signal.aborted) throw new FleetError('cancelled', 'walk cancelled');
      // As the agent: the slot is taken before the path is resolved (service/walk-admission.ts).
      const release = admission.enter(req);
      try {
        const prepared = await resolveFilterNames(await prepareWalk(req, roots, guard));
        const running = startWalk(prepared, { pool, allowedRoots: roots.real, maxStuckWorkers: admission.max });
        const onAbort = () => running.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
        const unwatch = onEntriesSeen ? watchSeen(running.seen, onEntriesSeen) : () => {};
        try {
          return yield* running.batches;
        } finally {
          unwatch();
          signal.removeEventListener('abort', onAbort);
          running.cancel();
        }
      } finally {
        release();
      }
    },

    async stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
      if (signal.aborted) throw new FleetError('cancelled', 'stat cancelled');
      const real = await resolveAllowedPath(path, roots, followSymlinks, 'path', guard);
      try {
        return await statPath(real, followSymlinks, guard);
      } catch (err) {
        throw fleetErrorAt(err, path);
      }
    },

    async probe(): Promise<{ version: string }> {
      return { version: AGENT_VERSION };
    },

    close(): void {},
  };
}
