// One scan: a tool call's fan-out that goes on after the call that started it answered. It
// owns its hosts' walks (one AbortController: cancel stops every one), keeps each host's
// result as it arrives (in a ScanStore: memory, or spilled to files), and hands them out in
// batches: a page takes every host done since the last page as one batch, merged by the
// tool, and a batch too big for one answer goes on over several pages. Each host's rows are
// in exactly one batch, so following next_cursor sees every row once.
import { FleetError, type HostStatus } from '@fleetls/core';
import { fanOut, type HostResult } from '../fleet/fan-out.js';
import type { FleetHost } from '../fleet/fleet-types.js';
import type { ScanStore } from '../fleet/page-store.js';
import type { ToolContext, ToolResult } from './call.js';
import { encodeScanCursor, invalidCursor } from './cursor.js';
import type { ScanFace, ScanInfo, ScanPage } from './face.js';

export interface ScanLimits {
  /** One host's share of the scan (its walk included). */
  hostDeadlineMs: number;
  /** The whole scan: hosts whose turn comes after it are not asked. */
  deadlineMs: number;
  concurrency: number;
  /** Once a host's rows began, the longest it may send none (fan-out's stallMs). */
  stallMs?: number;
}

export interface ScanInit {
  id: string;
  principal: string;
  toolName: string;
  face: ScanFace<unknown, unknown, ToolResult>;
  plan: unknown;
  /** The query (tool and arguments but the cursor) a cursor of this scan must come with. */
  fingerprint: string;
  /** The context the hosts' tasks and the pages' merges run in (the scan's own signal and deadline). */
  ctx: ToolContext;
  limits: ScanLimits;
  store: ScanStore;
}

type Listener = (done: number, total: number, status: HostStatus) => void;

/**
 * Hosts in one batch at most: a page carries a status row for each of its batch's hosts (a
 * failed one with its message, ~230 bytes of text and JSON) beside the pending ones, so a
 * batch of hundreds of failed hosts would not fit one answer; more go on in the next batch.
 */
export const BATCH_HOSTS = 64;

export class Scan {
  readonly id: string;
  readonly principal: string;
  readonly toolName: string;
  readonly fingerprint: string;
  readonly hosts: FleetHost[];
  /** performance.now() at the start. */
  readonly started = performance.now();
  /**
   * performance.now() when it stopped running (complete, or cancelled): with `started`, the one
   * source of its duration, so a page, scan_status and the dashboard's Scans view read later
   * all say how long it ran, not how long ago it started.
   */
  private endedAt: number | undefined;
  readonly finished: Promise<void>;
  state: ScanInfo['state'] = 'running';
  hostsDone = 0;
  /** Entries read by the hosts done (each host's figure once it answered). */
  entriesSeen = 0;
  /** Entries read so far by each host still walking (fan-out's onEntriesSeen), by host index. */
  private readonly walking = new Map<number, number>();

  private readonly face: ScanFace<unknown, unknown, ToolResult>;
  private readonly plan: unknown;
  private readonly concurrency: number;
  private readonly ctx: ToolContext;
  private readonly store: ScanStore;
  private readonly ctrl = new AbortController();
  /** Each host's status once done (its value is in the store until its batch is passed). */
  private readonly statuses: (HostStatus | undefined)[];
  /** The batch each host is in, -1 while it is in none. */
  private readonly batchOf: number[];
  private readonly batches: number[][] = [];
  /** Rows of done hosts that no batch holds yet, and how many such hosts there are. */
  private readyRows = 0;
  private readyHosts = 0;
  /** Rows of each done host (its weight in a batch). */
  private readonly rowsOf: number[];
  /** Batches below this one were passed by a later page: their values are gone. */
  private releasedBelow = 0;
  private readonly wakers = new Set<() => void>();
  private readonly listeners = new Set<Listener>();

