// Running the walk engine to the end in a test: the request with defaults, and the rows and
// summary it yields.

import type { Row, TreeSource, WalkRequest, WalkSummary } from '../domain/types.js';
import { WALK_DEFAULTS } from '../limits/limits.js';
import { walk } from '../walk/walk.js';

/** The engine's defaults at `/r`, then `over`. */
export function walkRequest(over: Partial<WalkRequest> = {}): WalkRequest {
  return { ...WALK_DEFAULTS, path: '/r', ...over };
}

/** Every row of one walk, and its summary; the clock stands still unless `now` is given. */
export function runWalk(
  req: WalkRequest,
  source: TreeSource,
  now: () => number = () => 0,
): { rows: Row[]; summary: WalkSummary } {
  const rows: Row[] = [];
  const it = walk(req, source, now);
  for (;;) {
    const r = it.next();
    if (r.done) return { rows, summary: r.value };
    rows.push(r.value);
  }
}
