// The ranked shape: one list over the whole walk, keeping the best offset + topN with a
// bounded heap (memory O(offset + topN), not O(entries)).
import { TopN } from './top-n.js';
import type { Entry, Row } from './types.js';
import { type Ancestors, errorRow, type Pending, type WalkState } from './walk-state.js';

export function* walkRanked(
  state: WalkState,
  rootEntry: Entry,
  rootChain: Ancestors | undefined,
): Generator<Row, void> {
  const { req, summary, filter } = state;
  const keep = new TopN<Pending>(req.offset + req.topN, (a, b) => state.compare(a.entry, b.entry));
  const offer = (p: Pending): void => {
    if (!filter.accepts(p.entry)) return;
    summary.entriesMatched++;
    keep.push(p);
  };
  const stack: { dir: Buffer; depth: number; chain: Ancestors | undefined; entry: Entry }[] = [
    { dir: rootEntry.path, depth: 1, chain: rootChain, entry: rootEntry },
  ];
  while (stack.length > 0 && !state.stopped) {
    const { dir, depth, chain, entry: dirEntry } = stack.pop()!;
    if (state.outOfTime()) {
      state.stop('deadline', dir);
      break;
    }
    const error = state.readDir(dir, depth, (p) => {
      offer(p);
      const d = state.descent(p.entry, p.dev, chain);
      if (d.go) stack.push({ dir: p.entry.path, depth: depth + 1, chain: d.chain, entry: p.entry });
      else if (d.error) offer({ entry: errorRow(p.entry, d.error), dev: p.dev, dir });
    });
    if (error) offer({ entry: errorRow(dirEntry, error), dev: state.rootDev, dir });
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