  constructor(init: ScanInit) {
    this.id = init.id;
    this.principal = init.principal;
    this.toolName = init.toolName;
    this.fingerprint = init.fingerprint;
    this.face = init.face;
    this.plan = init.plan;
    this.ctx = { ...init.ctx, signal: this.ctrl.signal, deadlineAt: this.started + init.limits.deadlineMs };
    this.store = init.store;
    this.concurrency = init.limits.concurrency;
    this.hosts = this.face.hosts(this.plan);
    this.statuses = new Array(this.hosts.length).fill(undefined);
    this.batchOf = new Array(this.hosts.length).fill(-1);
    this.rowsOf = new Array(this.hosts.length).fill(0);
    const task = this.face.task(this.plan, this.ctx);
    this.finished = fanOut(this.ctx.fleet, this.hosts, task, {
      concurrency: init.limits.concurrency,
      deadlineMs: init.limits.hostDeadlineMs,
      deadlineAt: this.ctx.deadlineAt,
      signal: this.ctrl.signal,
      stallMs: init.limits.stallMs,
      onEntriesSeen: (i, n) => {
        if (this.statuses[i] === undefined) this.walking.set(i, n);
      },
      onResult: (i, r) => this.arrived(i, r),
    }).then(
      () => this.end('complete'),
      () => this.end('complete'),
    );
  }

  private arrived(i: number, r: HostResult<unknown>): void {
    this.statuses[i] = r.status;
    this.hostsDone++;
    this.readyHosts++;
    // What it read while walking, unless its answer says more: the count never goes back.
    const read = this.walking.get(i) ?? 0;
    this.walking.delete(i);
    if (r.value === undefined) this.entriesSeen += read;
    if (r.value !== undefined) {
      this.entriesSeen += Math.max(read, this.face.entries?.(r.value) ?? 0);
      const rows = this.face.rows?.(r.value) ?? 1;
      if (this.store.put(this.id, i, r.value, rows)) {
        this.rowsOf[i] = rows;
        this.readyRows += rows;
      } else {
        this.statuses[i] = {
          ...r.status,
          status: 'error',
          message: `its ${rows} rows not kept: the scans in this gateway hold scan_memory_rows already, and it has no state directory to spill to (FLEETLS_STATE_DIR); follow or cancel the scans running, or set one`,
        };
      }
    }
    for (const l of this.listeners) l(this.hostsDone, this.hosts.length, r.status);
    this.wakeAll();
  }

  private end(state: ScanInfo['state']): void {
    if (this.state === 'running') {
      this.state = state;
      this.endedAt = performance.now();
    }
    this.wakeAll();
  }

  /** Each waiter checks whether what it waits for happened; the ones it did not stay. */
  private wakeAll(): void {
    for (const w of [...this.wakers]) w();
  }

  /** Stops every host's walk; the hosts not done end as `error` rows saying why. */
  cancel(reason: string): void {
    if (this.state !== 'running') return;
    this.state = 'cancelled';
    this.endedAt = performance.now();
    this.ctrl.abort(new FleetError('cancelled', reason));
    this.wakeAll();
  }

  /** Frees every value it holds (the scan is gone). */
  dispose(reason: string): void {
    this.cancel(reason);
    this.store.drop(this.id);
  }

