// A tree walk over packed records (walk/packed-tree.ts) split with a helper thread: the
// splitter is split.ts's, given packed frames (PACKED_FRAMES); a piece is records already
// read and stat'ed and their subtrees. The helper walks it here (walkPackedOne) and posts
// ready wire bytes the walk sends on after its own. Both threads read and encode; the main
// thread only forwards finished batches. A piece a limit bit in (max_entries, the deadline)
// is walked again by the walk.
import { pieceCounts, type Row, type WalkRequest, WalkState, WalkTally } from '@fleetls/core';
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import type { FsSource } from '../../fs/source.js';
import {
  frameFromPlain,
  frameToPlain,
  isDirRecord,
  type PackedFrame,
  type PackedOut,
  type PlainPackedFrame,
  walkPackedPiece,
} from '../packed-tree.js';
import type { LastRow } from '../transit.js';
import { type HelperResult, lastRowOf, type PieceMessage } from './shared.js';
import type { FrameCodec } from './split.js';

/** Encoded rows a piece holds before it stops and sends the rest back. */
const PIECE_BYTES_MAX = 2 * 1024 * 1024;
const BATCH_BYTES = 32 * 1024;

export type PackedPieceMessage = PieceMessage<PlainPackedFrame, 'packed-piece'>;

/**
 * Packed frames: only a range with a directory is worth a piece (its subtree is reads and
 * stats); a range of files is records already read, encoded in C in less time than the
 * piece's copy would take.
 */
export const PACKED_FRAMES: FrameCodec<PackedFrame, PlainPackedFrame> = {
  piece: 'packed-piece',
  worth(frame, next, end) {
    for (let i = next + 1; i < end; i++) if (isDirRecord(frame, i)) return true;
    return false;
  },
  toPlain: frameToPlain,
  fromPlain: frameFromPlain,
};

/** The helper's rows: cut into batches of ready bytes, counted, never posted until the piece ends. */
class PieceOut implements PackedOut {
  readonly encoder = new WalkResponseEncoder(64 * 1024);
  readonly bytesLimit = BATCH_BYTES;
  readonly tally = new WalkTally();
  readonly bufs: ArrayBuffer[] = [];
  readonly entries: number[] = [];
  bytes = 0;
  seen = 0;
  private batchEntries = 0;
  private lastRow: Row | undefined;
  private lastOf: (() => LastRow) | undefined;

  constructor(readonly cancelled: () => boolean) {}

  rowsLeft(): number {
    return 1 << 30;
  }

  addEncoded(rows: number, last: () => LastRow): void {
    this.batchEntries += rows;
    this.tally.entries += rows;
    this.lastRow = undefined;
    this.lastOf = last;
    if (this.encoder.length >= BATCH_BYTES) this.flush();
  }

  add(row: Row): void {
    this.encoder.addRow(row);
    this.tally.row(row);
    this.lastRow = row;
    this.lastOf = undefined;
    if (row.kind === 'entry') this.batchEntries++;
    if (this.encoder.length >= BATCH_BYTES) this.flush();
  }

  flush(): void {
    if (this.encoder.length === 0) return;
    this.bytes += this.encoder.length;
    this.bufs.push(this.encoder.takeArrayBuffer());
    this.entries.push(this.batchEntries);
    this.batchEntries = 0;
  }

  onEntries(n: number): void {
    this.seen += n;
  }

  last(): LastRow | undefined {
    return this.lastRow !== undefined ? lastRowOf(this.lastRow) : this.lastOf?.();
  }
}

/** The helper thread's walk of one piece (helper.ts receives it): its rows and counts, or where it was asked to stop. */
export function walkPackedOne(
  req: WalkRequest,
  source: FsSource,
  piece: PackedPieceMessage,
  over: () => boolean,
  asked: () => boolean,
): HelperResult<PlainPackedFrame> {
  const state = new WalkState(req, source, () => Date.now(), piece.startedAt);
  state.rootDev = piece.rootDev;
  const out = new PieceOut(over);
  let rest: { next: number; frames: PackedFrame[] } | undefined;
  let stopped = false;
  try {
    rest = walkPackedPiece(
      state,
      source,
      out,
      frameFromPlain(piece.frame),
      () => asked() || out.bytes > PIECE_BYTES_MAX,
    );
    out.flush();
  } catch {
    // Cancelled, or a failure the walk meets again when it walks the range itself.
    stopped = true;
  }
  const last = stopped ? undefined : out.last();
  return {
    t: 'result',
    id: piece.id,
    ...pieceCounts(state, stopped),
    ...(rest ? { rest: { next: rest.next, frames: rest.frames.map((f) => frameToPlain(f, f.next)) } } : {}),
    bufs: stopped ? [] : out.bufs,
    entries: stopped ? [] : out.entries,
    ...(last ? { last } : {}),
    errors: out.tally.errors,
    bytes: out.bytes,
  };
}
