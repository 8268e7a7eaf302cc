// The walk worker's side of a tree walk split with a helper thread (core's walk-split.ts):
// it hands the helper the back half of its lowest open directory with children to spare
// whenever the helper is idle, and when its walk reaches a piece it takes the helper's
// rows (asking it to stop where it is if it has not finished: what is left comes back as
// open directories, walked here). The two threads share a small control buffer (the
// helper's state, wake-up counters) and talk over a MessagePort read synchronously, so
// neither leaves its synchronous walk. A helper that does not answer within the file
// system timeout (a hung mount) is given nothing more, and its pieces are walked here.
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import {
  type Frame,
  frameFromPlain,
  frameToPlain,
  type Mark,
  nameKey,
  type PieceResult,
  type TreeSplitter,
} from '@fleetls/core';
import { WalkCancelled } from '../cancelled.js';
import type { LastRow } from '../transit.js';
import { type HelperMessage, type HelperRows, type PieceMessage, SPLIT } from './shared.js';

/** Bytes of rows the helper may hold for the walk, unspliced, before it is given more. */
const HELD_BYTES_MAX = 4 * 1024 * 1024;
/** A range of only files is worth a piece from this many children (a directory from 2). */
const MIN_FILE_PIECE = 512;

/** A helper's piece as the walk keeps it: core's PieceResult and the rows to splice. */
export interface SplitResult extends PieceResult, HelperRows {}

/** Posts one encoded batch of the helper's rows, after what the walk sent so far. */
export type SplitSink = (buf: ArrayBuffer, entries: number, last: LastRow) => void;

export class ThreadSplitter implements TreeSplitter {
  private readonly ctl: Int32Array;
  private nextId = 1;
  private readonly done = new Map<number, SplitResult>();
  private held = 0;
  private dead = false;
  /** Pieces given (for the walk's metrics and tests). */
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
    private readonly onCounts: (r: SplitResult) => void,
  ) {
    this.ctl = new Int32Array(shared);
  }

  step(stack: readonly Frame[]): void {
    if (Atomics.load(this.ctl, SPLIT.HUNGRY) !== 1 || this.dead || this.held > HELD_BYTES_MAX) return;
    for (const f of stack) {
      const ownEnd = f.marks !== undefined ? f.marks[0].start : (f.end ?? f.len);
      const rem = ownEnd - f.next;
      if (rem < 2) continue;
      if (rem < MIN_FILE_PIECE && !hasDir(f, f.next + 1, ownEnd)) continue;
      const mid = f.next + Math.ceil(rem / 2);
      const id = this.nextId++;
      const msg: PieceMessage = {
        t: 'piece',
        id,
        frame: frameToPlain(f, mid, ownEnd, true),
        rootDev: this.rootDev(),
        startedAt: this.startedAt,
      };
      Atomics.store(this.ctl, SPLIT.HUNGRY, 0);
      this.port.postMessage(msg);
      Atomics.add(this.ctl, SPLIT.WORK, 1);
      Atomics.notify(this.ctl, SPLIT.WORK);
      (f as Frame).marks = [{ start: mid, stop: ownEnd, id }, ...(f.marks ?? [])];
      this.given++;
      return;
    }
  }

  private receive(): void {
    for (;;) {
      const got = receiveMessageOnPort(this.port);
      if (got === undefined) return;
      const m = got.message as HelperMessage;
      const r: SplitResult = {
        ...m,
        rest: m.rest && { next: m.rest.next, frames: m.rest.frames.map((pf) => frameFromPlain(pf, nameKey)) },
      };
      this.held += r.bytes;
      this.done.set(r.id, r);
    }
  }

  take(_f: Frame, m: Mark): PieceResult | undefined {
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
    return r;
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
    Atomics.store(this.ctl, SPLIT.QUIT, 1);
    Atomics.notify(this.ctl, SPLIT.WORK);
  }
}

function hasDir(f: Frame, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (f.kept[i - f.off].raw.type === 'dir') return true;
  return false;
}
