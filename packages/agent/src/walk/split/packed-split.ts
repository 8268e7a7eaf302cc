// A tree walk over packed records (walk/packed-tree.ts) split with a helper thread, as
// split.ts and helper.ts split core's: whenever the helper is idle the walk hands it the back
// half of its lowest open directory with children to spare (the directory's records are
// already read and stat'ed: the piece is those records and their subtrees), and when its
// walk reaches a piece it takes the helper's rows, ready wire bytes it posts on after its
// own (asking the helper to stop where it is if it has not finished: what is left comes back
// as open frames, walked here). Both threads read and encode; the main thread only forwards
// finished batches. A piece a limit bit in (max_entries, the deadline) is walked again here.
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { type EntryErrorCode, type Row, type WalkRequest, WalkState, WalkTally } from '@fleetls/core';
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import type { FsSource } from '../../fs/source.js';
import { WalkCancelled } from '../cancelled.js';
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
import { lastRowOf, SPLIT } from './shared.js';
import type { SplitSink } from './split.js';

/** Bytes of rows the helper may hold for the walk, unspliced, before it is given more. */
const HELD_BYTES_MAX = 4 * 1024 * 1024;
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
  private readonly ctl: Int32Array;
  private nextId = 1;
  private readonly done = new Map<number, PackedPieceResult>();
  private held = 0;
  private dead = false;
  /** Pieces given and spliced (the walk's metrics, tests). */
  given = 0;
  spliced = 0;

  constructor(
    private readonly port: MessagePort,
    shared: SharedArrayBuffer,
    private readonly rootDev: () => number,
    private readonly startedAt: number,
    private readonly sink: SplitSink,
    private readonly cancelled: () => boolean,
    private readonly timeoutMs: number,
    private readonly onCounts: (r: { seen: number; sent: number; errors: PackedPieceResult['errors'] }) => void,
  ) {
    this.ctl = new Int32Array(shared);
  }

  step(stack: readonly PackedFrame[]): void {
    if (Atomics.load(this.ctl, SPLIT.HUNGRY) !== 1 || this.dead || this.held > HELD_BYTES_MAX) return;
    for (const f of stack) {
      const ownEnd = f.marks !== undefined ? f.marks[0].start : (f.end ?? f.len);
      const rem = ownEnd - f.next;
      // Only a range with a directory: its subtree is reads and stats. A range of files is
      // records already read, encoded in C in less time than the piece's copy would take.
      if (rem < 2 || !hasDir(f, f.next + 1, ownEnd)) continue;
      const mid = f.next + Math.ceil(rem / 2);
      const id = this.nextId++;
      const msg: PackedPieceMessage = {
        t: 'packed-piece',
        id,
        frame: frameToPlain(f, mid, ownEnd),
        rootDev: this.rootDev(),
        startedAt: this.startedAt,
      };
      Atomics.store(this.ctl, SPLIT.HUNGRY, 0);
      this.port.postMessage(msg);
      Atomics.add(this.ctl, SPLIT.WORK, 1);
      Atomics.notify(this.ctl, SPLIT.WORK);
      f.marks = [{ start: mid, stop: ownEnd, id }, ...(f.marks ?? [])];
      this.given++;
      return;
    }
  }

  private receive(): void {
    for (;;) {
      const got = receiveMessageOnPort(this.port);
      if (got === undefined) return;
      const m = got.message as PackedPieceResult;
      this.held += m.bytes;
      this.done.set(m.id, m);
    }
  }

  take(m: PieceMark): PackedPiece | undefined {
    if (this.dead) return undefined;
    this.receive();
    let r = this.done.get(m.id);
    if (r === undefined) {
      // Still at work on it: asked to stop where it is and send what it has.
      Atomics.store(this.ctl, SPLIT.GIVEBACK_ID, m.id);
      const since = Date.now();
      for (;;) {
        const posted = Atomics.load(this.ctl, SPLIT.POSTED);
        this.receive();
        r = this.done.get(m.id);
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
    this.done.delete(m.id);
    this.held -= r.bytes;
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
    Atomics.store(this.ctl, SPLIT.QUIT, 1);
    Atomics.notify(this.ctl, SPLIT.WORK);
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
  const s = state.summary;
  const last = stopped ? undefined : out.last();
  return {
    t: 'packed-result',
    id: piece.id,
    sent: s.entriesSent,
    seen: s.entriesSeen,
    matched: s.entriesMatched,
    depthLimited: s.depthLimitedDirs,
    need: state.need,
    stopped: stopped || state.stopped,
    ...(rest ? { rest: { next: rest.next, frames: rest.frames.map((f) => frameToPlain(f, f.next)) } } : {}),
    bufs: stopped ? [] : out.bufs,
    entries: stopped ? [] : out.entries,
    ...(last ? { last } : {}),
    errors: out.tally.errors,
    bytes: out.bytes,
  };
}
