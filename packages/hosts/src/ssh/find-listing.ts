// One walk's remote listing over SSH with GNU find (core's find/command.ts): the listing
// exec (pre-ranked by awk when the walk allows it, its kept candidates as stubs), the
// restat that completes them, and du for directory sizes, read into what core's
// MemorySource takes.
import type { DirSize, RawEntry, SourceRecord, WalkRequest } from '@fleetls/core';
import {
  buildDirSizeCommand,
  buildRestatCommand,
  buildWalkCommand,
  collectListing,
  exitFromStderr,
  type FindItem,
  type FindListing,
  FindRecordParser,
  FleetError,
  type ProbeResult,
  parseDirSizes,
  parseRestat,
  type RankDropped,
  type RestatForm,
  remoteRankable,
  restatPath,
  rootErrorEntry,
  shellQuote,
  splitOf,
  stderrMessage,
  timedOut,
  timeoutSeconds,
  validateRemotePath,
} from '@fleetls/core';
import type { Logger } from 'pino';
import type { ExecResult, SshConnection } from './connection.js';

/** What a listing needs of its host. */
export interface FindHost {
  /** The host's name, for messages. */
  host: string;
  connection(): SshConnection;
  logger: Logger;
  /** Records one walk reads from the remote at most. */
  maxRecords: number;
}

/** A walk's listing, as MemorySource takes it, and how it ended. */
export interface LoadedListing {
  root: RawEntry;
  records: SourceRecord[];
  dirErrors: FindListing['dirErrors'];
  dirSizes: Map<string, DirSize> | undefined;
  capped: boolean;
  killed: boolean;
  dropped: RankDropped | undefined;
  notes: string[];
}

/** A restat exec open before its input is known. */
interface Restat {
  give(paths: Buffer): void;
  result: Promise<ExecResult>;
}

/** One listing exec read to its end. */
interface ListingRun {
  exit: number | undefined;
  /** Its own restat was cut at the deadline. */
  restatCut: boolean;
  code: number | null;
  /** Its stderr without the markers. */
  stderr: string;
  /** A half: whether it split the tree. */
  split: boolean | undefined;
  parser: FindRecordParser;
  items: FindItem[];
}

/** How the listing runs: pre-ranked, with stubs (their restat in the listing's own exec or not), in two halves. */
interface ListingPlan {
  rank: boolean;
  stubs: boolean;
  restat: RestatForm | undefined;
  halves: boolean;
  /** The login shell runs the script itself (ProbeResult.posixShell). */
  posixShell: boolean;
}

/** How big a ranked walk's path is, as the backend knows it (SshHost.entriesOf). */
export type ListingSize = 'small' | 'medium' | 'large';

/**
 * Counts, up to `cap`, the names a walk of `req` reads, to choose its listing before the
 * first walk of a path (a path walked before is sized by that walk). Names only: find
 * reads each directory's d_type and stats nothing, and stops at `cap` (head exits, find
 * takes SIGPIPE). One channel and four processes against the three channels and ~19
 * processes a small directory's listing costs with stubs, halves and restat.
 */
export function buildSizingCommand(req: WalkRequest, cap: number, timeoutSec: number): string {
  const path = shellQuote(validateRemotePath(req.path));
  const depth = String(Math.max(0, Math.floor(req.maxDepth)));
  const find = `LC_ALL=C timeout -s KILL ${timeoutSec} find ${req.followSymlinks ? '-L' : '-H'} ${path} -maxdepth ${depth}`;
  return `sh -c ${shellQuote(`${find}${req.oneFileSystem ? ' -xdev' : ''} 2>/dev/null | head -n ${cap} | wc -l`)}`;
}

/**
 * The listing of `req`, by the size of its path. `small` (a few hundred entries): one
 * pipeline of full records (a restat costs more than the records it saves). `medium` and
 * `large`: one pipeline whose candidates (and directories) are stubs, stat'ed again in the
 * same exec, where the host can (ProbeResult.restat). A host that cannot lists `medium` as
 * `small`, and `large` as stubs completed by an exec of their own opened beside the
 * listing, in two listings at once where it has two cores or more, each stat'ing half of a
 * tree of directories (core's splitClause), as the agent's find route does.
 */
