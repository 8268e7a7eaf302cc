// The walk worker's outgoing rows (walk-worker.ts): batched by count, bytes or time, each
// batch posted when the main thread has granted a credit for it (it sleeps on Atomics.wait
// when it has none), and what the walk saw and sent counted for its last message.
import type { MessagePort } from 'node:worker_threads';
import type { EntryErrorCode, Row } from '@fleetls/core';
import { WalkTally } from '@fleetls/core';
// The encoder alone, without the gRPC stack the package's root would load into each worker.
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import {
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
import { WalkCancelled } from './walk-cancelled.js';
import { lastRowOf } from './walk-helper.js';
import type { SplitResult } from './walk-split.js';

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

  constructor(
    private readonly port: MessagePort,
    private readonly input: WorkerInput,
  ) {
    this.control = new Int32Array(input.control);
    this.encoder = input.mode === 'wire' ? new WalkResponseEncoder(64 * 1024) : undefined;
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
    if (this.batchRows === 0) return;
    this.credit();
    Atomics.store(this.control, SEEN, this.seen);
    const last = lastRowOf(this.lastRow as Row);
    if (this.encoder) {
      const buf = this.encoder.takeArrayBuffer();
      this.port.postMessage({ t: 'wire', buf, entries: this.batchEntries, last } satisfies WorkerMessage, [buf]);
    } else {
      this.post({ t: 'rows', rows: this.batch, entries: this.batchEntries, last });
      this.batch = [];
    }
    this.batchRows = 0;
    this.batchEntries = 0;
    this.batchBytes = 0;
    this.lastFlush = Date.now();
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
    const input = this.input;
    if (
      this.batchRows >= input.batchRows ||
      this.batchBytes >= input.batchBytes ||
      Date.now() - this.lastFlush >= input.flushMs
    ) {
      this.flush();
    }
  }

  /** A helper's rows, spliced in after everything sent so far (walk-split.ts). */
  readonly sink = (buf: ArrayBuffer, entries: number, last: LastRow): void => {
    this.flush();
    this.credit();
    this.port.postMessage({ t: 'wire', buf, entries, last } satisfies WorkerMessage, [buf]);
    this.lastFlush = Date.now();
  };

  /** What a helper read and sent of its piece, counted as the walk's own. */
  readonly helperCounts = (r: SplitResult): void => {
    this.seen += r.seen;
    this.tally.entries += r.sent;
    for (const [code, n] of Object.entries(r.errors))
      this.tally.errors[code as EntryErrorCode] = (this.tally.errors[code as EntryErrorCode] ?? 0) + (n ?? 0);
  };

  post(msg: WorkerMessage): void {
    this.port.postMessage(msg);
  }
}
