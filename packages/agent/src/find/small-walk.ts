// The small-tree trial of a walk meant for find (find/route.ts): the JS walker lists it first
// with its rows held, and find starts only once the trial saw more than FIND_AFTER_ENTRIES
// (a small tree is listed faster than find starts; a ranked walk sends its rows at its end
// anyway).
import type { Row, WalkRequest, WalkSummary } from '@fleetls/core';
import { walk } from '@fleetls/core';
import type { FsSource } from '../fs/source.js';
import { WalkCancelled } from '../walk/cancelled.js';

/** A walk done whole, its rows held. */
export interface HeldWalk {
  rows: Row[];
  summary: WalkSummary;
}

/**
 * The walk in the JS walker, while it stays within its limit; undefined once it saw more
 * (`tooBig`: the source then stops as on a cancel, and the caller starts find).
 */
export function smallWalk(
  req: WalkRequest,
  source: FsSource,
  tooBig: () => boolean,
  cancelled: () => boolean,
): HeldWalk | undefined {
  const rows: Row[] = [];
  const gen = walk(req, source, () => Date.now());
  try {
    for (;;) {
      const r = gen.next();
      if (r.done) return { rows, summary: r.value };
      rows.push(r.value);
    }
  } catch (err) {
    if (!tooBig() || cancelled() || !(err instanceof WalkCancelled)) throw err;
    return undefined;
  }
}

/** A walk already done, replayed. */
export function* held({ rows, summary }: HeldWalk): Generator<Row, WalkSummary, void> {
  yield* rows;
  return summary;
}
