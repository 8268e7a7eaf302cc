// What a walk has left to do when its worker got stuck on a hung mount (walker.ts): the
// request a fresh worker runs, from the last row the stuck one sent, and its summary read
// as the whole walk's.
import type { WalkRequest } from '@fleetls/core';
import type { LastRow, PlainSummary } from './transit.js';

/**
 * The rest of a walk after `last`, the last row a stuck worker sent: a tree resumes after
 * it; a ranked list (sent whole at the end) skips the rows already sent. Limits and the
 * deadline are what is left of them.
 */
export function resumeRequest(
  req: WalkRequest,
  sent: number,
  last: LastRow | undefined,
  elapsedMs: number,
): WalkRequest {
  const deadlineMs = Math.max(1, req.deadlineMs - elapsedMs);
  if (req.shape === 'ranked')
    return { ...req, deadlineMs, offset: req.offset + sent, topN: Math.max(1, req.topN - sent) };
  if (last === undefined) return { ...req, deadlineMs };
  return {
    ...req,
    deadlineMs,
    maxEntries: Math.max(0, req.maxEntries - sent),
    after: Buffer.from(last.path, 'latin1'),
    afterRow: last.row,
  };
}

/**
 * The last part's summary as the whole walk's: the rows the earlier parts sent and the
 * entries they saw added, the time since the walk started.
 */
export function wholeWalkSummary(
  summary: PlainSummary,
  sentBefore: number,
  seenBefore: number,
  elapsedMs: number,
): PlainSummary {
  return {
    ...summary,
    entriesSent: summary.entriesSent + sentBefore,
    entriesMatched: summary.entriesMatched + sentBefore,
    entriesSeen: summary.entriesSeen + seenBefore,
    elapsedMs,
  };
}
