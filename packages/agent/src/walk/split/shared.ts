// What the walk worker and its helper thread share (walk-split.ts, walk/split/helper.ts): the
// slots of their control buffer and the messages on their port.
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import type { EntryErrorCode, PieceCounts, PlainFrame, Row, WalkRequest } from '@fleetls/core';
import { WalkCancelled } from '../cancelled.js';
import type { SkippedPath } from '../hung-mounts.js';
import type { LastRow, WorkerInput } from '../transit.js';

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

/** Which walk a piece is for: core's (split.ts) or the packed tree walk's (packed-split.ts). */
export type PieceKind = 'piece' | 'packed-piece';

/** A piece as the helper gets it: a range of one frame (P: core's PlainFrame, or packed-split.ts's). */
export interface PieceMessage<P = PlainFrame, T extends PieceKind = 'piece'> {
  t: T;
  id: number;
  frame: P;
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

/** What the helper posts for a piece: its counts, its rows, and its open directories as plain frames. */
export interface HelperResult<P = PlainFrame> extends PieceCounts, HelperRows {
  t: 'result';
  id: number;
  rest?: { next: number; frames: P[] };
}

/** The last row of a batch, as the walk resumes after it. */
export function lastRowOf(at: Row): LastRow {
  return at.kind === 'truncation'
    ? { path: at.truncation.dir.toString('latin1'), row: 'warning' }
    : { path: at.entry.path.toString('latin1'), row: at.entry.error ? 'error' : 'entry' };
}

/**
 * Bytes of rows the helper may hold for the walk, unspliced, before it is given more: each
 * held MiB is peak RSS (a 300k tree walk's target is 128 MiB, bench/results/footprint.md).
 */
const HELD_BYTES_MAX = 2 * 1024 * 1024;

/**
 * The walk worker's end of a split with a helper thread, whatever its frames are (split.ts:
 * core's; packed-split.ts: packed records'): pieces posted when the helper is idle, its
 * results received as they come, and the wait for the one the walk has reached, asking the
 * helper to stop it where it is. A helper that does not answer within `timeoutMs` (a hung
 * mount) is given up: it is told to quit and given nothing more, its pieces walked here.
 */
export class PieceChannel<R extends { id: number; bytes: number }> {
  private readonly ctl: Int32Array;
  private nextId = 1;
  private readonly done = new Map<number, R>();
  private held = 0;
  private dead = false;
  /** Pieces given (for the walk's metrics and tests). */
  given = 0;

  constructor(
    private readonly port: MessagePort,
    shared: SharedArrayBuffer,
    private readonly cancelled: () => boolean,
    private readonly timeoutMs: number,
  ) {
    this.ctl = new Int32Array(shared);
  }

  /** The helper waits for a piece, answers, and holds few enough unspliced rows to be given one. */
  wantsPiece(): boolean {
    if (Atomics.load(this.ctl, SPLIT.HUNGRY) !== 1 || this.dead) return false;
    // Results still on the port count: only take() received them, so a helper ahead of the
    // walk was given piece after piece while all it had finished waited there, uncounted.
    this.receive();
    return this.held <= HELD_BYTES_MAX;
  }

  /** Posts the piece `message(id)` and wakes the helper; returns its id. */
  post(message: (id: number) => object): number {
    const id = this.nextId++;
    const msg = message(id);
    Atomics.store(this.ctl, SPLIT.HUNGRY, 0);
    this.port.postMessage(msg);
    Atomics.add(this.ctl, SPLIT.WORK, 1);
    Atomics.notify(this.ctl, SPLIT.WORK);
    this.given++;
    return id;
  }

  private receive(): void {
    for (;;) {
      const got = receiveMessageOnPort(this.port);
      if (got === undefined) return;
      const r = got.message as R;
      this.held += r.bytes;
      this.done.set(r.id, r);
    }
  }

  /** Piece `id`'s result, waited for if the helper is still at it; undefined once the helper is given up. */
  take(id: number): R | undefined {
    if (this.dead) return undefined;
    this.receive();
    let r = this.done.get(id);
    if (r === undefined) {
      // Still at work on it: asked to stop where it is and send what it has.
      Atomics.store(this.ctl, SPLIT.GIVEBACK_ID, id);
      const since = Date.now();
      for (;;) {
        const posted = Atomics.load(this.ctl, SPLIT.POSTED);
        this.receive();
        r = this.done.get(id);
        if (r !== undefined) break;
        if (this.cancelled()) throw new WalkCancelled('walk cancelled');
        if (Date.now() - since > this.timeoutMs) {
          this.dead = true;
          Atomics.store(this.ctl, SPLIT.QUIT, 1);
          return undefined;
        }
        Atomics.wait(this.ctl, SPLIT.POSTED, posted, 50);
      }
      Atomics.store(this.ctl, SPLIT.GIVEBACK_ID, 0);
    }
    this.done.delete(id);
    this.held -= r.bytes;
    return r;
  }

  /** The walk is over: the helper leaves its loop. */
  quit(): void {
    Atomics.store(this.ctl, SPLIT.QUIT, 1);
    Atomics.notify(this.ctl, SPLIT.WORK);
  }
}

/** What a helper thread takes from the walk it helps, whichever kind of helper it is. */
export interface FromWalk {
  req: WalkRequest;
  allowedRoots: string[];
  /** The walk's control buffer (its CANCEL slot). */
  control: SharedArrayBuffer;
  skip: SkippedPath[];
}

export function fromWalk(input: WorkerInput): FromWalk {
  return { req: input.req, allowedRoots: input.allowedRoots, control: input.control, skip: input.skip };
}
