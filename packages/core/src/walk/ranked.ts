// The ranked shape: one list over the whole walk, keeping the best offset + topN with a
// bounded heap (memory O(offset + topN), not O(entries)); offset + topN itself is bounded
// (MAX_RANKED_HELD). Children not kept are dropped as they are offered: nothing is held
// per directory entry beyond the heap.

import type { Entry, RankCut, RawEntry, Row, WalkRequest } from '../domain/types.js';
import { assertRankedHold } from '../limits/limits.js';
import { TopN } from '../order/top-n.js';
import { type Ancestors, errorRow, type Pending, type WalkState } from './state.js';

/**
 * What the source may drop unseen (RankCut): only when no filter but the types reads an entry
 * (an exclude, a hidden name, an include glob, a find filter would each need the entry itself).
 */
function rankCut(req: WalkRequest): RankCut | undefined {
  if (req.order === 'name' || req.excludeHidden || req.exclude.length > 0 || req.include.length > 0) return undefined;
  if (req.filter !== undefined) return undefined;
  return {
    order: req.order,
    sign: req.direction === 'descending' ? -1 : 1,
    worst: undefined,
    types: req.types.length > 0 ? new Set(req.types) : undefined,
    droppedMatched: 0,
    droppedUnmatched: 0,
  };
}

export function* walkRanked(
  state: WalkState,
  rootRaw: RawEntry,
  rootEntry: Entry,
  rootChain: Ancestors | undefined,
): Generator<Row, void> {
  const { req, summary, filter } = state;
  // Checked where the request was resolved too; asserted here, where the heap is made, for
  // every caller (the embedded backend's requests come resolved by the gateway's tools).
  assertRankedHold(req.topN, req.offset);
  const keep = new TopN<Pending>(req.offset + req.topN, (a, b) => state.compare(a.entry as Entry, b.entry as Entry));
  const cut = rankCut(req);
  const offer = (p: Pending): void => {
    if (!filter.accepts(state.entryOf(p))) return;
    summary.entriesMatched++;
    keep.push(p);
    if (cut !== undefined) cut.worst = keep.worst()?.entry;
  };
  const stack: { dir: Buffer; depth: number; chain: Ancestors | undefined; raw: RawEntry; entry: Entry }[] = [
    { dir: rootEntry.path, depth: 1, chain: rootChain, raw: rootRaw, entry: rootEntry },
  ];
  while (stack.length > 0 && !state.stopped) {
    const { dir, depth, chain, raw, entry: dirEntry } = stack.pop()!;
    if (state.outOfTime()) {
      state.stop('deadline', dir);
      break;
    }
    const error = state.readDir(
      dir,
      depth,
      true,
      req.offset + req.topN,
      (p) => {
        offer(p);
        const entry = p.entry as Entry;
        const d = state.descent(entry, p.raw.dev, chain);
        if (d.go) stack.push({ dir: entry.path, depth: depth + 1, chain: d.chain, raw: p.raw, entry });
        else if (d.error) offer({ raw: p.raw, dir, depth, entry: errorRow(entry, d.error) });
      },
      cut,
    );
    if (error) offer({ raw, dir, depth: dirEntry.depth, entry: errorRow(dirEntry, error) });
  }
  const ranked = keep.sorted().slice(req.offset);
  for (const p of ranked) {
    summary.entriesSent++;
    yield { kind: 'entry', entry: state.materialize(p) };
  }
  if (summary.entriesMatched > req.offset + req.topN) {
    summary.truncations.push({
      dir: Buffer.alloc(0),
      shown: ranked.length,
      total: summary.entriesMatched,
      reason: 'top_n',
    });
  }
}
