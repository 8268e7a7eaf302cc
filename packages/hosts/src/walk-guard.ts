// What the gateway believes of a host's walk, whatever carried it (an agent over HTTP/2 or
// NATS, SSH, the embedded agent): no more rows than its request allows, and, once its rows
// began, rows that keep coming. A host past either is ended: what it sent within bounds
// stands, the offending batch is dropped, and nothing more of it is read (its call is
// cancelled). A fleet has one hostile host; it must not cost the gateway its memory, nor a
// caller its scans.
import { FleetError, type HostBackend, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';

/** A host sent more than its request allows: its status is `error`, saying what it overran. */
export class HostOverrun extends FleetError {
  constructor(what: string) {
    super('internal', `the host sent more than its request allows (${what}): cut off, the rest not read`);
  }
}

/** A host whose rows began and then stopped coming: its status is `timeout`. */
export class HostStalled extends FleetError {
  constructor(stallMs: number) {
    super('deadline_exceeded', `no rows for ${fmtSeconds(stallMs)} s: the host stalled and was ended`);
  }
}

function fmtSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/**
 * The rows one walk may send, counted as they arrive. An honest walk (core's walk engine, on
 * every route) sends at most max_entries entry rows in the tree shape and top_n in the ranked
 * one (the root's own error row is one entry); a directory other than the requested path (or
 * it too, with cap_root) shows at most max_items_per_dir children, each entry row followed by
 * at most one error row of the same path; and a truncation row closes a directory whose
 * children it follows, so there are never more of them than entries, plus the root's.
 */
export class RowAllowance {
  private entries = 0;
  private truncations = 0;
  private readonly maxEntries: number;
  private readonly perDir: Map<string, number> | undefined;
  private lastPath: Buffer | undefined;

  constructor(private readonly req: WalkRequest) {
    this.maxEntries = req.shape === 'ranked' ? req.topN : req.maxEntries;
    this.perDir = req.shape === 'tree' ? new Map() : undefined;
  }

  /** What the first row of `batch` past the allowance overruns; undefined when every row fits. */
  excess(batch: Row[]): string | undefined {
    for (const row of batch) {
      if (row.kind === 'truncation') {
        if (++this.truncations > this.entries + 1) {
          return `${this.truncations} truncation rows after ${this.entries} entries`;
        }
        continue;
      }
      if (++this.entries > this.maxEntries) {
        return this.req.shape === 'ranked'
          ? `more than top_n=${this.maxEntries} rows`
          : `more than max_entries=${this.maxEntries} rows`;
      }
      const over = this.perDir && this.dirExcess(row.entry.path, this.perDir);
      if (over) return over;
    }
    return undefined;
  }

  /** Counts a tree row among its directory's children (an error row right after its entry is not another child). */
  private dirExcess(path: Buffer, perDir: Map<string, number>): string | undefined {
    const again = this.lastPath?.equals(path) ?? false;
    this.lastPath = path;
    if (again || path.length === 0) return undefined;
    const slash = path.lastIndexOf(0x2f);
    if (slash < 0 && !this.req.capRoot) return undefined;
    const dir = slash < 0 ? '' : path.toString('latin1', 0, slash);
    const n = (perDir.get(dir) ?? 0) + 1;
    perDir.set(dir, n);
    if (n <= this.req.maxItemsPerDir) return undefined;
    return `more than max_items_per_dir=${this.req.maxItemsPerDir} children in one directory`;
  }
}

export interface WalkGuardOptions {
  /** Once a host's rows began, the longest it may send none (undefined: no such rule). */
  stallMs?: number;
}

type WalkFn = (req: WalkRequest, signal: AbortSignal) => AsyncGenerator<Row[], WalkSummary, void>;

/**
 * `walk` held to `req`: a batch past the allowance ends the host with HostOverrun; once rows
 * began, `stallMs` without a batch ends it with HostStalled. Either way the inner walk is
 * cancelled through its own signal (its carrier resets the stream), so no more is read.
 * Before the first row the walk's own deadline applies: a ranked walk sends nothing until
 * it is done, honestly.
 */
export async function* guardWalk(
  walk: WalkFn,
  req: WalkRequest,
  signal: AbortSignal,
  opts: WalkGuardOptions = {},
): AsyncGenerator<Row[], WalkSummary, void> {
  const allowance = new RowAllowance(req);
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const inner = walk(req, ctrl.signal);
  let finished = false;
  let pending = false;
  let began = false;
  try {
    for (;;) {
      pending = true;
      const r =
        began && opts.stallMs !== undefined ? await stallRace(inner.next(), opts.stallMs, ctrl) : await inner.next();
      pending = false;
      if (r.done) {
        finished = true;
        return r.value;
      }
      const over = allowance.excess(r.value);
      if (over) throw new HostOverrun(over);
      if (r.value.length > 0) began = true;
      yield r.value;
    }
  } catch (err) {
    // The inner walk ended because this guard cancelled it: the guard's verdict is the reason.
    const reason: unknown = ctrl.signal.reason;
    if (reason instanceof HostStalled || reason instanceof HostOverrun) throw reason;
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) {
      if (!ctrl.signal.aborted) ctrl.abort(new FleetError('cancelled', 'the walk was stopped'));
      // A next() still waiting (a stall) settles on the abort; return() would queue behind it.
      if (pending) void inner.return(undefined as never).catch(() => {});
      else await inner.return(undefined as never).catch(() => {});
    }
  }
}

/** `next`, or HostStalled once `ms` pass without it (the walk is then aborted with that reason). */
function stallRace<T>(next: Promise<T>, ms: number, ctrl: AbortController): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => {
      const stalled = new HostStalled(ms);
      ctrl.abort(stalled);
      // The inner walk's own failure follows; it is not the answer, and must not go unhandled.
      next.catch(() => {});
      reject(stalled);
    }, ms);
    next.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** `backend` with every walk guarded (guardWalk); its other calls as they are. */
export function guardBackend(backend: HostBackend, opts: WalkGuardOptions = {}): HostBackend {
  return {
    get via() {
      return backend.via;
    },
    walk: (req, signal, onEntriesSeen) => guardWalk((r, s) => backend.walk(r, s, onEntriesSeen), req, signal, opts),
    stat: (path, follow, signal) => backend.stat(path, follow, signal),
    probe: (signal) => backend.probe(signal),
    close: () => backend.close(),
  };
}
