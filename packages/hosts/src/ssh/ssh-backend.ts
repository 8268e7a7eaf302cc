// The SSH HostBackend: one remote `find` listing per walk (find-listing.ts), loaded into
// core's MemorySource and walked by core's engine with the same WalkRequest the agent gets, so the same tree
// gives the same rows through both. Hosts without GNU find are listed over SFTP.
import type { HostBackend, Observer, Row, StatInfo, WalkRequest, WalkSummary } from '@fleetls/core';
import {
  buildStatCommand,
  exitFromStderr,
  FleetError,
  finishFindSummary,
  MemorySource,
  PROBE_COMMAND,
  type ProbeResult,
  parseProbe,
  parseStat,
  pathError,
  remoteRankable,
  timedOut,
  validateRemotePath,
  walk,
} from '@fleetls/core';
import type { Logger } from 'pino';
import { resolveTarget, SshConnection } from './connection.js';
import { buildSizingCommand, type FindHost, type ListingSize, type LoadedListing, loadFind } from './find-listing.js';
import { resolveRemoteIds } from './remote-ids.js';
import { SFTP_NOTE, sftpListing, sftpStat } from './sftp-source.js';
import type { SshHostConfig } from './types.js';

export interface SshBackendOptions {
  logger: Logger;
  /** Told of each connection opened and each reuse of an open one (metrics). */
  observer?: Observer;
  connectTimeoutMs?: number;
  maxChannels?: number;
  /** Records one walk reads from the remote at most (default 1,000,000). */
  maxRecords?: number;
  /** Rows per yielded batch (default 512). */
  batchSize?: number;
  /** The host's connection when another backend shares it (agent+ssh); closed by its owner, not here. */
  connection?: () => SshConnection;
  /**
   * Entries below which a ranked walk on a host whose restat needs an exec of its own is
   * listed by one pipeline of full records rather than two halves (default 20,000).
   */
  smallListing?: number;
  /**
   * Entries below which a ranked walk is listed by full records rather than stubs stat'ed
   * again in the listing's own exec (default 2,000).
   */
  fullRecords?: number;
}

/** A walk summary; its `notes` say how the host was listed (e.g. the SFTP fallback). */
export type SshWalkSummary = WalkSummary;

export { SFTP_NOTE, SFTP_STAT_NOTE } from './sftp-source.js';

export type SshBackend = HostBackend & { connectionsOpened(): number };

const STAT_TIMEOUT_SEC = 10;
/** Entries below which a path is listed by one pipeline where the restat needs an exec of its own (see `recent`). */
const SMALL_LISTING = 20_000;
/** Entries below which a ranked walk prints full records: a restat costs more than they do. */
const FULL_RECORDS = 2_000;
const RECENT_PATHS = 1024;
/** How long sizing a path not walked before may take; one cut at it is not small. */
const SIZING_TIMEOUT_SEC = 2;

export function createSshBackend(cfg: SshHostConfig, opts: SshBackendOptions): SshBackend {
  const host = new SshHost(cfg, opts);
  return {
    via: 'ssh',
    walk: (req, signal) => host.walk(req, signal),
    stat: (path, followSymlinks, signal) => host.stat(path, followSymlinks, signal),
    async probe(signal: AbortSignal): Promise<{ version: string }> {
      const p = await host.probe(signal);
      return { version: p.gnuFind ? `ssh (${p.findVersion})` : 'ssh (sftp)' };
    },
    close: () => host.close(),
    connectionsOpened: () => host.connectionsOpened(),
  };
}

/** One host over SSH: its connection and probe, made on first use, and its walks and stats. */
class SshHost implements FindHost {
  readonly host: string;
  readonly logger: Logger;
  readonly maxRecords: number;
  private conn: SshConnection | undefined;
  private probed: Promise<ProbeResult> | undefined;
  // Entries the last ranked walk of each path and depth saw (the RECENT_PATHS most recent): one known to
  // be small is listed by one pipeline, since the halves (two channels, twice the remote
  // processes) cost more than they save below smallListing; below fullRecords by full
  // records, since the restat's find costs more than the records it saves.
  // A path not walked before is sized first (entriesOf).
  private readonly recent = new Map<string, number>();
  private readonly smallListing: number;
  private readonly fullRecords: number;

  constructor(
    private readonly cfg: SshHostConfig,
    private readonly opts: SshBackendOptions,
  ) {
    this.host = cfg.host;
    this.logger = opts.logger.child({ host: cfg.host, via: 'ssh' });
    this.maxRecords = opts.maxRecords ?? 1_000_000;
    this.smallListing = opts.smallListing ?? SMALL_LISTING;
    this.fullRecords = opts.fullRecords ?? FULL_RECORDS;
  }

  connection(): SshConnection {
    // Resolved lazily: a bad identity file is this host's auth status, not a gateway crash.
    this.conn ??=
      this.opts.connection?.() ??
      new SshConnection(
        resolveTarget(this.cfg, { connectTimeoutMs: this.opts.connectTimeoutMs }),
        this.logger,
        this.opts.maxChannels,
        this.opts.observer,
      );
    return this.conn;
  }

