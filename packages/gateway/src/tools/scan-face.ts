// What a tool declares so that its calls can outlive their deadline as scans (scan.ts): the
// work of one host, and the merge of any set of hosts' results into the tool's domain result.
// The tool's own collect is that merge over every host; a scan page is the same merge over the
// hosts that arrived since the last page, the hosts still walking as `pending` status rows.
import type { HostBackend } from '@fleetls/core';
import { fanOut, type HostResult } from '../fan-out.js';
import type { FleetHost } from '../fleet-types.js';
import { fanOutOptions } from './host-walks.js';
import type { ToolContext, ToolResult } from './tool.js';

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

/** A tool's collect: its scan face's merge over every host, within the call's deadline. */
export async function collectWith<P, T, R extends ToolResult>(
  face: ScanFace<P, T, R>,
  plan: P,
  ctx: ToolContext,
): Promise<R> {
  const results = await fanOut(ctx.fleet, face.hosts(plan), face.task(plan, ctx), fanOutOptions(ctx));
  return face.merge(plan, results, ctx);
}
