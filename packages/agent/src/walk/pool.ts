// What the walks of one agent (or one embedded backend) share, as an object its owner
// creates and passes down (ripgrep's WalkParallel owns its workers and their queue), never
// a module global: two agents in one process, a test and the gateway's embedded backend
// each have their own. It holds the worker threads (pooled: starting a thread costs tens of
// milliseconds, a message does not), the workers given up on in a call that never returned,
// the watchdog that samples running workers' calls, the mounts found hung, and the find
// route's slots.
//
// None is started before the first walk and an idle one leaves after IDLE_WORKER_MS: an
// idle worker thread holds ~15 MiB of RSS (measured, bench footprint), more than a third
// of an idle agent's budget, while only the first walk after a quiet spell pays the start.
import * as v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { FindSlots } from '../find/route.js';
import type { CallWatch, StuckCall } from './call-probe.js';
import { HungMounts } from './hung-mounts.js';

/** Idle workers kept warm between walks; more walks at once start more workers. */
const MAX_IDLE_WORKERS = 4;
/** An idle worker not taken by a walk within this long is terminated. */
const IDLE_WORKER_MS = 30_000;
/** How often running workers' calls are sampled. */
const WATCH_EVERY_MS = 100;
const WORKER_URL = new URL('./worker.js', import.meta.url);
/**
 * Each walk worker's young generation, its own. The shipped agent runs with
 * --max-semi-space-size=1 (scripts/package/exec-argv.json) to keep the main thread's heap
 * small, and V8 lets that process-wide flag outrank a Worker's resourceLimits: each worker
 * scavenged every MiB a walk allocated (GC ~20 % of a tree walk's worker samples). 300k
 * tree walk in turns at load 9-12 (bench/results/walk.why.md): 8 MiB took 3520 ms of agent
 * CPU against 3805 ms with the flag's 1 MiB, and less wall; 16 MiB saved as much CPU but
 * walked slower and peaked higher.
 */
/**
 * trackUnmanagedFds off: a walk opens its directories through the native module (fsat.ts),
 * which Node's per-worker descriptor tracking does not see, and with tracking on every close
 * of one printed a warning (more CPU than a small walk itself). A walk closes what it opened
 * (its sources' close in finally blocks); a worker abandoned in a hung call keeps its
 * walk's descriptors until that call returns, as the native ones always did.
 */
/**
 * Each walk worker's old generation, at most this: V8 grows a heap well past what it holds
 * before it collects (a ranked walk holding 100,000 entries of a million-entry directory
 * took the agent to 401 MiB; bounded so, 144 MiB), and the unit's MemoryMax is 256M for
 * every walk at once. A walk holds at most MAX_RANKED_HELD ranked entries or the find
 * route's FIND_MAX_RECORDS records; one that still runs out fails alone, its worker
 * replaced (walker.ts: "walk worker exited unexpectedly").
 */
const WORKER_OLD_GENERATION_MB = 96;
const WORKER_OPTIONS = {
  resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
  trackUnmanagedFds: false,
};
/**
 * A split tree walk's helper thread (split/start.ts) with a young generation of its own, a
 * small one: the helper walks pieces of at most a few MiB of rows while the walk worker, with
 * its 8 MiB, walks the rest, and the two young generations side by side took a 300k tree
 * walk's peak past 128 MiB (bench/results/footprint.why.md). Its workers are kept apart from
 * the walk workers (WalkPool's idleLean), so no walk gets a lean heap.
 */
const LEAN_WORKER_OPTIONS = {
  resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
  trackUnmanagedFds: false,
};

let workerYoungGeneration = false;

/**
 * Lets the workers' resourceLimits decide their young generation: the flag is read when an
 * isolate is made, so the main thread keeps the semi-space it started with; only workers
 * made from now on are sized by WORKER_OPTIONS (0 is V8's "not set").
 */
function ownYoungGeneration(): void {
  if (workerYoungGeneration) return;
  workerYoungGeneration = true;
  v8.setFlagsFromString('--max-semi-space-size=0');
}

/** A walk worker's thread (the one place one is made: the bundles swap its source, scripts/package/bundle.mjs). */
function newThread(lean = false): Worker {
  ownYoungGeneration();
  return new Worker(WORKER_URL, lean ? LEAN_WORKER_OPTIONS : WORKER_OPTIONS);
}

/**
 * A worker started before any pool asked for one (startSpareWorker), not yet owned: the first
 * pool that needs a worker takes it. A thread's start (Node's bootstrap of the isolate, then
 * the walk's ~90 modules) is ~100 ms on this 2-core machine, and a one-shot `fleetls ls
 * localhost:/etc` spent it waiting after its own modules had loaded (startup.why.md); begun
 * while the command still loads, the two overlap. Unref'd: it never holds a process open.
 */
