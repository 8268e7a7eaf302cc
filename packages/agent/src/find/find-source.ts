// A ranked walk listed by GNU find and pre-ranked by awk (core's find/command.ts and
// find/rank.ts, the SSH backend's pipeline run locally), then walked by core's engine as
// the JS walker's would be. find stats in C at a fraction of Node's cost per lstat, and
// awk ranks on the other core; only the directories, links and the candidates that can
// be in the answer reach this thread. The kept candidates arrive as type and path (K
// records) and are completed by the JS source's own lstat, as are the few things find
// cannot give identically (directories that can be read but not searched, directory
// sizes): every value in the answer is one the JS walker would have produced.
// A tree of directories is split between two finds (each with its awk), so both cores
// stat at once. find and awk are spawned directly (no shell); neither opens a regular file.
// Confinement: find never resolves the path by string. It inherits the JS source's
// descriptor of the walk's root (opened without following a symlink, beneath.ts) as its
// fd 3 and starts at /proc/self/fd/3, which -H follows (a command-line argument) to that
// very directory; below it find runs as -P (never following a link) on gnulib's fts with
// FTS_PHYSICAL|FTS_CWDFD: each directory is opened relative to its parent's descriptor
// with O_NOFOLLOW|O_DIRECTORY and each entry is fstatat'ed with AT_SYMLINK_NOFOLLOW
// relative to it, and a directory swapped after its stat is caught by fts's dev/inode
// check of what it opened (fts_safe_changedir). Records name paths relative to the start
// (%P), so the descriptor's path never shows.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { RawEntry, SourceRecord, TreeSource, WalkRequest, WalkSummary } from '@fleetls/core';
import {
  collectListing,
  FIELDS,
  type FindItem,
  FindRecordParser,
  findArgs,
  findEnv,
  finishFindSummary,
  lazyRawEntry,
  MemorySource,
  type RankDropped,
  rankArgs,
} from '@fleetls/core';
import { WHOLE_READ_MAX_DIR_BYTES } from '../fs/dir-read.js';
import type { FsSource } from '../fs/source.js';
import { WalkCancelled } from '../walk/cancelled.js';

/** Where find starts: its fd 3, the walk root's descriptor. */
const INHERITED_ROOT = '/proc/self/fd/3';

/**
 * Records (directories, links, kept candidates) past which the JS walker lists the walk
 * instead. They are held in the walk's thread until the listing ends: at 500,000, a ranked
 * walk of a directory of a million equal-sized files (every one a candidate) took the agent
 * 177 MiB above idle before falling back (issue 35, F6); at this, 54 MiB.
 */
export const FIND_MAX_RECORDS = 100_000;
/** Share of the deadline find may take; the rest is the engine's, over what arrived. */
const FIND_SHARE = 0.9;
const CANCEL_POLL_MS = 20;
/**
 * awk's resident memory past which the pipeline stops and the JS walker lists the walk. awk
 * keeps every candidate tied with the K-th best key until its input ends: a million files
 * of one size are a million candidates, and took awk to 220 MiB (issue 35, F6), counted in
 * the agent's unit. The JS walker's heap holds offset + top_n entries whatever the ties.
 */
export const AWK_MAX_BYTES = 32 * 1024 * 1024;
const PAGE_BYTES = 4096;

function bytesShown(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** A process's resident bytes (/proc/PID/statm), or 0 once it is gone. */
function residentBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return 0;
  }
}
const STDERR_MAX = 64 * 1024;

export interface FindWalk {
  source: TreeSource;
  /** The engine's clock: the walk's start on the first call, so its deadline counts the listing. */
  now: () => number;
  /** Counts what the pre-ranking dropped, and a listing cut at the deadline. */
  finish(summary: WalkSummary): void;
}

export interface FindWalkOptions {
  /** The JS walker's source over the same path: the root (and its descriptor), kept candidates, unsearchable directories, sizes. */
  fs: FsSource;
  isCancelled: () => boolean;
  maxRecords?: number;
  /** awk's resident bytes past which the JS walker lists the walk instead (default AWK_MAX_BYTES). */
  awkMaxBytes?: number;
  /** Two finds, each stat'ing half the tree, or one (default: two for a tree of directories, given two CPUs). */
  halves?: 1 | 2;
}

