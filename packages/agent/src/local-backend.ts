// The agent embedded in the gateway: `localhost` with no inventory. Same path policy,
// walker and stat as the gRPC service, no network; errors are FleetErrors.
import type { HostBackend, Row, StatInfo, WalkRequest, WalkSummary } from '@fleetls/core';
import { FleetError, fleetErrorAt } from '@fleetls/core';
import { resolveFilterNames } from './id-names.js';
import { resolveAllowedPath, resolveRoots } from './policy.js';
import { prepareWalk } from './service.js';
import { statPath } from './stat.js';
import { AGENT_VERSION } from './version.js';
import { startWalk } from './walker.js';

export function createLocalBackend(opts: { allowedRoots?: string[] } = {}): HostBackend {
  const roots = resolveRoots(opts.allowedRoots ?? ['/']);
  return {
    via: 'embedded',

    async *walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
      if (signal.aborted) throw new FleetError('cancelled', 'walk cancelled');
      const running = startWalk(await resolveFilterNames(await prepareWalk(req, roots)), { allowedRoots: roots.real });
      const onAbort = () => running.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return yield* running.batches;
      } finally {
        signal.removeEventListener('abort', onAbort);
        running.cancel();
      }
    },

    async stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
      if (signal.aborted) throw new FleetError('cancelled', 'stat cancelled');
      const real = await resolveAllowedPath(path, roots, followSymlinks);
      try {
        return await statPath(real, followSymlinks);
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
