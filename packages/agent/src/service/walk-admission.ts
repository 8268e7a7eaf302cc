// How many walks run at once, and the refusal of one more: shared by the agent's service
// (every carrier) and the embedded backend of the gateway, so `localhost` served in the
// gateway process admits walks as an agent does and answers with the same refusal.
import { FleetError, type WalkRequest } from '@fleetls/core';
import type { WalkPool } from '../walk/pool.js';

/** Walks served at once unless configured (`max_concurrent_walks`). */
export const DEFAULT_MAX_CONCURRENT_WALKS = 8;

/**
 * A ranked walk holding more than this many entries (offset + top_n) is a big one. Each
 * holds up to MAX_RANKED_HELD entries, some 75 MiB of its worker's heap over a directory of
 * a million files: four at once took the agent to 380 MiB, past its unit's MemoryMax=256M
 * (issue 35, F6). Two at once fit.
 */
export const BIG_RANKED_HOLD = 10_000;
export const MAX_BIG_RANKED_WALKS = 2;

/** Whether `req` is a big ranked walk (BIG_RANKED_HOLD). */
export function isBigRanked(req: Pick<WalkRequest, 'shape' | 'topN' | 'offset'>): boolean {
  return req.shape === 'ranked' && req.topN + req.offset > BIG_RANKED_HOLD;
}

export interface WalkAdmission {
  /**
   * Takes a slot, or throws `resource_exhausted` when every slot is taken, by walks or by
   * workers stuck on hung mounts; the returned function gives it back (once). Taken before
   * any await of the call (its path resolution): a check there with the slot taken after
   * let every call of a burst that arrived at once past it, each resolved its path on the
   * libuv pool, and only then were all but max refused (bench/results/load.why.md).
   * `req`: a big ranked walk (isBigRanked) also takes one of MAX_BIG_RANKED_WALKS.
   */
  enter(req?: Pick<WalkRequest, 'shape' | 'topN' | 'offset'>): () => void;
  /** Walks holding a slot. */
  active(): number;
  readonly max: number;
}

/** Admission over `pool`'s workers: a worker stuck on a hung mount holds a slot until its call returns. */
export function createWalkAdmission(max: number, pool: WalkPool): WalkAdmission {
  let active = 0;
  let big = 0;
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
    enter(req) {
      check();
      const heavy = req !== undefined && isBigRanked(req);
      if (heavy && big >= MAX_BIG_RANKED_WALKS) {
        throw new FleetError(
          'resource_exhausted',
          `too many big ranked walks: ${big} running that hold more than ${BIG_RANKED_HOLD} entries ` +
            `(offset + top_n), at most ${MAX_BIG_RANKED_WALKS} at once; ask for fewer or try again`,
        );
      }
      active++;
      if (heavy) big++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        active--;
        if (heavy) big--;
      };
    },
    active: () => active,
  };
}
