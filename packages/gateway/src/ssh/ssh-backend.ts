// The SSH HostBackend: one remote `find` per walk, loaded into core's MemorySource and
// walked by core's engine with the same WalkRequest the agent gets, so the same tree
// gives the same rows through both. Hosts without GNU find are listed over SFTP.
import type {
  DirSize,
  EntryError,
  HostBackend,
  Observer,
  RawEntry,
  Row,
  SourceRecord,
  StatInfo,
  WalkRequest,
  WalkSummary,
} from '@fleetls/core';
import {
  buildDirSizeCommand,
  buildRestatCommand,
  buildStatCommand,
  buildWalkCommand,
  collectListing,
  exitFromStderr,
  type FindItem,
  type FindListing,
  FindRecordParser,
  FleetError,
  finishFindSummary,
  MemorySource,
  PROBE_COMMAND,
  type ProbeResult,
  parseDirSizes,
  parseProbe,
  parseRestat,
  parseStat,
  pathError,
  type RankDropped,
  remoteRankable,
  restatPath,
  rootErrorEntry,
  splitOf,
  stderrMessage,
  timedOut,
  timeoutSeconds,
  validateRemotePath,
  walk,
} from '@fleetls/core';
import type { Logger } from 'pino';
import { type ExecResult, resolveTarget, SshConnection } from './connection.js';
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
}

/** A walk summary; its `notes` say how the host was listed (e.g. the SFTP fallback). */
export type SshWalkSummary = WalkSummary;

export { SFTP_NOTE, SFTP_STAT_NOTE } from './sftp-source.js';

export type SshBackend = HostBackend & { connectionsOpened(): number };

const STAT_TIMEOUT_SEC = 10;
/** Entries below which a path seen before is listed by one pipeline (see `recent`). */
const SMALL_LISTING = 20_000;
const RECENT_PATHS = 1024;

