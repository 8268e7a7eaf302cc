// The scans of one gateway process: who owns each (the principal that started it: another
// principal's cursor is refused), how long each lives (its TTL restarts with every page or
// status; an abandoned scan is cancelled, its walks stopped, when it runs out), how many run
// at once (per principal and in all), and the store their rows wait in. Each scan's start and
// end is an audit line with its principal (its pages are, in tools/run-scanned.ts).
import { randomBytes } from 'node:crypto';
import { FleetError, invalidArgument } from '@fleetls/core';
import type { Logger } from 'pino';
import type { GatewayOptions } from '../fleet/options.js';
import type { ScanStore } from '../fleet/page-store.js';
import type { ScanKeeper } from './call.js';
import { Scan, type ScanInit, type ScanLimits } from './scan.js';
import { LocalScanStore } from './store.js';

export interface ScanRegistryOptions {
  limits: ScanLimits;
  /** A scan is dropped this long after its last page (or status, or its start). */
  ttlMs: number;
  /** Scans running at once for one principal. */
  perPrincipal: number;
  /** Scans running at once in this process. */
  total: number;
  store: ScanStore;
  /** Audit lines ("audit": "scan") go here. */
  logger?: Logger;
}

interface Held {
  scan: Scan;
  timer: NodeJS.Timeout;
  /** Who started it, once it outlived its call (a scan answered whole within its call is no scan to audit). */
  caller?: string;
}

export class ScanRegistry implements ScanKeeper {
  readonly keepsScans = true as const;
  private readonly held = new Map<string, Held>();

  constructor(readonly options: ScanRegistryOptions) {}

  get store(): ScanStore {
    return this.options.store;
  }

  /**
   * Starts a scan for `init.principal`. Every call starts one and is refused nothing here: the
   * caps count the scans that outlived their call (a cursor to follow), and are checked when a
   * scan would (publish). A call that answers within its deadline is an ordinary call, bounded
   * by the walk admission and fan-out concurrency, so a caller at its cap still gets `stat` and
   * every other quick answer, and a burst of quick calls is not refused for scans it never made.
   */
  start(init: Omit<ScanInit, 'id' | 'store' | 'limits'>): Scan {
    const id = randomBytes(8).toString('hex');
    const scan = new Scan({ ...init, id, store: this.options.store, limits: this.options.limits });
    const held: Held = { scan, timer: this.expiry(scan) };
    this.held.set(id, held);
    void scan.finished.then(() => {
      if (held.caller === undefined) return;
      const info = scan.info();
      this.audit(scan, 'end', held.caller, {
        state: info.state,
        hostsOk: info.hostsDone - info.failed.length,
        hostsFailed: info.failed.length,
        entriesSeen: info.entriesSeen,
        ms: info.elapsedMs,
      });
    });
    return scan;
  }

  /** Why one more scan of `principal` may not outlive its call, if it may not. */
  private refusal(principal: string): FleetError | undefined {
    const running = [...this.held.values()].filter((h) => h.scan.running && h.caller !== undefined);
    const mine = running.filter((h) => h.scan.principal === principal).length;
    if (mine >= this.options.perPrincipal) {
      return new FleetError(
        'resource_exhausted',
        `${mine} scans of this caller are still running (at most ${this.options.perPrincipal}): follow their next_cursor, cancel one with scan_status cancel=true, or wait for one to end`,
      );
    }
    if (running.length >= this.options.total) {
      return new FleetError(
        'resource_exhausted',
        `${running.length} scans are running on this gateway (at most ${this.options.total}): try again when one has ended`,
      );
    }
    return undefined;
  }

  private expiry(scan: Scan): NodeJS.Timeout {
    const t = setTimeout(
      () => this.drop(scan.id, `expired: no page asked for ${this.options.ttlMs} ms`),
      this.options.ttlMs,
    );
    t.unref();
    return t;
  }

  /**
   * The scan outlived the call that started it: from now on it counts in the caps and is
   * audited (start, pages, end). Past a cap it is stopped instead, and the call refused.
   */
  publish(scan: Scan, caller: string): void {
    const h = this.held.get(scan.id);
    if (!h || h.caller !== undefined) return;
    const refused = scan.running ? this.refusal(scan.principal) : undefined;
    if (refused) {
      this.drop(scan.id, refused.message);
      throw refused;
    }
    h.caller = caller;
    this.audit(scan, 'start', caller, {
      hosts: scan.hosts.length,
      hostsDone: scan.hostsDone,
      ms: scan.info().elapsedMs,
    });
  }

  /** The scan a cursor names, if `principal` owns it. */
  get(id: string, principal: string): Scan {
    const h = this.held.get(id);
    if (!h) {
      throw invalidArgument(
        `cursor names scan ${id}, which this gateway does not hold (it expired ${this.options.ttlMs / 60_000} min after its last page, was cancelled, or another gateway process started it): call again without cursor to start over`,
      );
    }
    if (h.scan.principal !== principal) {
      throw new FleetError(
        'permission_denied',
        `cursor names scan ${id}, which another caller started (another bearer token, or another session): it is not yours to read, follow or cancel`,
      );
    }
    return h.scan;
  }

  /** A page or status was asked: the TTL starts again. */
  touch(scan: Scan): void {
    const h = this.held.get(scan.id);
    if (!h) return;
    clearTimeout(h.timer);
    h.timer = this.expiry(scan);
  }

  /** Stops a scan's walks and frees its rows. */
  drop(id: string, reason: string): void {
    const h = this.held.get(id);
    if (!h) return;
    clearTimeout(h.timer);
    this.held.delete(id);
    const wasRunning = h.scan.running;
    h.scan.dispose(reason);
    if (wasRunning && h.caller !== undefined) this.audit(h.scan, 'cancel', h.caller, { reason });
  }

  /** Scans held now (running or waiting to be read). */
  get size(): number {
    return this.held.size;
  }

  /** Every scan of a principal, newest last. */
  of(principal: string): Scan[] {
    return [...this.held.values()].map((h) => h.scan).filter((s) => s.principal === principal);
  }

  close(): void {
    for (const id of [...this.held.keys()]) this.drop(id, 'the gateway is shutting down');
    this.options.store.close();
  }

  audit(scan: Scan, event: string, caller: string, fields: Record<string, unknown>): void {
    const log = this.options.logger;
    if (!log?.isLevelEnabled('info')) return;
    log.info(
      { audit: 'scan', event, scan: scan.id, tool: scan.toolName, principal: scan.principal, caller, ...fields },
      'audit',
    );
  }
}

/**
 * The scans of a serving face, with the gateway's options; rows past the memory bound spill
 * under `stateDir`/scans (none given: they stay in memory, the bound then counted only).
 */
export function createScanRegistry(options: GatewayOptions, logger?: Logger, stateDir?: string): ScanRegistry {
  return new ScanRegistry({
    limits: {
      hostDeadlineMs: options.scanHostDeadlineMs,
      deadlineMs: options.scanDeadlineMs,
      concurrency: options.scanConcurrency,
      stallMs: options.hostStallMs,
    },
    ttlMs: options.scanTtlMs,
    perPrincipal: options.scansPerPrincipal,
    total: options.scansTotal,
    store: new LocalScanStore(options.scanMemoryRows, stateDir),
    logger,
  });
}