export async function loadFind(
  host: FindHost,
  req: WalkRequest,
  info: ProbeResult,
  size: ListingSize,
  signal: AbortSignal,
  deadlineAt: number,
): Promise<LoadedListing> {
  const rank = info.awk && remoteRankable(req);
  const stubs = rank && (size === 'large' || (size === 'medium' && info.restat !== undefined));
  const plan: ListingPlan = {
    rank,
    stubs,
    restat: stubs ? info.restat : undefined,
    // Halves only where the restat is an exec of its own: with it in the listing's exec, one
    // pipeline (directories as stubs) costs the host less CPU than two halves that each walk
    // the directories above the split and send every directory in full.
    halves: stubs && size === 'large' && info.cpus >= 2 && info.restat === undefined,
    posixShell: info.posixShell,
  };
  // The restat's own exec, only where the listing cannot hold it.
  const ownExec = stubs && plan.restat === undefined;
  host.logger.debug({ path: req.path, ...plan }, 'listing plan');
  // The path itself on a pseudo file system comes back as its P record: listed again
  // with that type not pruned (rare: /proc or /sys asked for by path). The restat's
  // channel is asked for after the listing's (FIFO), never before, so a restat waiting
  // for its input never holds a channel its own listing waits for.
  let restat: Restat | undefined;
  const listingRun = listHalves(host, req, plan, signal);
  if (ownExec) restat = openRestat(host, req, deadlineAt, signal);
  const listed = listingRun.then((runs) => {
    const own = runs[0].items.find((it) => it.depth === 0)?.pseudo;
    if (own === undefined) return runs;
    restat?.give(Buffer.alloc(0));
    const again = listHalves(host, req, plan, signal, own);
    if (ownExec) restat = openRestat(host, req, deadlineAt, signal);
    return again;
  });
  try {
    return await readListing(host, req, info, listed, () => restat, deadlineAt, signal);
  } finally {
    restat?.give(Buffer.alloc(0));
  }
}

/** One listing exec (the whole tree or one half), read to its end. */
async function runListing(
  h: FindHost,
  req: WalkRequest,
  plan: ListingPlan,
  signal: AbortSignal,
  half: 0 | 1 | undefined,
  ownFsType?: string,
): Promise<ListingRun> {
  // The restat's A records carry absolute paths, made relative to the listed path.
  const parser = new FindRecordParser(req.followSymlinks, plan.restat === undefined ? undefined : req.path);
  const items: FindItem[] = [];
  const cmd = buildWalkCommand(req, {
    maxRecords: h.maxRecords,
    rank: plan.rank,
    stubs: plan.stubs,
    restat: plan.restat,
    posixShell: plan.posixShell,
    ownFsType,
    half,
  });
  const r = await h.connection().exec(cmd, signal, (chunk) => {
    for (const it of parser.push(chunk)) items.push(it);
  });
  const { split, stderr } = splitOf(r.stderr);
  return {
    exit: exitFromStderr(stderr),
    // The restat ends the pipeline: its status is the exec's.
    restatCut: plan.restat !== undefined && r.code !== null && timedOut(r.code),
    code: r.code,
    stderr: stderrMessage(stderr),
    split,
    parser,
    items,
  };
}

/** The listing as two halves at once (two channels) when the plan says so, else as one. */
async function listHalves(
  h: FindHost,
  req: WalkRequest,
  plan: ListingPlan,
  signal: AbortSignal,
  ownFsType?: string,
): Promise<ListingRun[]> {
  if (!plan.halves) return [await runListing(h, req, plan, signal, undefined, ownFsType)];
  const halves = await Promise.all([
    runListing(h, req, plan, signal, 0, ownFsType),
    runListing(h, req, plan, signal, 1, ownFsType),
  ]);
  // No subtrees to share: half 0 listed it whole, half 1 nothing.
  if (halves[0].split === false && halves[1].split === false) return [halves[0]];
  if (halves[0].split === true && halves[1].split === true) return halves;
  h.logger.debug('the two halves of a listing disagreed: listed again whole');
  return [await runListing(h, req, plan, signal, undefined, ownFsType)];
}

/**
 * The restat of a pre-ranked listing's kept candidates (listed as stubs: type and path):
 * stat'ed again on the host in one exec, so the few rows of the answer, not every file
 * of the tree, cross find's -printf and awk in full. Its channel, and the remote shell,
 * open beside the listing; the paths follow on stdin when the listing has been read
 * (`give`, which the caller must call on every path, with nothing if need be).
 */
function openRestat(h: FindHost, req: WalkRequest, deadlineAt: number, signal: AbortSignal): Restat {
  let give: (paths: Buffer) => void = () => {};
  const input = new Promise<Buffer>((resolve) => {
    give = resolve;
  });
  const timeoutSec = timeoutSeconds(Math.max(1000, deadlineAt - Date.now()));
  const result = h.connection().exec(buildRestatCommand(req, { root: false, timeoutSec }), signal, undefined, input);
  // Awaited by completeStubs; a listing that failed never reads it.
  result.catch(() => {});
  return { give, result };
}

