// How many walks run at once, and the refusal of one more: shared by the agent's service
// (every carrier) and the embedded backend of the gateway, so `localhost` served in the
// gateway process admits walks as an agent does and answers with the same refusal.
import { FleetError } from '@fleetls/core';
import type { WalkPool } from '../walk/pool.js';

/** Walks served at once unless configured (`max_concurrent_walks`). */
export const DEFAULT_MAX_CONCURRENT_WALKS = 8;

export interface WalkAdmission {
  /**
   * Takes a slot, or throws `resource_exhausted` when every slot is taken, by walks or by
   * workers stuck on hung mounts; the returned function gives it back (once). Taken before
   * any await of the call (its path resolution): a check there with the slot taken after
   * let every call of a burst that arrived at once past it, each resolved its path on the
   * libuv pool, and only then were all but max refused (bench/results/load.why.md).
   */
  enter(): () => void;
  /** Walks holding a slot. */
  active(): number;
  readonly max: number;
}

/** Admission over `pool`'s workers: a worker stuck on a hung mount holds a slot until its call returns. */
export function createWalkAdmission(max: number, pool: WalkPool): WalkAdmission {
  let active = 0;
  const check = (): void => {
    const stuck = pool.stuckWorkers();
    if (stuck >= max) {
      const mounts = pool.hung.active().map((h) => h.point);
      // Not `unavailable`: the gateway would report the host unreachable, and it answers.
      throw new FleetError(
        'resource_exhausted',
        `every walk worker (${stuck} of max_concurrent_walks ${max}) is stuck in a file system call that does not ` +
          `return${mounts.length > 0 ? ` (hung: ${mounts.join(', ')})` : ''}; walks are refused until one returns`,
      );
    }
    if (active + stuck >= max) {
      throw new FleetError(
        'resource_exhausted',
        `too many concurrent walks: ${active} running${stuck > 0 ? `, ${stuck} workers stuck on hung mounts` : ''}, ` +
          `max_concurrent_walks is ${max}`,
      );
    }
  };
  return {
    max,
    enter() {
      check();
      active++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        active--;
      };
    },
    active: () => active,
  };
}
