// A tree walk over packed records (walk/packed-tree.ts) split with a helper thread, as
// split.ts and helper.ts split core's: whenever the helper is idle the walk hands it the back
// half of its lowest open directory with children to spare (the directory's records are
// already read and stat'ed: the piece is those records and their subtrees), and when its
// walk reaches a piece it takes the helper's rows, ready wire bytes it posts on after its
// own (asking the helper to stop where it is if it has not finished: what is left comes back
// as open frames, walked here). Both threads read and encode; the main thread only forwards
// finished batches. A piece a limit bit in (max_entries, the deadline) is walked again here.
import { type EntryErrorCode, pieceCounts, type Row, type WalkRequest, WalkState, WalkTally } from '@fleetls/core';
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import type { FsSource } from '../../fs/source.js';
import {
  frameFromPlain,
  frameToPlain,
  isDirRecord,
  type PackedFrame,
  type PackedOut,
  type PackedPiece,
  type PackedSplit,
  type PieceMark,
  type PlainPackedFrame,
  walkPackedPiece,
} from '../packed-tree.js';
import type { LastRow } from '../transit.js';
import { lastRowOf, type PieceChannel } from './shared.js';
import type { SplitSink } from './split.js';

/** Encoded rows a piece holds before it stops and sends the rest back. */
const PIECE_BYTES_MAX = 2 * 1024 * 1024;
const BATCH_BYTES = 32 * 1024;

export interface PackedPieceMessage {
  t: 'packed-piece';
  id: number;
  frame: PlainPackedFrame;
  rootDev: number;
  startedAt: number;
}

export interface PackedPieceResult extends Omit<PackedPiece, 'rest'> {
  t: 'packed-result';
  id: number;
  rest?: { next: number; frames: PlainPackedFrame[] };
  bufs: ArrayBuffer[];
  entries: number[];
  last?: LastRow;
  errors: Partial<Record<EntryErrorCode, number>>;
  bytes: number;
}

/** A kept piece as the walk splices it. */
interface Taken extends PackedPiece {
  result: PackedPieceResult;
}

/** The walk worker's side (worker.ts gives it to walkPackedTree). */
export class PackedSplitter implements PackedSplit {
  /** Pieces spliced (the walk's metrics, tests). */
  spliced = 0;

  constructor(
    private readonly channel: PieceChannel<PackedPieceResult>,
    private readonly rootDev: () => number,
    private readonly startedAt: number,
    private readonly sink: SplitSink,
    private readonly onCounts: (r: { seen: number; sent: number; errors: PackedPieceResult['errors'] }) => void,
  ) {}

  /** Pieces given (the walk's metrics, tests). */
  get given(): number {
    return this.channel.given;
  }

  step(stack: readonly PackedFrame[]): void {
    if (!this.channel.wantsPiece()) return;
    for (const f of stack) {
      const ownEnd = f.marks !== undefined ? f.marks[0].start : (f.end ?? f.len);
      const rem = ownEnd - f.next;
      // Only a range with a directory: its subtree is reads and stats. A range of files is
      // records already read, encoded in C in less time than the piece's copy would take.
      if (rem < 2 || !hasDir(f, f.next + 1, ownEnd)) continue;
      const mid = f.next + Math.ceil(rem / 2);
      const id = this.channel.post(
        (id): PackedPieceMessage => ({
          t: 'packed-piece',
          id,
          frame: frameToPlain(f, mid, ownEnd),
          rootDev: this.rootDev(),
          startedAt: this.startedAt,
        }),
      );
      f.marks = [{ start: mid, stop: ownEnd, id }, ...(f.marks ?? [])];
      return;
    }
  }

  take(m: PieceMark): PackedPiece | undefined {
    const r = this.channel.take(m.id);
    if (r === undefined) return undefined;
    const taken: Taken = {
      sent: r.sent,
      seen: r.seen,
      matched: r.matched,
      depthLimited: r.depthLimited,
      need: r.need,
      stopped: r.stopped,
      result: r,
    };
    if (r.rest) taken.rest = { next: r.rest.next, frames: r.rest.frames.map(frameFromPlain) };
    return taken;
  }

  splice(p: PackedPiece): void {
    const r = (p as Taken).result;
    this.spliced++;
    this.onCounts(r);
    for (let i = 0; i < r.bufs.length; i++) this.sink(r.bufs[i], r.entries[i], r.last as LastRow);
  }

  /** The walk is over: the helper leaves its loop. */
  quit(): void {
    this.channel.quit();
  }
}

function hasDir(f: PackedFrame, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isDirRecord(f, i)) return true;
  return false;
}

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
): PackedPieceResult {
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
    t: 'packed-result',
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
