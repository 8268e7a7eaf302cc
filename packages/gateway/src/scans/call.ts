// What a call carries and gives back: a tool's steps and a scan of them share these. They live
// here, below tools/ (tool.ts re-exports them for the tools), because a scan (scan.ts) runs a
// tool's fan-out past the call that started it and so takes the call's context with it.
import type { HostBackend, HostStatus } from '@fleetls/core';
import type { Logger } from 'pino';
import type { FanOutOptions, HostResult } from '../fleet/fan-out.js';
import type { Fleet, FleetHost } from '../fleet/fleet-types.js';
import type { GatewayOptions } from '../fleet/options.js';
import type { PageStore } from '../fleet/page-store.js';
import type { CallerAccess } from '../grants/access.js';

/** Where a call's audit line goes (audit.ts), and who called. */
export interface ToolAudit {
  logger: Logger;
  caller: string;
}

export interface ToolContext {
  fleet: Fleet;
  options: GatewayOptions;
  signal: AbortSignal;
  /** When the call must be done (performance.now() time); runTool sets it from options.callDeadlineMs. */
  deadlineAt?: number;
  /** Rankings kept for the pages that follow (a serving face has one; a one-shot CLI run has none). */
  pages?: PageStore;
  /** Once per answered host. */
  onProgress?: (done: number, total: number, status: HostStatus) => void;
  /** While hosts walk: the entries the call's hosts have read so far, all together (rising). */
  onEntriesSeen?: (entriesSeen: number) => void;
  /** Where the call's audit line goes, and who called (audit.ts). */
  audit?: ToolAudit;
  /**
   * The scans of this face (a serving face has them; a one-shot CLI run has none): a fan-out
   * that cannot finish in the call's deadline goes on as a scan its next_cursor continues.
   */
  scans?: ScanKeeper;
  /** Who owns the scans this call starts or continues: the HTTP token, the stdio session. */
  principal?: string;
  /**
   * The caller's grant (grants/access.ts): runTool refuses a tool, host or path outside it
   * before any host is asked, and narrows wide selectors. Absent: everything, as without grants.
   */
  access?: CallerAccess;
  /**
   * Aborts when the caller cancels the call itself (MCP notifications/cancelled, Ctrl-C), not
   * when its connection merely goes: a scan stops with it, and outlives a dropped connection.
   */
  cancel?: AbortSignal;
}

/** What every domain result carries, so a face can report hosts without knowing the tool. */
export interface ToolResult {
  /** One status per host asked, in selector order. */
  hosts: HostStatus[];
  /** Set on a page of a scan (a call that outlived its deadline): where the scan stands. */
  scan?: ScanInfo;
  /** Set when the caller's grant narrowed its selector (runTool): what it was narrowed to. */
  narrowed?: string;
}

/** The scans a face keeps: scans/scan-registry.ts's ScanRegistry (named by shape so tool.ts imports no scan module). */
export interface ScanKeeper {
  readonly keepsScans: true;
}

/** The fan-out options of a call: its concurrency, deadline, signal and progress. */
export function fanOutOptions(ctx: ToolContext): FanOutOptions {
  const hear = ctx.onEntriesSeen;
  const byHost = new Map<number, number>();
  let sum = 0;
  return {
    onEntriesSeen: hear
      ? (i, n) => {
          sum += n - (byHost.get(i) ?? 0);
          byHost.set(i, n);
          hear(sum);
        }
      : undefined,
    concurrency: ctx.options.concurrency,
    deadlineMs: ctx.options.deadlineMs,
    deadlineAt: ctx.deadlineAt,
    signal: ctx.signal,
    stallMs: ctx.options.hostStallMs,
    onHostDone: ctx.onProgress ? (status, done, total) => ctx.onProgress?.(done, total, status) : undefined,
  };
}

// ---- scans: what a tool declares so that its calls can outlive their deadline (scan.ts) ----
// The tool's own collect is its scan face's merge over every host; a scan page is the same
// merge over the hosts that arrived since the last page, the hosts still walking as `pending`.

/** One host's part of a call, as fanOut runs it. */
export type HostTask<T> = (backend: HostBackend, host: FleetHost, signal: AbortSignal, budgetMs: number) => Promise<T>;

/** Where a scan page starts in its batch of hosts, and the cursor after a row of it. */
export interface ScanPage {
  /** Rows of the batch already shown by earlier pages: this page's rows start here. */
  start: number;
  /**
   * The cursor after row `end` (absolute, start + rows shown) of a batch of `total` rows:
   * within the batch while rows are left, else the next batch's, undefined once the scan is
   * complete and delivered.
   */
  next(end: number, total: number): string | undefined;
}

export interface ScanFace<P, T, R extends ToolResult> {
  /** The hosts the plan asks, in selector order. */
  hosts(plan: P): FleetHost[];
  task(plan: P, ctx: ToolContext): HostTask<T>;
  /**
   * The domain result of `results` (hosts in selector order; a host without value is a status
   * row only, `pending` for one still walking). Without `page`, the tool's whole answer (its
   * collect); with it, a scan page: rows from page.start, next_cursor from page.next.
   */
  merge(plan: P, results: HostResult<T>[], ctx: ToolContext, page?: ScanPage): R;
  /**
   * The whole answer when every host came back within the call, where it is more than a merge
   * (default: merge without a page): list_files in name order walks on from the hosts' first
   * rows when the page is not full yet.
   */
  finish?(plan: P, results: HostResult<T>[], ctx: ToolContext): Promise<R>;
  /** Entries a host's walk looked at (for scan_status). */
  entries?(value: T): number;
  /** Rows a host's value holds: its weight in the scan store's memory bound (default 1). */
  rows?(value: T): number;
  /**
   * Rows only make sense over every host (a diff groups hosts): pages before the end carry
   * statuses only, and the last page the whole answer.
   */
  whole?: boolean;
  /** Whether this plan's call may go on as a scan (default yes). */
  scannable?(plan: P): boolean;
  /** A ranked order: rows of hosts that answer later may rank above rows already sent. */
  ranked?(plan: P): boolean;
}

/** The `scan` field of a page: where the scan stands (scan_status says the same). */
export interface ScanInfo {
  id: string;
  tool: string;
  state: 'running' | 'complete' | 'cancelled';
  hostsDone: number;
  hostsTotal: number;
  /** Hosts done whose rows are on this page or an earlier one. */
  hostsDelivered: number;
  /** Done hosts that failed (not ok), by name. */
  failed: string[];
  entriesSeen: number;
  elapsedMs: number;
  /** A guess at the time left, from the pace so far; absent before any host is done. */
  estimateMs?: number;
  /** The ranking over all pages is final: no host is left that could add a higher row. */
  rankingFinal?: boolean;
}
