// The walk engine: every limit, filter, order, ranking and truncation report of fleetls,
// written once. The agent runs it over its file system, the SSH backend over a listing
// loaded in memory; the same tree and request give the same rows on both paths.
//
// One concern per module: walk-raw-entry (what sources yield), walk-filter (which rows are
// shown, pruned, lstat'd), walk-state (summary, deadline, directory reads, descent),
// walk-tree and walk-ranked (the two shapes), walk-resume (paging a tree).
import type { Row, TreeSource, WalkRequest, WalkSummary } from './types.js';
import { walkRanked } from './walk-ranked.js';
import { toEntry } from './walk-raw-entry.js';
import type { TreeSplitter } from './walk-split.js';
import { type Ancestors, errorRow, WalkState } from './walk-state.js';
import { walkTree } from './walk-tree.js';

export { errorRawEntry, joinPath, lazyRawEntry, toEntry } from './walk-raw-entry.js';
export { emptySummary, WalkState } from './walk-state.js';
export { treeCompare, walkPiece } from './walk-tree.js';

/** `split`: a tree walk may give pieces to a helper thread (walk-split.ts). */
export function* walk(
  req: WalkRequest,
  source: TreeSource,
  now: () => number,
  split?: TreeSplitter,
): Generator<Row, WalkSummary, void> {
  const state = new WalkState(req, source, now);
  const root = source.root();
  const rootEntry = toEntry(root, Buffer.alloc(0), 0);
  rootEntry.path = Buffer.alloc(0);
  if (root.error || root.type !== 'dir') {
    state.summary.entriesSent = 1;
    const entry = root.error ? rootEntry : errorRow(rootEntry, { code: 'ERROR', detail: 'not a directory' });
    yield { kind: 'entry', entry };
    return state.finish();
  }
  state.rootDev = root.dev;
  const rootChain: Ancestors | undefined = req.followSymlinks ? { key: `${root.dev}:${root.inode}` } : undefined;
  yield* req.shape === 'ranked'
    ? walkRanked(state, root, rootEntry, rootChain)
    : walkTree(state, rootEntry, rootChain, req.dirSizes ? undefined : split);
  return state.finish();
}