  probe(signal: AbortSignal): Promise<ProbeResult> {
    if (!this.probed) {
      const p = this.connection()
        .exec(PROBE_COMMAND, signal)
        .then((r) => {
          const res = parseProbe(r.stdout.toString('utf8'));
          this.logger.debug({ probe: res }, 'SSH host probed');
          if (!res.gnuFind) this.logger.warn('no GNU find on this host: listing over SFTP (whole-second mtimes)');
          return res;
        });
      this.probed = p;
      p.catch(() => {
        if (this.probed === p) this.probed = undefined;
      });
    }
    return this.probed;
  }

  async *walk(asked: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], SshWalkSummary, void> {
    validateRemotePath(asked.path);
    const t0 = Date.now();
    // Sized beside the probe, on its own channel: a first call pays one round trip for both.
    const [info, entries] = await Promise.all([this.probe(signal), this.entriesOf(asked, signal)]);
    const req = await resolveRemoteIds(asked, this.host, (cmd) => this.connection().exec(cmd, signal));
    const deadlineAt = t0 + req.deadlineMs;
    // Sizing counts up to smallListing only: the bars are read from the top.
    const size: ListingSize = entries >= this.smallListing ? 'large' : entries >= this.fullRecords ? 'medium' : 'small';
    const loaded: LoadedListing = info.gnuFind
      ? await loadFind(this, req, info, size, signal, deadlineAt)
      : {
          ...(await sftpListing(this.connection(), req, signal, deadlineAt)),
          dropped: undefined,
          notes: [SFTP_NOTE],
        };
    const summary = yield* this.rows(req, loaded, t0, signal);
    if (loaded.capped && !summary.truncations.some((t) => t.reason === 'max_entries'))
      this.logger.warn({ maxRecords: this.maxRecords }, 'remote listing hit the record cap');
    finishFindSummary(summary, req, {
      dropped: loaded.dropped,
      capped: loaded.capped,
      killed: loaded.killed,
      records: loaded.records.length,
    });
    if (remoteRankable(req) && !loaded.killed && !loaded.capped) this.remember(req, summary.entriesSeen);
    if (loaded.notes.length > 0) summary.notes = loaded.notes;
    return summary;
  }

  /** Core's engine over the listing, in batches; the deadline runs from the start of the call, listing included. */
  private async *rows(
    req: WalkRequest,
    loaded: LoadedListing,
    t0: number,
    signal: AbortSignal,
  ): AsyncGenerator<Row[], SshWalkSummary, void> {
    const batchSize = this.opts.batchSize ?? 512;
    const source = new MemorySource(loaded.root, loaded.records, {
      dirErrors: loaded.dirErrors,
      dirSizes: loaded.dirSizes,
    });
    let first = true;
    const now = () => {
      if (first) {
        first = false;
        return t0;
      }
      return Date.now();
    };
    const gen = walk(req, source, now);
    let batch: Row[] = [];
    let step = gen.next();
    while (!step.done) {
      batch.push(step.value);
      if (batch.length >= batchSize) {
        if (signal.aborted) throw new FleetError('cancelled', `${this.host}: cancelled`);
        yield batch;
        batch = [];
      }
      step = gen.next();
    }
    if (batch.length > 0) yield batch;
    return step.value;
  }

  /**
   * The entries of a ranked walk's path and depth: what the last walk of them saw, else
   * counted on the host up to smallListing (buildSizingCommand). Not ranked: never small.
   */
  private async entriesOf(req: WalkRequest, signal: AbortSignal): Promise<number> {
    if (!remoteRankable(req)) return Number.POSITIVE_INFINITY;
    const known = this.recent.get(recentKey(req));
    if (known !== undefined) return known;
    const t = Date.now();
    const r = await this.connection().exec(buildSizingCommand(req, this.smallListing, SIZING_TIMEOUT_SEC), signal);
    const n = Number.parseInt(r.stdout.toString('latin1').trim(), 10);
    // Cut at its timeout (a slow or hung file system), or no answer: not small.
    if (!Number.isInteger(n) || Date.now() - t >= SIZING_TIMEOUT_SEC * 1000) return Number.POSITIVE_INFINITY;
    return n;
  }

  /** Keeps the entries a complete ranked walk saw, for the next walk of the same path and depth. */
  private remember(req: WalkRequest, entriesSeen: number): void {
    const key = recentKey(req);
    this.recent.delete(key);
    this.recent.set(key, entriesSeen);
    if (this.recent.size > RECENT_PATHS) this.recent.delete(this.recent.keys().next().value as string);
  }

  async stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
    validateRemotePath(path);
    const info = await this.probe(signal);
    if (!info.gnuFind) return sftpStat(this.connection(), path, followSymlinks, signal);
    const r = await this.connection().exec(buildStatCommand(path, followSymlinks, STAT_TIMEOUT_SEC), signal);
    const parsed = parseStat(r.stdout, followSymlinks);
    if (!parsed) {
      if (timedOut(exitFromStderr(r.stderr)))
        throw new FleetError('deadline_exceeded', `${this.host}: stat timed out after ${STAT_TIMEOUT_SEC}s`);
      throw pathError(r.stderr, path);
    }
    return parsed;
  }

  close(): void {
    if (!this.opts.connection) this.conn?.close();
  }

  connectionsOpened(): number {
    return this.conn?.connectionsOpened() ?? 0;
  }
}

/** A path and depth, as `recent` keeps them. */
function recentKey(req: WalkRequest): string {
  return `${req.maxDepth}\0${req.path}`;
}
