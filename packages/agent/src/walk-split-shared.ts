// What the walk worker and its helper thread share (walk-split.ts, walk-helper.ts): the
// slots of their control buffer and the messages on their port.
import type { EntryErrorCode, PlainFrame } from '@fleetls/core';
import type { LastRow } from './transit.js';

/** 1 while the helper waits for a piece. */
export const SPLIT_HUNGRY = 0;
/** Counts pieces posted to the helper (it waits on this). */
export const SPLIT_WORK = 1;
/** The piece the walk waits for: the helper stops it where it is. */
export const SPLIT_GIVEBACK_ID = 2;
/** Counts results the helper posted (the walk waits on this). */
export const SPLIT_POSTED = 3;
/** 1: the walk is over (or gave up on the helper). */
export const SPLIT_QUIT = 4;
export const SPLIT_SLOTS = 5;

export interface PieceMessage {
  t: 'piece';
  id: number;
  frame: PlainFrame;
  rootDev: number;
  startedAt: number;
}

export interface HelperMessage {
  t: 'result';
  id: number;
  sent: number;
  seen: number;
  matched: number;
  depthLimited: number;
  need: number;
  stopped: boolean;
  rest?: { next: number; frames: PlainFrame[] };
  /** Encoded rows (WalkResponse messages with rows only), and the entry rows in each. */
  bufs: ArrayBuffer[];
  entries: number[];
  last?: LastRow;
  errors: Partial<Record<EntryErrorCode, number>>;
  bytes: number;
}
