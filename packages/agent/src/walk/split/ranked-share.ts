// A ranked walk on both cores (core walk/ranked.ts RankedShare): the walk worker reads the
// root, hands its subdirectories to a helper thread (a worker of the same pool), and both
// take them one at a time from a shared counter, each into a heap of its own; the helper
// posts its kept entries and counts, which the walk offers to its heap. A ranked walk sends
// its rows only at its end, so the agent's main thread stays idle meanwhile: two busy
// threads on two cores, not three (the tree walk's split cannot say as much).
// Only where every call returns (local file systems, no hung mount: find/route.ts's rule),
// since the helper has no probe of its own; never when following symlinks (the allowed-roots
// check and loop chains are the walk's) or sizing directories (hard links counted once per walk).
// The helper is asked for only once the walk has directories to hand out (core reads ~1,024
// breadth first before it does): a small walk, such as a fan-out's ~40 entries a host, ends
// within that first read, and a thread woken, a port and a buffer per walk were its largest
// cost (bench/results/structure.why.md, "agentsmall").
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { type Entry, type RankedPart, type RankedShare, rankShare, type WalkRequest, WalkState } from '@fleetls/core';
import { localOnlyReason } from '../../find/route.js';
import type { Mount } from '../../fs/mounts.js';
import { createFsSource } from '../../fs/source.js';
import { WalkCancelled } from '../cancelled.js';
import type { WalkPool } from '../pool.js';
import { CANCEL, type PlainEntry, rowFromPlain, rowToPlain, type WorkerInput } from '../transit.js';
import { type FromWalk, fromWalk } from './shared.js';
import { helperOn } from './start.js';

/** The slots of the shared control buffer (Int32). */
const SHARE = {
  /** WAITING until the helper starts (STARTED), DONE once its part is posted; GONE: the walk went on without it. */
  STATE: 0,
  /** The next subdirectory index to claim. */
  NEXT: 1,
  /** Counts messages posted to the helper (it waits on this). */
  POSTED: 2,
  /** 1: the walk is over (the helper stops waiting). */
  QUIT: 3,
  SLOTS: 4,
} as const;
const WAITING = 0;
const STARTED = 1;
const DONE = 2;
const GONE = 3;

export interface RankedHelperInput extends FromWalk {
  role: 'ranked-helper';
  shared: SharedArrayBuffer;
  port: MessagePort;
  pseudo: ReadonlyMap<string, string>;
}

interface DirsMessage {
  t: 'dirs';
  dirs: PlainEntry[];
  rootDev: number;
  startedAt: number;
}

type PartMessage =
  | {
      t: 'part';
      entries: PlainEntry[];
      seen: number;
      matched: number;
      depthLimited: number;
      /** Directories the helper took. */
      claimed: number;
      stopped?: PlainStop;
    }
  | { t: 'failed'; message: string };

type PlainStop = { reason: NonNullable<RankedPart['stopped']>['reason']; dir: string };

/**
 * Does this ranked walk get a helper thread? A ranked walk by size or time, not given to find,
 * alone in its pool on two CPUs or more, where every call returns (local file systems only).
 */
export function rankedSplits(
  req: WalkRequest,
  input: WorkerInput,
  pool: WalkPool,
  mounts: readonly Mount[],
  nativeReads: boolean,
): boolean {
  if (req.shape !== 'ranked' || req.order === 'name' || req.followSymlinks || req.dirSizes || input.find) return false;
  if (!nativeReads || pool.walking !== 1 || availableParallelism() < 2) return false;
  return localOnlyReason(req.path, input.skip, mounts) === undefined;
}

function entryToPlain(entry: Entry): PlainEntry {
  return (rowToPlain({ kind: 'entry', entry }) as { e: PlainEntry }).e;
}

function entryFromPlain(e: PlainEntry): Entry {
  return (rowFromPlain({ e }) as { kind: 'entry'; entry: Entry }).entry;
}

/** The walk worker's side: hands the root's subdirectories out and takes the helper's part back. */
export class PortShare implements RankedShare {
  /** The control buffer and port, made once there are directories to hand out. */
  private sc: Int32Array | undefined;
  private port: MessagePort | undefined;
  private count = 0;
  /** Directories the helper took of those handed out (the walk's 'walk end' line says both). */
  helperTook = 0;

  /** Directories handed out. */
  get given(): number {
    return this.count;
  }

  /** `ask` has the main thread start a helper on the given end of the port and buffer (walker.ts). */
  constructor(
    private readonly ask: (port: MessagePort, shared: SharedArrayBuffer) => void,
    private readonly rootDev: () => number,
    private readonly startedAt: number,
    private readonly cancelled: () => boolean,
  ) {}