let spare: Worker | undefined;

/**
 * Starts the spare walk worker if there is none (and returns it): for a process about to walk
 * on this host (the CLI with the embedded localhost), whose first walk then finds its thread started.
 */
export function startSpareWorker(): Worker {
  if (spare) return spare;
  const worker = newThread();
  worker.unref();
  // A spare that dies unowned (a failed start) is not handed out.
  worker.once('exit', () => {
    if (spare === worker) spare = undefined;
  });
  spare = worker;
  return worker;
}

/** The spare worker, now the caller's, or undefined. */
function takeSpare(): Worker | undefined {
  const worker = spare;
  spare = undefined;
  worker?.ref();
  return worker;
}

/** A running worker's probe, sampled while it runs. */
export interface Watched {
  watch: CallWatch;
  timeoutMs: number;
  onStuck: (call: StuckCall) => void;
}

export class WalkPool {
  /** Mounts that stopped answering, remembered for a while (walk/hung-mounts.ts). */
  readonly hung: HungMounts;
  /** Ranked walks listed by GNU find at once (find/route.ts). */
  readonly find = new FindSlots();
  private readonly idle: Worker[] = [];
  /** Idle helper workers made lean (LEAN_WORKER_OPTIONS), and every lean worker alive. */
  private readonly idleLean: Worker[] = [];
  private readonly lean = new WeakSet<Worker>();
  /** Each idle worker's timer to terminate it. */
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  /** Workers abandoned in a call that has not returned; each leaves when its thread exits. */
  private readonly stuck = new Set<Worker>();
  /** Running workers' probes, sampled by one timer while there are any. */
  private readonly watched = new Set<Watched>();
  private watchTimer: NodeJS.Timeout | undefined;
  /** Walks running now (walker.ts): a walk splits with a helper thread only when it runs alone. */
  walking = 0;

  constructor(opts: { hung?: HungMounts } = {}) {
    this.hung = opts.hung ?? new HungMounts();
  }

  /** Workers stuck in a file system call that has not returned (each holds a thread). */
  stuckWorkers(): number {
    return this.stuck.size;
  }

  /** Samples `w` until the returned function is called. */
  watch(w: Watched): () => void {
    this.watched.add(w);
    if (!this.watchTimer) {
      this.watchTimer = setInterval(() => this.sampleAll(), WATCH_EVERY_MS);
      this.watchTimer.unref();
    }
    return () => {
      this.watched.delete(w);
      if (this.watched.size === 0 && this.watchTimer) {
        clearInterval(this.watchTimer);
        this.watchTimer = undefined;
      }
    };
  }

  private sampleAll(): void {
    const now = Date.now();
    for (const w of [...this.watched]) {
      const call = w.watch.sample(now, w.timeoutMs);
      if (call) w.onStuck(call);
    }
  }

  /** A worker that will never be reused: terminated (effective once its call returns), counted until it exits. */
  abandon(worker: Worker): void {
    this.stuck.add(worker);
    worker.once('exit', () => this.stuck.delete(worker));
    worker.unref();
    void worker.terminate().catch(() => {});
  }

  /**
   * A new worker (the spare if there is one; a lean one is always new) that leaves its idle
   * list if it ever exits.
   */
  private newWorker(lean: boolean): Worker {
    const worker = (lean ? undefined : takeSpare()) ?? newThread(lean);
    if (lean) this.lean.add(worker);
    worker.once('exit', () => {
      const idle = this.idleOf(worker);
      const i = idle.indexOf(worker);
      if (i >= 0) idle.splice(i, 1);
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
    });
    return worker;
  }

  private idleOf(worker: Worker): Worker[] {
    return this.lean.has(worker) ? this.idleLean : this.idle;
  }

  /** A walk worker, or with `lean` a helper's (LEAN_WORKER_OPTIONS: a small young generation). */
  acquire(opts: { lean?: boolean } = {}): Worker {
    const lean = opts.lean === true;
    const worker = (lean ? this.idleLean : this.idle).pop();
    if (!worker) return this.newWorker(lean);
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    worker.ref();
    return worker;
  }

  /**
   * A worker whose walk ended cleanly goes back to the pool, unref'd so it never holds the
   * process open, until IDLE_WORKER_MS pass without a walk taking it.
   */
  release(worker: Worker): void {
    const idle = this.idleOf(worker);
    if (idle.length >= MAX_IDLE_WORKERS) {
      void worker.terminate();
      return;
    }
    worker.unref();
    idle.push(worker);
    // Off the list before terminate(), which settles later: no walk may take it meanwhile.
    const timer = setTimeout(() => {
      this.idleTimers.delete(worker);
      idle.splice(idle.indexOf(worker), 1);
      void worker.terminate();
    }, IDLE_WORKER_MS);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }
}
