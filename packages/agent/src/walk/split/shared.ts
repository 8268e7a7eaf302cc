// What the walk worker and its helper thread share (walk-split.ts, walk/split/helper.ts): the
// slots of their control buffer and the messages on their port.
import type { EntryErrorCode, PieceResult, PlainFrame, Row } from '@fleetls/core';
import type { LastRow } from '../transit.js';

/** The slots of the control buffer (Int32, SPLIT.SLOTS of them). */
export const SPLIT = {
  /** 1 while the helper waits for a piece. */
  HUNGRY: 0,
  /** Counts pieces posted to the helper (it waits on this). */
  WORK: 1,
  /** The piece the walk waits for: the helper stops it where it is. */
  GIVEBACK_ID: 2,
  /** Counts results the helper posted (the walk waits on this). */
  POSTED: 3,
  /** 1: the walk is over (or gave up on the helper). */
  QUIT: 4,
  SLOTS: 5,
} as const;

export interface PieceMessage {
  t: 'piece';
  id: number;
  frame: PlainFrame;
  rootDev: number;
  startedAt: number;
}

/** The rows a helper walked for a piece, encoded, and what they hold. */
export interface HelperRows {
  /** Encoded rows (WalkResponse messages with rows only), and the entry rows in each. */
  bufs: ArrayBuffer[];
  entries: number[];
  last?: LastRow;
  errors: Partial<Record<EntryErrorCode, number>>;
  bytes: number;
}

/** What the helper posts for a piece: core's PieceResult with its open directories as plain frames, and its rows. */
export interface HelperMessage extends Omit<PieceResult, 'rest'>, HelperRows {
  t: 'result';
  rest?: { next: number; frames: PlainFrame[] };
}

/** The last row of a batch, as the walk resumes after it. */
export function lastRowOf(at: Row): LastRow {
  return at.kind === 'truncation'
    ? { path: at.truncation.dir.toString('latin1'), row: 'warning' }
    : { path: at.entry.path.toString('latin1'), row: at.entry.error ? 'error' : 'entry' };
}
