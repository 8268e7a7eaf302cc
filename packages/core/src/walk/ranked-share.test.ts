// A ranked walk shared with a helper thread (RankedShare) gives the answer one thread gives:
// the root's subdirectories handed out to either side, each side's heap merged into the
// walk's, every count added. The helper is played here in process: it walks the indices the
// walk did not claim (every other one), over its own WalkState, when the walk asks for its part.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Entry, EntryError, Row, WalkRequest, WalkSummary } from '../domain/types.js';
import { recordAt, rootAt, walkRequest } from '../testing/index.js';
import { MemorySource, type SourceRecord } from './memory-source.js';
import { type RankedShare, rankShare } from './ranked.js';
import { WalkState } from './state.js';
import { walk } from './walk.js';

const ROOT = rootAt();

/** The records once (inodes are numbered as they are made): both sides' sources read the same tree. */
const RECS = records();

function tree(): MemorySource {
  const dirErrors = new Map<string, EntryError>([['locked', { code: 'DENIED', detail: 'permission denied' }]]);
  return new MemorySource(ROOT, RECS, { dirErrors });
}

function records(): SourceRecord[] {
  const recs: SourceRecord[] = [];
  // 40 directories of 40 each: more than a walk reads before it hands the rest out (1024).
  for (let d = 0; d < 40; d++) {
    recs.push(recordAt(`d${d}`, { type: 'dir', size: 4096, mtimeSec: 100 + d }));
    for (let s = 0; s < 40; s++) {
      const sub = s === 0 ? 'deep' : `s${s}`;
      recs.push(recordAt(`d${d}/${sub}`, { type: 'dir', size: 4096, mtimeSec: 50 }));
      for (let i = 0; i < 2; i++)
        // Ties on size and mtime across the two sides: the path decides them.
        recs.push(recordAt(`d${d}/${sub}/f${i}`, { size: (i * 7 + d) % 11, mtimeSec: 1000 + (i % 4) }));
    }
  }
  recs.push(recordAt('top.txt', { size: 16, mtimeSec: 3000 }));
  recs.push(recordAt('locked', { type: 'dir', size: 4096 }));
  return recs;
}

/** Directories the last in-process share handed out. */
let handedOut = 0;

function run(req: WalkRequest, share?: () => RankedShare): { rows: Row[]; summary: WalkSummary } {
  const rows: Row[] = [];
  const g = walk(req, tree(), () => 0, undefined, share?.());
  for (;;) {
    const r = g.next();
    if (r.done) return { rows, summary: r.value };
    rows.push(r.value);
  }
}

/** A share whose helper walks the odd indices (and whatever the walk left) when asked for its part. */
function inProcess(req: WalkRequest): () => RankedShare {
  return () => {
    let dirs: readonly Entry[] = [];
    let next = 0;
    const taken = new Set<number>();
    return {
      start(d) {
        dirs = d;
        handedOut = d.length;
      },
      claim() {
        while (next < dirs.length && next % 2 === 1) next++;
        if (next >= dirs.length) return undefined;
        taken.add(next);
        return next++;
      },
      finish() {
        const state = new WalkState(req, tree(), () => 0);
        state.rootDev = 1;
        let i = 0;
        return rankShare(state, dirs, () => {
          while (i < dirs.length && taken.has(i)) i++;
          return i < dirs.length ? i++ : undefined;
        });
      },
    };
  };
}

it('gives the rows and summary of the walk one thread walks: orders, directions, offsets, ties, errors', () => {
  for (const order of ['size', 'modified'] as const)
    for (const direction of ['descending', 'ascending'] as const)
      for (const [topN, offset] of [
        [1, 0],
        [9, 3],
        [40, 0],
        [1000, 0],
      ]) {
        const req = walkRequest({ shape: 'ranked', order, direction, topN, offset, maxDepth: 64 });
        const want = run(req);
        handedOut = 0;
        const got = run(req, inProcess(req));
        assert.deepEqual(got, want, JSON.stringify({ order, direction, topN, offset }));
        assert.ok(handedOut > 0, 'directories handed out');
      }
  // Depth-limited directories counted on both sides.
  const req = walkRequest({ shape: 'ranked', order: 'size', direction: 'descending', topN: 5, maxDepth: 2 });
  const want = run(req);
  assert.ok(want.summary.depthLimitedDirs > 0);
  assert.deepEqual(run(req, inProcess(req)), want);
});
