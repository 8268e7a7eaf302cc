// The hosts' status as the dashboard shows it, kept by the gateway: one probe of the fleet
// per interval (60 s) while a page has read it lately, whatever the number of open tabs, and
// a check on demand that shares a probe in flight and skips hosts checked seconds ago.
// Rows are list_hosts' own (check=true), with the time each host was checked; each host's row
// lands as soon as it answers, so one hung host does not hold the others' status back.
import type { HostBackend } from '@fleetls/core';
import { fanOut } from '../../fleet/fan-out.js';
import type { Fleet, FleetHost } from '../../fleet/fleet-types.js';
import type { GatewayOptions } from '../../fleet/options.js';
import type { Logger } from '../../logger.js';
import { fanOutOptions } from '../../scans/call.js';
import { type HostListing, type HostRow, hostRow, listHostsTool } from '../../tools/list-hosts/index.js';
import { runTool } from '../../tools/run-tool.js';
import type { ToolContext } from '../../tools/tool.js';

/** `checking`: a probe of this host is out now (its row is the last check's, if any). */
export type CachedHost = HostRow & { checked_at?: string; checking?: boolean };

export interface HostStatusView {
  hosts: CachedHost[];
  /** The shared cadence, and when the next probe of the fleet is due (ISO 8601). */
  interval_ms: number;
  next_check_at?: string;
  /** A probe is running now. */
  checking: boolean;
}

export interface HostStatusCacheDeps {
  fleet: Fleet;
  options: GatewayOptions;
  logger: Logger;
  /** Default 60 s. */
  intervalMs?: number;
  /** An on-demand check leaves alone hosts checked less than this ago (default 5 s). */
  freshMs?: number;
}

export class HostStatusCache {
  private readonly rows = new Map<string, { row: CachedHost; at: number }>();
  private readonly intervalMs: number;
  private readonly freshMs: number;
  /** Each host's probe in flight, settled when its row lands. */
  private readonly inflight = new Map<string, Promise<void>>();
  private lastRead = 0;
  private nextAt = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly deps: HostStatusCacheDeps) {
    this.intervalMs = deps.intervalMs ?? 60_000;
    this.freshMs = deps.freshMs ?? 5_000;
    // Nobody reading for two intervals: no probes (an idle gateway does not poll its fleet).
    this.timer = setInterval(() => {
      if (Date.now() - this.lastRead < 2 * this.intervalMs) void this.check('all');
    }, this.intervalMs);
    this.timer.unref();
    this.nextAt = Date.now() + this.intervalMs;
  }

  /** The selector's hosts as last checked (inventory rows for hosts never checked); the first read starts a probe. */
  async read(selector: string): Promise<HostStatusView> {
    this.lastRead = Date.now();
    const names = this.deps.fleet.select(selector).map((h) => h.name);
    if (this.rows.size === 0 && this.inflight.size === 0) void this.check('all');
    const unchecked = names.some((n) => !this.rows.has(n))
      ? await this.inventoryRows(selector)
      : new Map<string, CachedHost>();
    return {
      hosts: names.map((n) => {
        const row = this.rows.get(n)?.row ?? (unchecked.get(n) as CachedHost);
        return this.inflight.has(n) ? { ...row, checking: true } : row;
      }),
      interval_ms: this.intervalMs,
      next_check_at: new Date(this.nextAt).toISOString(),
      checking: names.some((n) => this.inflight.has(n)),
    };
  }

  /**
   * Probes the selector's hosts now, but for hosts checked within freshMs and hosts whose
   * probe is already out (it is awaited, not repeated); resolves once each has its row.
   */
  async check(selector: string): Promise<void> {
    const now = Date.now();
    const waits: Promise<void>[] = [];
    const stale: FleetHost[] = [];
    for (const h of this.deps.fleet.select(selector)) {
      const out = this.inflight.get(h.name);
      if (out) waits.push(out);
      else if (now - (this.rows.get(h.name)?.at ?? 0) >= this.freshMs) stale.push(h);
    }
    if (selector === 'all') this.nextAt = now + this.intervalMs;
    if (stale.length > 0) waits.push(this.probe(stale));
    await Promise.all(waits);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private context(): ToolContext {
    const { fleet, options } = this.deps;
    const now = performance.now();
    return {
      fleet,
      options,
      signal: AbortSignal.timeout(options.callDeadlineMs),
      deadlineAt: now + options.callDeadlineMs,
    };
  }

  /** list_hosts' probe (check=true), host by host into the cache as each answers. */
  private async probe(hosts: FleetHost[]): Promise<void> {
    const ctx = this.context();
    // Whatever the probe tells (version, features, the certificate's expiry), as list_hosts shows it.
    const values = new Map<string, Awaited<ReturnType<HostBackend['probe']>>>();
    const landed = new Map<string, () => void>();
    for (const h of hosts) this.inflight.set(h.name, new Promise<void>((resolve) => landed.set(h.name, resolve)));
    const settle = (name: string) => {
      this.inflight.delete(name);
      landed.get(name)?.();
    };
    try {
      await fanOut(
        ctx.fleet,
        hosts,
        async (b, h, signal) => {
          const v = await b.probe(signal);
          values.set(h.name, v);
          return v;
        },
        {
          ...fanOutOptions(ctx),
          onHostDone: (status) => {
            const host = hosts.find((h) => h.name === status.host);
            if (!host) return;
            const v = status.status === 'ok' ? values.get(host.name) : undefined;
            const probe = { status, ...v };
            const at = Date.now();
            this.rows.set(host.name, {
              row: { ...hostRow({ host, probe }), checked_at: new Date(at).toISOString() },
              at,
            });
            settle(host.name);
          },
        },
      );
    } catch (err) {
      this.deps.logger.warn({ err }, 'dashboard host check failed');
    } finally {
      for (const h of hosts) settle(h.name);
    }
  }

  private async inventoryRows(selector: string): Promise<Map<string, CachedHost>> {
    const ctx = this.context();
    const result = await runTool(listHostsTool, { host: selector, check: false }, ctx);
    return new Map((result as HostListing).rows.map((r) => [r.host.name, hostRow(r)]));
  }
}
