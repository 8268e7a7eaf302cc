// The walk worker's side of a tree walk split with a helper thread (core's walk/split.ts),
// for either tree walk: core's frames (CORE_FRAMES, here) or packed records' (PACKED_FRAMES,
// packed-split.ts). It hands the helper the back half of its lowest open directory with
// children to spare whenever the helper is idle, and when its walk reaches a piece it takes
// the helper's rows (asking it to stop where it is if it has not finished: what is left comes
// back as open directories, walked here). The two threads share a small control buffer (the
// helper's state, wake-up counters) and talk over a MessagePort read synchronously, so
// neither leaves its synchronous walk. A helper that does not answer within the file
// system timeout (a hung mount) is given nothing more, and its pieces are walked here.
import {
  type Frame,
  frameFromPlain,
  frameToPlain,
  type Mark,
  nameKey,
  type PlainFrame,
  type SplitFrame,
  type SplitPiece,
  type Splitter,
} from '@fleetls/core';
import type { LastRow } from '../transit.js';
import type { HelperResult, HelperRows, PieceChannel, PieceKind } from './shared.js';

/** Posts one encoded batch of the helper's rows, after what the walk sent so far. */
export type SplitSink = (buf: ArrayBuffer, entries: number, last: LastRow) => void;

/** How one kind of frame is cut into pieces and crosses to the helper and back. */
export interface FrameCodec<F extends SplitFrame, P> {
  /** The piece message's tag: the helper walks it with the matching walk (helper.ts). */
  readonly piece: PieceKind;
  /** Are `frame`'s children after `next`, up to `end`, worth a piece? */
  worth(frame: F, next: number, end: number): boolean;
  /** Children [from, to) of `frame`, the piece's range, as its plain frame. */
  toPlain(frame: F, from: number, to: number): P;
  /** A frame the helper gave back open, as the walk's own. */
  fromPlain(plain: P): F;
}

/** A range of only files is worth a piece from this many children (a directory from 2). */
const MIN_FILE_PIECE = 512;

/** Core's frames: a child's type is its RawEntry's. */
export const CORE_FRAMES: FrameCodec<Frame, PlainFrame> = {
  piece: 'piece',
  worth(frame, next, end) {
    if (end - next >= MIN_FILE_PIECE) return true;
    for (let i = next + 1; i < end; i++) if (frame.kept[i - frame.off].raw.type === 'dir') return true;
    return false;
  },
  toPlain: (frame, from, to) => frameToPlain(frame, from, to, true),
  fromPlain: (plain) => frameFromPlain(plain, nameKey),
};

/** A helper's piece as the walk keeps it: its counts, its open frames as the walk's, and the rows to splice. */
export interface SplitResult<F> extends SplitPiece<F>, HelperRows {
  id: number;
}

export class ThreadSplitter<F extends SplitFrame, P> implements Splitter<F, SplitResult<F>> {
  /** Pieces spliced (the walk's metrics, tests). */
  spliced = 0;

  constructor(
    private readonly codec: FrameCodec<F, P>,
    private readonly channel: PieceChannel<HelperResult<P>>,
    private readonly rootDev: () => number,
    private readonly startedAt: number,
    private readonly sink: SplitSink,
    private readonly onCounts: (r: SplitResult<F>) => void,
  ) {}

  /** Pieces given (the walk's metrics, tests). */
  get given(): number {
    return this.channel.given;
  }

  step(stack: readonly F[]): void {
    if (!this.channel.wantsPiece()) return;
    for (const f of stack) {
      const ownEnd = f.marks !== undefined ? f.marks[0].start : (f.end ?? f.len);
      const rem = ownEnd - f.next;
      if (rem < 2 || !this.codec.worth(f, f.next, ownEnd)) continue;
      const mid = f.next + Math.ceil(rem / 2);
      const id = this.channel.post((id) => ({
        t: this.codec.piece,
        id,
        frame: this.codec.toPlain(f, mid, ownEnd),
        rootDev: this.rootDev(),
        startedAt: this.startedAt,
      }));
      f.marks = [{ start: mid, stop: ownEnd, id }, ...(f.marks ?? [])];
      return;
    }
  }

  take(mark: Mark): SplitResult<F> | undefined {
    const r = this.channel.take(mark.id);
    if (r === undefined) return undefined;
    return { ...r, rest: r.rest && { next: r.rest.next, frames: r.rest.frames.map(this.codec.fromPlain) } };
  }

  splice(piece: SplitResult<F>): void {
    this.spliced++;
    this.onCounts(piece);
    for (let i = 0; i < piece.bufs.length; i++) this.sink(piece.bufs[i], piece.entries[i], piece.last as LastRow);
  }

  /** The walk is over: the helper leaves its loop. */
  quit(): void {
    this.channel.quit();
  }
}
