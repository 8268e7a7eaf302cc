// Pages that do not re-rank: when a list_files caller follows a cursor, the gateway ranks
// the whole listing once (up to SNAPSHOT_ROWS) and keeps that merged ranking for a few
// minutes behind a random handle in the cursor; the pages after it are slices of it.
//
// Why here, not on the agents: an agent-held snapshot needs a wire change on both paths
// (agents, and SSH hosts whose walk runs in the gateway anyway); a gateway-held one serves
// agent and SSH hosts alike. The cursor also carries the offset, so a gateway that lacks
// the snapshot (expired, evicted, another process behind a balancer, the CLI) ranks again
// and goes on from the same row: the handle is an optimisation, never needed for
// correctness. Memory is bounded: at most SNAPSHOTS snapshots and KEPT_ROWS rows in all.
//
// PageStore is the seam: MemoryPageStore serves one process; on NATS the store is JetStream
// (nats/jetstream-page-store.ts), so that any gateway serves the page after another's.
// ScanStore is its other half: the host results a scan (scan.ts) keeps until a page hands
// them out; LocalScanStore (scans/store.ts) holds them in memory and spills to files.
import { randomBytes } from 'node:crypto';
import { DEFAULT_CEILINGS, FleetError, type HostStatus } from '@fleetls/core';
import type { HostEntry, HostNote, HostTruncation } from './host-rows.js';

/** Rows one snapshot holds: the agents' top-N ceiling. */
export const SNAPSHOT_ROWS = DEFAULT_CEILINGS.maxTopN;
const SNAPSHOTS = 8;
/** Rows kept over all snapshots (each row an entry of ~200-300 bytes in memory). */
const KEPT_ROWS = 300_000;
const TTL_MS = 10 * 60_000;

export interface RankingSnapshot {
  fingerprint: string;
  /** The merged ranking from its first row, top_n applied. */
  rows: HostEntry[];
  found: number;
  truncations: HostTruncation[];
  notes: HostNote[];
  hosts: HostStatus[];
  /** A chunk of a list_files path-order listing: its first row's index in the whole listing. */
  base?: number;
  /** A chunk that ends the listing (no row follows its last). */
  complete?: boolean;
  /** Who the ranking was made for (boundPages): another caller's cursor to it is refused. */
  principal?: string;
}

/** Where rankings are kept between pages; async, as a shared store is remote. */
export interface PageStore {
  /** Keeps a snapshot and returns its handle (hex, in the cursor). */
  put(snapshot: RankingSnapshot): Promise<string>;
  /** The snapshot behind a handle, if it is still kept and was made for this query. */
  get(id: string, fingerprint: string): Promise<RankingSnapshot | undefined>;
  close?(): Promise<void>;
}

/**
 * The page store as one principal uses it: what it keeps is marked as its own, and a cursor
 * naming another principal's ranking is refused, as a scan of another principal is (the
 * ranking holds what the other caller's grant let it see, and the handle is only 64 bits).
 */
export function boundPages(store: PageStore, principal: string): PageStore {
  return {
    put: (snapshot) => store.put({ ...snapshot, principal }),
    async get(id, fingerprint) {
      const kept = await store.get(id, fingerprint);
      if (kept?.principal !== undefined && kept.principal !== principal) {
        throw new FleetError('permission_denied', 'cursor: the page it continues belongs to another caller');
      }
      return kept;
    },
  };
}

export class MemoryPageStore implements PageStore {
  private readonly kept = new Map<string, { snapshot: RankingSnapshot; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps a snapshot and returns its handle; the oldest go while the store is full (in snapshots or rows). */
  async put(snapshot: RankingSnapshot): Promise<string> {
    return this.putNow(snapshot);
  }

  async get(id: string, fingerprint: string): Promise<RankingSnapshot | undefined> {
    return this.getNow(id, fingerprint);
  }

  putNow(snapshot: RankingSnapshot): string {
    this.sweep();
    while (this.kept.size >= SNAPSHOTS || (this.kept.size > 0 && this.rows + snapshot.rows.length > KEPT_ROWS)) {
      const oldest = this.kept.keys().next().value as string;
      this.kept.delete(oldest);
    }
    const id = randomBytes(8).toString('hex');
    this.kept.set(id, { snapshot, expires: this.now() + TTL_MS });
    return id;
  }

  getNow(id: string, fingerprint: string): RankingSnapshot | undefined {
    this.sweep();
    const k = this.kept.get(id);
    return k && k.snapshot.fingerprint === fingerprint ? k.snapshot : undefined;
  }

  get size(): number {
    return this.kept.size;
  }

  /** Rows held over all snapshots. */
  get rows(): number {
    let n = 0;
    for (const k of this.kept.values()) n += k.snapshot.rows.length;
    return n;
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, k] of this.kept) if (k.expires <= t) this.kept.delete(id);
  }
}

export interface ScanStore {
  /**
   * Keeps host `host`'s result of scan `scan`; `rows` is its weight against the memory bound.
   * False when it is not kept: it would pass the bound with nowhere to spill.
   */
  put(scan: string, host: number, value: unknown, rows: number): boolean;
  /** The result kept for a host, undefined if none (or released). */
  get(scan: string, host: number): Promise<unknown>;
  /** Releases one host's result (its page was passed). */
  take(scan: string, host: number): void;
  /** Releases everything of a scan. */
  drop(scan: string): void;
  /** Rows held in memory, over all scans. */
  readonly memoryRows: number;
  /** Host results spilled to files so far (a figure for tests and metrics). */
  readonly spilled: number;
  close(): void;
}