interface Listed {
  items: FindItem[];
  /** What the pre-rankings dropped, summed; undefined when one of them sent no trailer. */
  dropped?: RankDropped;
  incomplete: boolean;
  killed: boolean;
  capped: boolean;
}

function kill(procs: ChildProcess[]): void {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
}

/** One find | awk pipeline per half of the tree (or one for all of it), each with its record parser. */
function spawnPipelines(
  req: WalkRequest,
  opts: FindWalkOptions,
  rootFd: number,
): { finds: ChildProcess[]; awks: ChildProcess[]; parsers: FindRecordParser[] } {
  // find's own fd 3 is the root's descriptor: the path it starts at, and every -path pattern, name it.
  const atRoot: WalkRequest = { ...req, path: INHERITED_ROOT };
  const env = { ...process.env, ...findEnv(process.env.TZ) };
  const halves: (0 | 1 | undefined)[] = opts.halves === 2 ? [0, 1] : [undefined];
  const finds: ChildProcess[] = [];
  const awks: ChildProcess[] = [];
  const parsers: FindRecordParser[] = [];
  for (const half of halves) {
    const find = spawn('find', findArgs(atRoot, { rank: true, stubs: true, unsearchable: true, half }), {
      stdio: ['ignore', 'pipe', 'pipe', rootFd],
      env,
    });
    const awk = spawn('awk', rankArgs(req, FIELDS, { stubs: true }), {
      stdio: [find.stdout ?? 'ignore', 'pipe', 'ignore'],
      env,
    });
    // awk holds find's output now; this end closed, find gets SIGPIPE if awk goes.
    find.stdout?.destroy();
    finds.push(find);
    awks.push(awk);
    parsers.push(new FindRecordParser(false));
  }
  return { finds, awks, parsers };
}

/** What the pre-rankings dropped, summed; undefined when one of them sent no trailer. */
function sumDropped(parsers: FindRecordParser[]): RankDropped | undefined {
  const trailers = parsers.map((p) => p.dropped);
  return trailers.every((d) => d !== undefined)
    ? {
        seen: trailers.reduce((n, d) => n + d.seen, 0),
        matched: trailers.reduce((n, d) => n + d.matched, 0),
        depthLimited: trailers.reduce((n, d) => n + d.depthLimited, 0),
      }
    : undefined;
}

/**
 * find | awk, once per half of the tree (two cores stat'ing at once) or once for all of
 * it, read to the end, the deadline or the cap; rejects with WalkCancelled when cancelled.
 */
function list(
  req: WalkRequest,
  opts: FindWalkOptions,
  t0: number,
  maxRecords: number,
  rootFd: number,
): Promise<Listed> {
  const { finds, awks, parsers } = spawnPipelines(req, opts, rootFd);
  const awkMaxBytes = opts.awkMaxBytes ?? AWK_MAX_BYTES;
  const all = [...finds, ...awks];
  const items: FindItem[] = [];
  let stderr = '';
  let killed = false;
  let capped = false;
  return new Promise<Listed>((resolve, reject) => {
    let settled = false;
    const done = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(hardDeadline);
      clearInterval(poll);
      kill(all);
      if (err) return reject(err);
      const dropped = sumDropped(parsers);
      resolve({ items, dropped, incomplete: parsers.some((p) => p.incomplete()), killed, capped });
    };
    // At the deadline find stops; awk, at the end of its input, still sends the best it saw.
    const deadline = setTimeout(
      () => {
        killed = true;
        kill(finds);
      },
      Math.max(0, t0 + req.deadlineMs * FIND_SHARE - Date.now()),
    );
    const hardDeadline = setTimeout(() => kill(awks), Math.max(0, t0 + req.deadlineMs - Date.now()));
    const poll = setInterval(() => {
      if (opts.isCancelled()) return done(new WalkCancelled('walk cancelled'));
      const held = awks.find((awk) => residentBytes(awk.pid) > awkMaxBytes);
      if (held)
        done(new Error(`awk held more than ${bytesShown(awkMaxBytes)} of candidates (ties at the K-th best key)`));
    }, CANCEL_POLL_MS);
    let exits = 0;
    const exited = (what: string) => (code: number | null, signal: NodeJS.Signals | null) => {
      // find exits 1 when an entry vanished or could not be read mid-walk: what it printed stands.
      const ok = killed || code === 0 || (what === 'find' && code === 1);
      if (!ok) done(new Error(`${what} exited ${code ?? signal}: ${stderr.slice(0, 500)}`));
      else if (++exits === all.length) done();
    };
    for (const [i, find] of finds.entries()) {
      const awk = awks[i];
      const parser = parsers[i];
      find.stderr?.setEncoding('utf8');
      find.stderr?.on('data', (d: string) => {
        if (stderr.length < STDERR_MAX) stderr += d;
      });
      find.once('error', (err) => done(err));
      awk.once('error', (err) => done(err));
      awk.stdout?.on('data', (chunk: Buffer) => {
        for (const it of parser.push(chunk)) items.push(it);
        if (items.length > maxRecords) {
          capped = true;
          done();
        }
      });
      find.once('close', exited('find'));
      awk.once('close', exited('awk'));
    }
  });
}

