// A host backend that reports each walk it serves to the observer: its outcome, wall time
// and rows, counted as they pass. The fleet wraps every backend in it once.
import {
  FleetError,
  type HostBackend,
  type Observer,
  type OnEntriesSeen,
  type Row,
  type StatInfo,
  type WalkRequest,
  type WalkSummary,
  WalkTally,
} from '@fleetls/core';
// The transport an outcome names: the fallback backend tags its results and errors with `via`.
import { viaOf } from '@fleetls/hosts';

export function observeBackend(backend: HostBackend, observer: Observer, host?: string): HostBackend {
  return new ObservedBackend(backend, observer, host);
}

/**
 * A class, not an object literal with its own `async *walk`: a NATS host's backend is made per
 * call (fleet.ts), and a generator function made per call gets a map of its own at its first
 * call, in the old generation and pointing back at the function, which once dead keeps what
 * the function holds alive through every scavenge until a full collection
 * (bench/results/structure.why.md, issue 34, session 19). A method is one function for all.
 */
class ObservedBackend implements HostBackend {
  constructor(
    private readonly backend: HostBackend,
    private readonly observer: Observer,
    private readonly host: string | undefined,
  ) {}

  get via() {
    return this.backend.via;
  }

  async *walk(
    req: WalkRequest,
    signal: AbortSignal,
    onEntriesSeen?: OnEntriesSeen,
  ): AsyncGenerator<Row[], WalkSummary, void> {
    const { backend, observer } = this;
    const started = performance.now();
    const tally = new WalkTally();
    const seconds = () => (performance.now() - started) / 1000;
    let ended = false;
    const gen = backend.walk(req, signal, onEntriesSeen);
    try {
      for (;;) {
        const r = await gen.next();
        if (r.done) {
          tally.summary(r.value);
          ended = true;
          observer.walkEnded({ via: viaOf(r.value, backend), outcome: 'ok', seconds: seconds(), counts: tally });
          return r.value;
        }
        for (const row of r.value as Row[]) tally.row(row);
        yield r.value;
      }
    } catch (err) {
      ended = true;
      const fe = FleetError.from(err);
      observer.walkEnded({ via: viaOf(err, backend), outcome: fe.code, seconds: seconds(), counts: tally });
      throw err;
    } finally {
      // A consumer that stopped early (a cap, a cancel) ends the walk: the inner one too.
      if (!ended) {
        observer.walkEnded({ via: backend.via, outcome: 'cancelled', seconds: seconds(), counts: tally });
        await gen.return(undefined as never);
      }
    }
  }

  stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
    return this.backend.stat(path, followSymlinks, signal);
  }

  async probe(signal: AbortSignal): ReturnType<HostBackend['probe']> {
    const r = await this.backend.probe(signal);
    if (r.certNotAfter && this.host !== undefined) this.observer.agentCertificate?.(this.host, r.certNotAfter);
    return r;
  }

  close(): void {
    this.backend.close();
  }
}