  start(dirs: readonly Entry[]): void {
    this.count = dirs.length;
    // The walk read the whole tree before it had enough directories to share: no helper.
    if (dirs.length === 0) return;
    const shared = new SharedArrayBuffer(SHARE.SLOTS * 4);
    const { port1, port2 } = new MessageChannel();
    this.sc = new Int32Array(shared);
    this.port = port1;
    const msg: DirsMessage = {
      t: 'dirs',
      dirs: dirs.map((entry) => entryToPlain(entry)),
      rootDev: this.rootDev(),
      startedAt: this.startedAt,
    };
    port1.postMessage(msg);
    Atomics.add(this.sc, SHARE.POSTED, 1);
    this.ask(port2, shared);
  }

  claim(): number | undefined {
    if (this.sc === undefined) return undefined;
    const i = Atomics.add(this.sc, SHARE.NEXT, 1);
    return i < this.count ? i : undefined;
  }

  finish(): RankedPart {
    const { sc, port } = this;
    // A helper that has not started by now claimed nothing: the walk took every directory.
    if (sc === undefined || port === undefined || Atomics.compareExchange(sc, SHARE.STATE, WAITING, GONE) === WAITING)
      return { entries: [], seen: 0, matched: 0, depthLimited: 0 };
    for (;;) {
      if (this.cancelled()) throw new WalkCancelled('walk cancelled');
      const state = Atomics.load(sc, SHARE.STATE);
      if (state === DONE) break;
      Atomics.wait(sc, SHARE.STATE, state, 100);
    }
    const got = receiveMessageOnPort(port);
    const m = got?.message as PartMessage | undefined;
    if (m === undefined) throw new Error('ranked helper ended without its part');
    if (m.t === 'failed') throw new Error(`ranked helper: ${m.message}`);
    this.helperTook = m.claimed;
    const part: RankedPart = {
      entries: m.entries.map((e) => entryFromPlain(e)),
      seen: m.seen,
      matched: m.matched,
      depthLimited: m.depthLimited,
    };
    if (m.stopped) part.stopped = { reason: m.stopped.reason, dir: Buffer.from(m.stopped.dir, 'latin1') };
    return part;
  }

  /** The walk's end of the port, once the walk is over. */
  close(): void {
    this.port?.close();
  }
}

/** The helper thread's side: waits for the subdirectories, walks its share, posts its part. */
export function runRankedHelper(input: RankedHelperInput): void {
  const ctl = new Int32Array(input.control);
  const sc = new Int32Array(input.shared);
  const over = () => Atomics.load(ctl, CANCEL) !== 0 || Atomics.load(sc, SHARE.QUIT) !== 0;
  if (Atomics.compareExchange(sc, SHARE.STATE, WAITING, STARTED) !== WAITING) return;
  let dirs: DirsMessage | undefined;
  while (dirs === undefined) {
    if (over()) {
      post(input, sc, { t: 'failed', message: 'walk over' });
      return;
    }
    const got = receiveMessageOnPort(input.port);
    if (got !== undefined) dirs = got.message as DirsMessage;
    else Atomics.wait(sc, SHARE.POSTED, 0, 100);
  }
  const source = createFsSource(input.req.path, {
    followSymlinks: false,
    allowedRoots: input.allowedRoots,
    isCancelled: over,
    skip: input.skip,
    pseudo: input.pseudo,
  });
  try {
    const state = new WalkState(input.req, source, () => Date.now(), dirs.startedAt);
    state.rootDev = dirs.rootDev;
    const entries = dirs.dirs.map((e) => entryFromPlain(e));
    const count = entries.length;
    let claimed = 0;
    const part = rankShare(state, entries, () => {
      const i = Atomics.add(sc, SHARE.NEXT, 1);
      if (i >= count) return undefined;
      claimed++;
      return i;
    });
    post(input, sc, {
      t: 'part',
      entries: part.entries.map((entry) => entryToPlain(entry)),
      seen: part.seen,
      matched: part.matched,
      depthLimited: part.depthLimited,
      claimed,
      ...(part.stopped ? { stopped: { reason: part.stopped.reason, dir: part.stopped.dir.toString('latin1') } } : {}),
    });
  } catch (err) {
    post(input, sc, { t: 'failed', message: err instanceof Error ? err.message : String(err) });
  } finally {
    source.close();
  }
}

function post(input: RankedHelperInput, sc: Int32Array, m: PartMessage): void {
  input.port.postMessage(m);
  Atomics.store(sc, SHARE.STATE, DONE);
  Atomics.notify(sc, SHARE.STATE);
}

/**
 * Starts the helper a ranked walk's worker asked for (PortShare's `ask`), on a worker of `pool`
 * (given back once it is done), with the worker's buffer and the helper's end of their port;
 * returns how to end the helper's wait.
 */
export function startRankedHelper(
  pool: WalkPool,
  input: WorkerInput,
  timeoutMs: number,
  shared: SharedArrayBuffer,
  port: MessagePort,
): () => void {
  const helperInput: RankedHelperInput = {
    role: 'ranked-helper',
    ...fromWalk(input),
    shared,
    port,
    pseudo: input.pseudo,
  };
  return helperOn(
    pool,
    { slots: SHARE.SLOTS, quit: SHARE.QUIT, wake: SHARE.POSTED },
    timeoutMs,
    shared,
    port,
    helperInput,
  );
}