/**
 * Completes the stubs of `listing` in place; true when the restat was cut at the deadline.
 * `restat` is the exec opened beside the listing; without one (the listing stat'ed its
 * candidates again itself) only the path itself can be a stub.
 */
async function completeStubs(
  h: FindHost,
  req: WalkRequest,
  listing: FindListing,
  restat: Restat | undefined,
  deadlineAt: number,
  signal: AbortSignal,
): Promise<boolean> {
  const nul = Buffer.alloc(1);
  const input = (rels: Buffer[]) => Buffer.concat(rels.flatMap((rel) => [restatPath(req.path, rel), nul]));
  let r: ExecResult;
  if (listing.rootStub) {
    // The path itself is a file (the only stub): stat'ed as the listing started there (-H).
    restat?.give(Buffer.alloc(0));
    const timeoutSec = timeoutSeconds(Math.max(1000, deadlineAt - Date.now()));
    const cmd = buildRestatCommand(req, { root: true, timeoutSec });
    r = await h.connection().exec(cmd, signal, undefined, input([Buffer.alloc(0)]));
  } else if (restat) {
    restat.give(input(listing.stubs.map((s) => s.path)));
    r = await restat.result;
  } else return false;
  const wanted = listing.rootStub ? 1 : listing.stubs.length;
  if (wanted === 0) return false;
  const got = parseRestat(r.stdout, req.path);
  if (got.size < wanted) h.logger.debug({ stderr: r.stderr.slice(0, 2000) }, 'kept candidates gone before restat');
  if (listing.rootStub) listing.root = got.get('');
  else
    for (const s of listing.stubs) {
      const rec = got.get(s.path.toString('latin1'));
      if (rec) listing.records.push(rec);
    }
  listing.stubs = [];
  return timedOut(exitFromStderr(r.stderr));
}

/** The listing's runs (and du, run beside them) read into one listing; its stubs completed. */
async function readListing(
  h: FindHost,
  req: WalkRequest,
  info: ProbeResult,
  listingRun: Promise<ListingRun[]>,
  restatOf: () => Restat | undefined,
  deadlineAt: number,
  signal: AbortSignal,
): Promise<LoadedListing> {
  const sizesCmd = req.dirSizes ? buildDirSizeCommand(req, { ionice: info.ionice }) : undefined;
  const sizesRun = sizesCmd ? h.connection().exec(sizesCmd, signal) : undefined;
  const [runs, du] = await Promise.all([listingRun, sizesRun]);
  const failed = runs.find((run) => run.exit === undefined);
  if (failed) {
    throw new FleetError('internal', `${h.host}: remote listing failed: ${failed.stderr || `exit ${failed.code}`}`);
  }
  const items = runs.length === 1 ? runs[0].items : runs.flatMap((run) => run.items);
  const garbled = runs.reduce((n, run) => n + run.parser.garbled, 0);
  const stderr = runs
    .map((run) => run.stderr)
    .filter((e) => e !== '')
    .join('\n');
  const listing = collectListing(items, h.maxRecords);
  const restat = restatOf();
  const restatKilled =
    restat || listing.rootStub ? await completeStubs(h, req, listing, restat, deadlineAt, signal) : false;
  if (garbled > 0) h.logger.warn({ garbled }, 'dropped garbled find records');
  if (stderr && listing.root) h.logger.debug({ stderr: stderr.slice(0, 2000) }, 'find reported problems');
  const root: RawEntry = listing.root
    ? { ...withoutPath(listing.root), name: Buffer.alloc(0) }
    : rootErrorEntry(stderr);
  return {
    root,
    records: listing.records,
    dirErrors: listing.dirErrors,
    dirSizes: du ? dirSizesOf(h, du, listing) : undefined,
    capped: listing.capped,
    killed: runs.some((run) => timedOut(run.exit) || run.restatCut || run.parser.incomplete()) || restatKilled,
    dropped: sumDropped(runs.map((run) => run.parser.dropped)),
    notes: [],
  };
}

/** du's sizes; a directory du never reached (killed at the deadline) has its own size, partial. */
function dirSizesOf(h: FindHost, du: ExecResult, listing: FindListing): Map<string, DirSize> {
  const dirSizes = parseDirSizes(du.stdout);
  const duExit = exitFromStderr(du.stderr);
  if (duExit !== 0) h.logger.debug({ exit: duExit, stderr: stderrMessage(du.stderr).slice(0, 2000) }, 'du incomplete');
  for (const rec of listing.records) {
    const key = rec.path.toString('latin1');
    if (rec.type === 'dir' && !dirSizes.has(key)) dirSizes.set(key, { size: rec.size, partial: true });
  }
  return dirSizes;
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