  /** Host progress while `fn` is subscribed. */
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /**
   * Waits until the scan ends, `until` (performance.now() time) passes, the signal aborts, or
   * at least `rows` rows (or a whole batch of hosts) wait for a page.
   */
  async wait(until: number, signal?: AbortSignal, rows = Number.POSITIVE_INFINITY): Promise<void> {
    const enough = () => rows !== Number.POSITIVE_INFINITY && this.readyHosts >= BATCH_HOSTS;
    const waited = () => !this.running || this.readyRows >= rows || enough() || signal?.aborted === true;
    const left = until - performance.now();
    if (waited() || left <= 0) return;
    // One timer and one listener for the whole wait: a whole answer waits through every
    // host's arrival (hundreds in a fan-out), and is woken only when what it waits for is there.
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        this.wakers.delete(check);
        resolve();
      };
      const check = () => {
        if (waited()) done();
      };
      const t = setTimeout(done, left);
      signal?.addEventListener('abort', done, { once: true });
      this.wakers.add(check);
    });
  }

  /** A page at `batch` would be a new batch: it waits for hosts to arrive. */
  waitsAt(batch: number): boolean {
    return batch === this.batches.length;
  }

  /** Every host's result (the scan is complete): the tool's whole answer is their merge. */
  async all(): Promise<HostResult<unknown>[]> {
    const out: HostResult<unknown>[] = [];
    for (const [i, host] of this.hosts.entries()) {
      const status = this.statuses[i] as HostStatus;
      const value = await this.store.get(this.id, i);
      out.push(value === undefined ? { host, status } : { host, status, value });
    }
    return out;
  }

  /** Every host is done and in a batch that a page has reached: nothing new can come. */
  get delivered(): boolean {
    return this.allBatched();
  }

  /** Every host done and in a batch: nothing is left to deliver after the last batch. */
  private allBatched(): boolean {
    return !this.running && this.batchOf.every((b) => b >= 0);
  }

  /**
   * The page at `batch`/`row`: a new batch of the hosts done since (when `batch` is the next
   * one), or the rest of a batch an earlier page cut. The tool's merge makes it a result.
   */
  async page(batch: number, row: number, ctx: ToolContext): Promise<ToolResult> {
    if (batch > this.batches.length || batch < this.releasedBelow) throw invalidCursor('the same arguments');
    for (let b = this.releasedBelow; b < batch; b++) for (const i of this.batches[b]) this.store.take(this.id, i);
    this.releasedBelow = Math.max(this.releasedBelow, batch);
    if (batch === this.batches.length) this.formBatch();
    const members = this.batches[batch] ?? [];
    // Decided now, before any await: a host arriving while the page is read goes to the next batch.
    const last = this.allBatched() && batch >= this.batches.length - 1;
    const formed = batch < this.batches.length;
    const info = this.info(batch, last);
    const inBatch = new Set(members);
    const results: HostResult<unknown>[] = [];
    for (const [i, host] of this.hosts.entries()) {
      if (inBatch.has(i)) {
        const value = await this.store.get(this.id, i);
        const status = this.statuses[i] as HostStatus;
        results.push(value === undefined ? { host, status } : { host, status, value });
      } else if (this.batchOf[i] < 0 || this.batchOf[i] > batch) {
        results.push({ host, status: { host: host.name, status: 'pending', via: host.via, elapsedMs: 0 } });
      }
    }
    const page: ScanPage = {
      start: row,
      next: (end, total) => {
        if (end < total) return encodeScanCursor({ id: this.id, batch, row: end });
        if (last) return undefined;
        return encodeScanCursor({ id: this.id, batch: formed ? batch + 1 : batch, row: 0 });
      },
    };
    const result = this.face.merge(this.plan, results, ctx, page);
    return { ...result, scan: info };
  }

  private formBatch(): void {
    // A whole-answer tool (a diff) gets one batch of every host, once all are done.
    if (this.face.whole && this.running) return;
    // A diff's one batch holds every host (its rows only make sense together).
    const most = this.face.whole ? this.hosts.length : BATCH_HOSTS;
    const ready: number[] = [];
    for (let i = 0; i < this.hosts.length && ready.length < most; i++)
      if (this.statuses[i] && this.batchOf[i] < 0) ready.push(i);
    if (ready.length === 0) return;
    const b = this.batches.length;
    for (const i of ready) {
      this.batchOf[i] = b;
      this.readyRows -= this.rowsOf[i];
    }
    this.readyHosts -= ready.length;
    this.batches.push(ready);
  }

  /** Entries the hosts still walking have read so far. */
  private entriesWalking(): number {
    let n = 0;
    for (const seen of this.walking.values()) n += seen;
    return n;
  }

  /** Where the scan stands; `delivered` = the batch of the page being made (-1: none yet). */
  info(delivered = this.batches.length - 1, last = false): ScanInfo {
    const elapsedMs = Math.round((this.endedAt ?? performance.now()) - this.started);
    const total = this.hosts.length;
    const failed: string[] = [];
    for (const s of this.statuses) if (s && s.status !== 'ok') failed.push(s.host);
    const out: ScanInfo = {
      id: this.id,
      tool: this.toolName,
      state: this.state,
      hostsDone: this.hostsDone,
      hostsTotal: total,
      hostsDelivered: this.batchOf.filter((b) => b >= 0 && b <= delivered).length,
      failed,
      entriesSeen: this.entriesSeen + this.entriesWalking(),
      elapsedMs,
    };
    // The pace of hosts done says when the hosts still waiting for their turn will be, not
    // how long the ones walking now will take: a fleet of one slow host and a few quick ones
    // has no estimate (it said 0.8 s for a 4.4 s walk), as ncdu and kubectl give none.
    const left = total - this.hostsDone;
    const waiting = left - Math.min(this.concurrency, left);
    if (this.running && this.hostsDone > 0 && waiting > 0) {
      out.estimateMs = Math.round((elapsedMs / this.hostsDone) * left);
    }
    if (this.face.ranked?.(this.plan)) out.rankingFinal = last;
    return out;
  }
}
