// The one check both agent routes (gRPC and NATS) make of a walk's filters.
import { FleetError } from '@fleetls/core';

/**
 * An agent that does not apply every filter of the request would return rows it should have
 * left out: the host fails instead, naming what is missing and the agent's version.
 */
export function refuseMissing(
  agent: string,
  requested: readonly string[],
  applied: readonly string[],
  version: string | undefined,
  where: string,
): void {
  const missing = requested.filter((f) => !applied.includes(f));
  if (missing.length === 0) return;
  throw new FleetError(
    'internal',
    `agent ${agent} (version ${version ?? 'unknown'}) does not apply ${missing.join(', ')} (${where}); ` +
      'its rows would be unfiltered: upgrade the agent or drop the filter',
  );
}
