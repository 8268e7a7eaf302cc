// The walk worker's side of a tree walk split with a helper thread (core's walk-split.ts):
// it hands the helper the back half of its lowest open directory with children to spare
// whenever the helper is idle, and when its walk reaches a piece it takes the helper's
// rows (asking it to stop where it is if it has not finished: what is left comes back as
// open directories, walked here). The two threads share a small control buffer (the
// helper's state, wake-up counters) and talk over a MessagePort read synchronously, so
// neither leaves its synchronous walk. A helper that does not answer within the file
// system timeout (a hung mount) is given nothing more, and its pieces are walked here.
import {
  type Frame,
  frameFromPlain,
  frameToPlain,
  type Mark,
  nameKey,
  type PieceResult,
  type TreeSplitter,
} from '@fleetls/core';
import type { LastRow } from '../transit.js';
import type { HelperMessage, HelperRows, PieceChannel, PieceMessage } from './shared.js';

/** A range of only files is worth a piece from this many children (a directory from 2). */
const MIN_FILE_PIECE = 512;

/** A helper's piece as the walk keeps it: core's PieceResult and the rows to splice. */
export interface SplitResult extends PieceResult, HelperRows {}

/** Posts one encoded batch of the helper's rows, after what the walk sent so far. */
export type SplitSink = (buf: ArrayBuffer, entries: number, last: LastRow) => void;

export class ThreadSplitter implements TreeSplitter {
  spliced = 0;

  constructor(
    private readonly channel: PieceChannel<HelperMessage>,
    private readonly rootDev: () => number,
    private readonly startedAt: number,
    private readonly sink: SplitSink,
    private readonly onCounts: (r: SplitResult) => void,
  ) {}

  /** Pieces given (for the walk's metrics and tests). */
  get given(): number {
    return this.channel.given;
  }

  step(stack: readonly Frame[]): void {
    if (!this.channel.wantsPiece()) return;
    for (const f of stack) {
      const ownEnd = f.marks !== undefined ? f.marks[0].start : (f.end ?? f.len);
      const rem = ownEnd - f.next;
      if (rem < 2) continue;
      if (rem < MIN_FILE_PIECE && !hasDir(f, f.next + 1, ownEnd)) continue;
      const mid = f.next + Math.ceil(rem / 2);
      const id = this.channel.post(
        (id): PieceMessage => ({
          t: 'piece',
          id,
          frame: frameToPlain(f, mid, ownEnd, true),
          rootDev: this.rootDev(),
          startedAt: this.startedAt,
        }),
      );
      (f as Frame).marks = [{ start: mid, stop: ownEnd, id }, ...(f.marks ?? [])];
      return;
    }
  }

  take(_f: Frame, m: Mark): PieceResult | undefined {
    const r = this.channel.take(m.id);
    if (r === undefined) return undefined;
    const taken: SplitResult = {
      ...r,
      rest: r.rest && { next: r.rest.next, frames: r.rest.frames.map((pf) => frameFromPlain(pf, nameKey)) },
    };
    return taken;
  }

  splice(p: PieceResult): void {
    const r = p as SplitResult;
    this.spliced++;
    this.onCounts(r);
    for (let i = 0; i < r.bufs.length; i++) this.sink(r.bufs[i], r.entries[i], r.last as LastRow);
  }

  discard(_r: PieceResult): void {}

  /** The walk is over: the helper leaves its loop. */
  quit(): void {
    this.channel.quit();
  }
}

function hasDir(f: Frame, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (f.kept[i - f.off].raw.type === 'dir') return true;
  return false;
}
