// The walk worker's outgoing rows (walk/worker.ts): batched by count, bytes or time, each
// batch posted when the main thread has granted a credit for it (it sleeps on Atomics.wait
// when it has none), and what the walk saw and sent counted for its last message.
import type { MessagePort } from 'node:worker_threads';
import type { EntryErrorCode, PieceCounts, Row } from '@fleetls/core';
import { WalkTally } from '@fleetls/core';
// The encoder alone, without the gRPC stack the package's root would load into each worker.
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import { WalkCancelled } from './cancelled.js';
import { type HelperRows, lastRowOf } from './split/shared.js';
import {
  type BatchMessage,
  CANCEL,
  CREDITS,
  type LastRow,
  type PlainRow,
  plainRowBytes,
  rowToPlain,
  SEEN,
  type WorkerInput,
  type WorkerMessage,
} from './transit.js';

/**
 * The encoder a finished walk gave back, for this worker thread's next walk (a worker runs one
 * walk at a time): its four buffers (72 KiB, zeroed) were allocated anew per walk, and were
 * most of a small walk's garbage in the worker.
 */
let spareEncoder: WalkResponseEncoder | undefined;

export class RowBatches {
  /** Directory entries read so far (published in the control buffer's SEEN slot). */
  seen = 0;
  readonly tally = new WalkTally();
  /** Set in wire mode: rows leave protobuf-encoded, else as plain rows. */
  readonly encoder: WalkResponseEncoder | undefined;
  private readonly control: Int32Array;
  private batch: PlainRow[] = [];
  private batchRows = 0;
  private batchEntries = 0;
  private batchBytes = 0;
  private lastFlush = Date.now();
  private lastRow: Row | undefined;
  /** The last row when rows were encoded in place (addEncoded): made only if a batch ends with it. */
  private lastOf: (() => LastRow) | undefined;

  constructor(
    private readonly port: MessagePort,
    private readonly input: WorkerInput,
  ) {
    this.control = new Int32Array(input.control);
    if (input.mode === 'wire') {
      this.encoder = spareEncoder ?? new WalkResponseEncoder(64 * 1024);
      spareEncoder = undefined;
      // A walk cancelled or failed mid-batch left its bytes behind.
      this.encoder.out.reset();
    }
  }

  /** The walk is over: its encoder goes to the thread's next walk. */
  release(): void {
    if (this.encoder) spareEncoder = this.encoder;
  }

  readonly cancelled = (): boolean => Atomics.load(this.control, CANCEL) !== 0;

  /** Waits for a credit: the consumer has not taken enough of what was sent. */
  private credit(): void {
    for (;;) {
      if (this.cancelled()) throw new WalkCancelled('walk cancelled');
      const credits = Atomics.load(this.control, CREDITS);
      if (credits > 0) break;
      Atomics.wait(this.control, CREDITS, credits, 1000);
    }
    Atomics.sub(this.control, CREDITS, 1);
  }

  flush(): void {
    const batch = this.take();
    if (batch) this.port.postMessage(batch, batch.t === 'wire' ? [batch.buf] : []);
  }

  /** The walk's last message, its last batch inside: the main thread is woken once, not twice. */
  finish(done: Extract<WorkerMessage, { t: 'done' }>): void {
    const batch = this.take();
    if (batch)
      this.port.postMessage({ ...done, final: batch } satisfies WorkerMessage, batch.t === 'wire' ? [batch.buf] : []);
    else this.post(done);
  }

  /** The batch waiting to leave, once a credit is granted for it; undefined when there is none. */
  private take(): BatchMessage | undefined {
    if (this.batchRows === 0) return undefined;
    this.credit();
    Atomics.store(this.control, SEEN, this.seen);
    const last = this.lastRow !== undefined ? lastRowOf(this.lastRow) : (this.lastOf as () => LastRow)();
    let batch: BatchMessage;
    if (this.encoder) {
      batch = { t: 'wire', buf: this.encoder.takeArrayBuffer(), entries: this.batchEntries, last };
    } else {
      batch = { t: 'rows', rows: this.batch, entries: this.batchEntries, last };
      this.batch = [];
    }
    this.batchRows = 0;
    this.batchEntries = 0;
    this.batchBytes = 0;
    this.lastFlush = Date.now();
    return batch;
  }

  /** Each directory entry the source reads (an arrow: the source calls it unbound). */
  readonly onEntry = (): void => {
    this.seen++;
    // A slow directory still streams what is already decided.
    if ((this.seen & 255) === 0) {
      Atomics.store(this.control, SEEN, this.seen);
      if (this.batchRows > 0 && Date.now() - this.lastFlush >= this.input.flushMs) this.flush();
    }
  };

  /** `n` more directory entries read (onEntry's count, for a reader that counts a chunk at once). */
  onEntries(n: number): void {
    const before = this.seen;
    this.seen += n;
    if (before >>> 8 !== this.seen >>> 8) {
      Atomics.store(this.control, SEEN, this.seen);
      if (this.batchRows > 0 && Date.now() - this.lastFlush >= this.input.flushMs) this.flush();
    }
  }

  /** Rows the batch may take before it leaves (walk/packed-tree.ts encodes up to this many in place). */
  rowsLeft(): number {
    return this.input.batchRows - this.batchRows;
  }

  /** Bytes at which the batch leaves. */
  get bytesLimit(): number {
    return this.input.batchBytes;
  }

  /**
   * `rows` entry rows without errors that the caller encoded into the encoder's buffer itself
   * (wire mode); `last`: the last of them, made only if the batch leaves with it last.
   */
  addEncoded(rows: number, last: () => LastRow): void {
    this.batchRows += rows;
    this.batchEntries += rows;
    this.tally.entries += rows;
    this.lastRow = undefined;
    this.lastOf = last;
    this.batchBytes = (this.encoder as WalkResponseEncoder).length;
    this.flushIfDue();
  }

  private flushIfDue(): void {
    const input = this.input;
    if (
      this.batchRows >= input.batchRows ||
      this.batchBytes >= input.batchBytes ||
      Date.now() - this.lastFlush >= input.flushMs
    ) {
      this.flush();
    }
  }

  /** Adds a row of the walk; the batch leaves when full by count or bytes, or old enough. */
  add(row: Row): void {
    this.batchRows++;
    this.tally.row(row);
    this.lastRow = row;
    if (row.kind === 'entry') this.batchEntries++;
    if (this.encoder) {
      this.encoder.addRow(row);
      this.batchBytes = this.encoder.length;
    } else {
      const p = rowToPlain(row);
      this.batch.push(p);
      this.batchBytes += plainRowBytes(p);
    }
    this.flushIfDue();
  }

  /** A helper's rows, spliced in after everything sent so far (walk-split.ts). */
  readonly sink = (buf: ArrayBuffer, entries: number, last: LastRow): void => {
    this.flush();
    this.credit();
    this.port.postMessage({ t: 'wire', buf, entries, last } satisfies WorkerMessage, [buf]);
    this.lastFlush = Date.now();
  };

  /** What a helper read and sent of its piece, counted as the walk's own. */
  readonly helperCounts = (r: PieceCounts & HelperRows): void => {
    this.seen += r.seen;
    this.tally.entries += r.sent;
    for (const [code, n] of Object.entries(r.errors))
      this.tally.errors[code as EntryErrorCode] = (this.tally.errors[code as EntryErrorCode] ?? 0) + (n ?? 0);
  };

  post(msg: WorkerMessage): void {
    this.port.postMessage(msg);
  }
}
