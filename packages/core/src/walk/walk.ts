// The walk engine: every limit, filter, order, ranking and truncation report of fleetls,
// written once. The agent runs it over its file system, the SSH backend over a listing
// loaded in memory; the same tree and request give the same rows on both paths.
//
// One concern per module: walk-raw-entry (what sources yield), walk-filter (which rows are
// shown, pruned, lstat'd), walk-state (summary, deadline, directory reads, descent),
// walk-tree and walk-ranked (the two shapes), walk-resume (paging a tree).
import type { Row, TreeSource, WalkRequest, WalkSummary } from '../domain/types.js';
import { type RankedShare, walkRanked } from './ranked.js';
import { toEntry } from './raw-entry.js';
import type { TreeSplitter } from './split.js';
import { type Ancestors, errorRow, WalkState } from './state.js';
import { walkTree } from './tree.js';

export { type RankedPart, type RankedShare, rankShare } from './ranked.js';
export { errorRawEntry, joinPath, lazyRawEntry, toEntry } from './raw-entry.js';
export { emptySummary, WalkState } from './state.js';
export { treeCompare, walkPiece } from './tree.js';

/**
 * `split`: a tree walk may give pieces to a helper thread (walk-split.ts); `share`: a ranked
 * walk may share the root's subdirectories with one (walk/ranked.ts).
 */
export function* walk(
  req: WalkRequest,
  source: TreeSource,
  now: () => number,
  split?: TreeSplitter,
  share?: RankedShare,
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
    ? walkRanked(state, root, rootEntry, rootChain, share)
    : walkTree(state, rootEntry, rootChain, req.dirSizes ? undefined : split);
  return state.finish();
}