/** A kept candidate, completed by the JS source's lstat. */
function completed(fs: TreeSource, stub: SourceRecord): SourceRecord {
  const slash = stub.path.lastIndexOf(0x2f);
  const dir = slash < 0 ? Buffer.alloc(0) : stub.path.subarray(0, slash);
  const name = slash < 0 ? stub.path : stub.path.subarray(slash + 1);
  const raw: RawEntry = fs.fill?.(dir, lazyRawEntry(Buffer.from(name), stub.type)) ?? lazyRawEntry(name, stub.type);
  const { name: _name, ...fields } = raw;
  return { ...fields, path: stub.path };
}

/**
 * Lists a ranked walk `remoteRankable` accepts with find and awk. Undefined when the JS
 * walker lists it faster (a file, or one small directory); `{ fallback }` when it must list
 * it after all: find or awk failed, or the listing passed maxRecords.
 */
export async function loadFindWalk(
  req: WalkRequest,
  opts: FindWalkOptions,
): Promise<FindWalk | { fallback: string } | undefined> {
  const t0 = Date.now();
  const maxRecords = opts.maxRecords ?? FIND_MAX_RECORDS;
  // The root as the JS walker gives it (one lstat): a file, a directory, or its error.
  const root = opts.fs.root();
  // One directory the JS walker reads in a single call: starting two processes costs more.
  if (root.type !== 'dir' || root.error || (root.nlink === 2 && root.size <= WHOLE_READ_MAX_DIR_BYTES))
    return undefined;
  // Two finds pay off where there are subtrees to share (a directory's nlink is 2 plus its
  // subdirectories on most file systems): one flat directory would be read twice for nothing.
  const halves = opts.halves ?? (availableParallelism() >= 2 && root.nlink !== 2 ? 2 : 1);
  const rootFd = opts.fs.rootDirFd();
  if (rootFd === undefined) return undefined;
  let listed: Listed;
  try {
    listed = await list(req, { ...opts, halves }, t0, maxRecords, rootFd);
  } catch (err) {
    if (err instanceof WalkCancelled) throw err;
    return { fallback: err instanceof Error ? err.message : String(err) };
  }
  if (listed.capped) return { fallback: `more than ${maxRecords} records` };
  if (!listed.killed && listed.dropped === undefined) return { fallback: 'awk sent no trailer' };
  const listing = collectListing(listed.items, maxRecords);
  const fs = opts.fs;
  const records = listing.records;
  for (const stub of listing.stubs) records.push(completed(fs, stub));
  const mem = new MemorySource(root, records, { dirErrors: listing.dirErrors });
  const unsearchable = listing.unsearchable;
  const source: TreeSource = {
    root: () => root,
    list: (dir) => (unsearchable.size > 0 && unsearchable.has(dir.toString('latin1')) ? fs.list(dir) : mem.list(dir)),
    fill: (dir, raw) => fs.fill?.(dir, raw) ?? raw,
    dirSize: (dir, deadlineAt, levels) => fs.dirSize(dir, deadlineAt, levels),
  };
  let first = true;
  return {
    source,
    now: () => {
      if (!first) return Date.now();
      first = false;
      return t0;
    },
    finish: (summary) =>
      finishFindSummary(summary, req, {
        dropped: listed.dropped,
        capped: false,
        killed: listed.killed || listed.incomplete,
        records: records.length,
      }),
  };
}