export function createSshBackend(cfg: SshHostConfig, opts: SshBackendOptions): SshBackend {
  const logger = opts.logger.child({ host: cfg.host, via: 'ssh' });
  const maxRecords = opts.maxRecords ?? 1_000_000;
  const batchSize = opts.batchSize ?? 512;
  let conn: SshConnection | undefined;
  let probed: Promise<ProbeResult> | undefined;
  // Entries the last ranked walk of each path and depth saw (the RECENT_PATHS most recent): one known to
  // be small is listed by one pipeline of full records, since the halves and the restat
  // (three channels, ~19 remote processes) cost more than they save below SMALL_LISTING.
  const recent = new Map<string, number>();

  const connection = (): SshConnection => {
    // Resolved lazily: a bad identity file is this host's auth status, not a gateway crash.
    conn ??=
      opts.connection?.() ??
      new SshConnection(
        resolveTarget(cfg, { connectTimeoutMs: opts.connectTimeoutMs }),
        logger,
        opts.maxChannels,
        opts.observer,
      );
    return conn;
  };

  const probe = (signal: AbortSignal): Promise<ProbeResult> => {
    if (!probed) {
      const p = connection()
        .exec(PROBE_COMMAND, signal)
        .then((r) => {
          const res = parseProbe(r.stdout.toString('utf8'));
          logger.debug({ probe: res }, 'SSH host probed');
          if (!res.gnuFind) logger.warn('no GNU find on this host: listing over SFTP (whole-second mtimes)');
          return res;
        });
      probed = p;
      p.catch(() => {
        if (probed === p) probed = undefined;
      });
    }
    return probed;
  };

  /**
   * The restat of a pre-ranked listing's kept candidates (listed as stubs: type and path):
   * stat'ed again on the host in one exec, so the few rows of the answer, not every file
   * of the tree, cross find's -printf and awk in full. Its channel, and the remote shell,
   * open beside the listing; the paths follow on stdin when the listing has been read
   * (`give`, which the caller must call on every path, with nothing if need be).
   */
  function openRestat(req: WalkRequest, deadlineAt: number, signal: AbortSignal): Restat {
    let give: (paths: Buffer) => void = () => {};
    const input = new Promise<Buffer>((resolve) => {
      give = resolve;
    });
    const timeoutSec = timeoutSeconds(Math.max(1000, deadlineAt - Date.now()));
    const result = connection().exec(buildRestatCommand(req, { root: false, timeoutSec }), signal, undefined, input);
    // Awaited by completeStubs; a listing that failed never reads it.
    result.catch(() => {});
    return { give, result };
  }

  /** Completes the stubs of `listing` in place; true when the restat was cut at the deadline. */
  async function completeStubs(
    req: WalkRequest,
    listing: FindListing,
    restat: Restat,
    deadlineAt: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const nul = Buffer.alloc(1);
    const input = (rels: Buffer[]) => Buffer.concat(rels.flatMap((rel) => [restatPath(req.path, rel), nul]));
    let r: ExecResult;
    if (listing.rootStub) {
      // The path itself is a file (the only stub): stat'ed as the listing started there (-H).
      restat.give(Buffer.alloc(0));
      const timeoutSec = timeoutSeconds(Math.max(1000, deadlineAt - Date.now()));
      r = await connection().exec(
        buildRestatCommand(req, { root: true, timeoutSec }),
        signal,
        undefined,
        input([Buffer.alloc(0)]),
      );
    } else {
      restat.give(input(listing.stubs.map((s) => s.path)));
      r = await restat.result;
    }
    const wanted = listing.rootStub ? 1 : listing.stubs.length;
    if (wanted === 0) return false;
    const got = parseRestat(r.stdout, req.path);
    if (got.size < wanted) logger.debug({ stderr: r.stderr.slice(0, 2000) }, 'kept candidates gone before restat');
    if (listing.rootStub) listing.root = got.get('');
    else
      for (const s of listing.stubs) {
        const rec = got.get(s.path.toString('latin1'));
        if (rec) listing.records.push(rec);
      }
    listing.stubs = [];
    return timedOut(exitFromStderr(r.stderr));
  }

  async function loadFind(req: WalkRequest, signal: AbortSignal, deadlineAt: number) {
    const c = connection();
    const info = await probe(signal);
    const rank = info.awk && remoteRankable(req);
    const small = (recent.get(recentKey(req)) ?? Number.POSITIVE_INFINITY) < SMALL_LISTING;
    const stubs = rank && !small;
    const runListing = async (half: 0 | 1 | undefined, ownFsType?: string) => {
      const parser = new FindRecordParser(req.followSymlinks);
      const items: FindItem[] = [];
      const cmd = buildWalkCommand(req, { maxRecords, rank, stubs, ownFsType, half });
      const r = await c.exec(cmd, signal, (chunk) => {
        for (const it of parser.push(chunk)) items.push(it);
      });
      const { split, stderr } = splitOf(r.stderr);
      const run: ListingRun = {
        exit: exitFromStderr(stderr),
        code: r.code,
        stderr: stderrMessage(stderr),
        split,
        parser,
        items,
      };
      return run;
    };
    // A ranked walk on a host with two cores or more runs as two listings at once (two
    // channels, each stat'ing half of a tree of directories, as the agent's find route does).
    const listHalves = async (ownFsType?: string): Promise<ListingRun[]> => {
      if (!stubs || info.cpus < 2) return [await runListing(undefined, ownFsType)];
      const halves = await Promise.all([runListing(0, ownFsType), runListing(1, ownFsType)]);
      // No subtrees to share: half 0 listed it whole, half 1 nothing.
      if (halves[0].split === false && halves[1].split === false) return [halves[0]];
      if (halves[0].split === true && halves[1].split === true) return halves;
      logger.debug('the two halves of a listing disagreed: listed again whole');
      return [await runListing(undefined, ownFsType)];
    };
    // The path itself on a pseudo file system comes back as its P record: listed again
    // with that type not pruned (rare: /proc or /sys asked for by path). The restat's
    // channel is asked for after the listing's (FIFO), never before, so a restat waiting
    // for its input never holds a channel its own listing waits for.
    let restat: Restat | undefined;
    const listingRun = listHalves();
    if (stubs) restat = openRestat(req, deadlineAt, signal);
    const listed = listingRun.then((runs) => {
      const own = runs[0].items.find((it) => it.depth === 0)?.pseudo;
      if (own === undefined) return runs;
      restat?.give(Buffer.alloc(0));
      const again = listHalves(own);
      if (stubs) restat = openRestat(req, deadlineAt, signal);
      return again;
    });
    try {
      return await readListing(req, info, listed, () => restat, deadlineAt, signal);
    } finally {
      restat?.give(Buffer.alloc(0));
    }
  }

  async function readListing(
    req: WalkRequest,
    info: ProbeResult,
    listingRun: Promise<ListingRun[]>,
    restatOf: () => Restat | undefined,
    deadlineAt: number,
    signal: AbortSignal,
  ) {
    const c = connection();
    const sizesRun = req.dirSizes ? c.exec(buildDirSizeCommand(req, { ionice: info.ionice }), signal) : undefined;
    const [runs, du] = await Promise.all([listingRun, sizesRun]);
    const failed = runs.find((run) => run.exit === undefined);
    if (failed) {
      throw new FleetError('internal', `${cfg.host}: remote listing failed: ${failed.stderr || `exit ${failed.code}`}`);
    }
    const items = runs.length === 1 ? runs[0].items : runs.flatMap((run) => run.items);
    const parser = {
      garbled: runs.reduce((n, run) => n + run.parser.garbled, 0),
      incomplete: () => runs.some((run) => run.parser.incomplete()),
      dropped: sumDropped(runs.map((run) => run.parser.dropped)),
    };
    const r = {
      stderr: runs
        .map((run) => run.stderr)
        .filter((e) => e !== '')
        .join('\n'),
    };
    const exit = runs.some((run) => timedOut(run.exit)) ? 124 : 0;
    const listing = collectListing(items, maxRecords);
    const restat = restatOf();
    const restatKilled = restat ? await completeStubs(req, listing, restat, deadlineAt, signal) : false;
    if (parser.garbled > 0) logger.warn({ garbled: parser.garbled }, 'dropped garbled find records');
    const stderr = r.stderr;
    if (stderr && listing.root) logger.debug({ stderr: stderr.slice(0, 2000) }, 'find reported problems');
    let dirSizes: Map<string, DirSize> | undefined;
    if (du) {
      dirSizes = parseDirSizes(du.stdout);
      const duExit = exitFromStderr(du.stderr);
      if (duExit !== 0)
        logger.debug({ exit: duExit, stderr: stderrMessage(du.stderr).slice(0, 2000) }, 'du incomplete');
      // Directories du never reached (killed at the deadline): their own size, partial.
      for (const rec of listing.records) {
        const key = rec.path.toString('latin1');
        if (rec.type === 'dir' && !dirSizes.has(key)) dirSizes.set(key, { size: rec.size, partial: true });
      }
    }
    const root: RawEntry = listing.root
      ? { ...withoutPath(listing.root), name: Buffer.alloc(0) }
      : rootErrorEntry(stderr);
    return {
      root,
      records: listing.records,
      dirErrors: listing.dirErrors,
      dirSizes,
      capped: listing.capped,
      killed: timedOut(exit) || parser.incomplete() || restatKilled,
      dropped: parser.dropped,
      notes: [] as string[],
    };
  }

  async function* walkImpl(asked: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], SshWalkSummary, void> {
    validateRemotePath(asked.path);
    const t0 = Date.now();
    const info = await probe(signal);
    const req = await resolveRemoteIds(asked, cfg.host, (cmd) => connection().exec(cmd, signal));
    const loaded = info.gnuFind
      ? await loadFind(req, signal, t0 + req.deadlineMs)
      : { ...(await sftpListing(connection(), req, signal, t0 + req.deadlineMs)), notes: [SFTP_NOTE] };
    const source = new MemorySource(loaded.root, loaded.records, {
      dirErrors: loaded.dirErrors as Map<string, EntryError>,
      dirSizes: loaded.dirSizes,
    });
    // The deadline runs from the start of the call, remote listing included.
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
        if (signal.aborted) throw new FleetError('cancelled', `${cfg.host}: cancelled`);
        yield batch;
        batch = [];
      }
      step = gen.next();
    }
    if (batch.length > 0) yield batch;
    const summary: SshWalkSummary = step.value;
    if (loaded.capped && !summary.truncations.some((t) => t.reason === 'max_entries'))
      logger.warn({ maxRecords }, 'remote listing hit the record cap');
    finishFindSummary(summary, req, {
      dropped: 'dropped' in loaded ? loaded.dropped : undefined,
      capped: loaded.capped,
      killed: loaded.killed,
      records: loaded.records.length,
    });
    if (remoteRankable(req) && !loaded.killed && !loaded.capped) {
      const key = recentKey(req);
      recent.delete(key);
      recent.set(key, summary.entriesSeen);
      if (recent.size > RECENT_PATHS) recent.delete(recent.keys().next().value as string);
    }
    if (loaded.notes.length > 0) summary.notes = loaded.notes;
    return summary;
  }

  return {
    via: 'ssh',
    walk: walkImpl,
    async stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
      validateRemotePath(path);
      const info = await probe(signal);
      if (!info.gnuFind) return sftpStat(connection(), path, followSymlinks, signal);
      const r = await connection().exec(buildStatCommand(path, followSymlinks, STAT_TIMEOUT_SEC), signal);
      const parsed = parseStat(r.stdout, followSymlinks);
      if (!parsed) {
        if (timedOut(exitFromStderr(r.stderr)))
          throw new FleetError('deadline_exceeded', `${cfg.host}: stat timed out after ${STAT_TIMEOUT_SEC}s`);
        throw pathError(r.stderr, path);
      }
      return parsed;
    },
    async probe(signal: AbortSignal): Promise<{ version: string }> {
      const p = await probe(signal);
      return { version: p.gnuFind ? `ssh (${p.findVersion})` : 'ssh (sftp)' };
    },
    close(): void {
      if (!opts.connection) conn?.close();
    },
    connectionsOpened(): number {
      return conn?.connectionsOpened() ?? 0;
    },
  };
}

/** A restat exec open before its input is known. */
interface Restat {
  give(paths: Buffer): void;
  result: Promise<ExecResult>;
}

/** One listing exec read to its end. */
interface ListingRun {
  exit: number | undefined;
  code: number | null;
  /** Its stderr without the markers. */
  stderr: string;
  /** A half: whether it split the tree. */
  split: boolean | undefined;
  parser: FindRecordParser;
  items: FindItem[];
}

/** A path and depth, as `recent` keeps them. */
function recentKey(req: WalkRequest): string {
  return `${req.maxDepth}\0${req.path}`;
}

/** What the remote rankings dropped, summed; undefined when one of them sent no trailer. */
function sumDropped(ds: (RankDropped | undefined)[]): RankDropped | undefined {
  if (ds.length === 0 || ds.some((d) => d === undefined)) return undefined;
  const all = ds as RankDropped[];
  return {
    seen: all.reduce((n, d) => n + d.seen, 0),
    matched: all.reduce((n, d) => n + d.matched, 0),
    depthLimited: all.reduce((n, d) => n + d.depthLimited, 0),
  };
}

function withoutPath(rec: SourceRecord): Omit<RawEntry, 'name'> {
  const { path: _path, ...rest } = rec;
  return rest;
}
