// A host backend that reports each walk it serves to the observer: its outcome, wall time
// and rows, counted as they pass. The fleet wraps every backend in it once.
import { FleetError, type HostBackend, type Observer, type Row, WalkTally } from '@fleetls/core';
// The transport an outcome names: the fallback backend tags its results and errors with `via`.
import { viaOf } from '@fleetls/hosts';

export function observeBackend(backend: HostBackend, observer: Observer, host?: string): HostBackend {
  return {
    get via() {
      return backend.via;
    },
    async *walk(req, signal, onEntriesSeen) {
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
    },
    stat: (path, follow, signal) => backend.stat(path, follow, signal),
    async probe(signal) {
      const r = await backend.probe(signal);
      if (r.certNotAfter && host !== undefined) observer.agentCertificate?.(host, r.certNotAfter);
      return r;
    },
    close: () => backend.close(),
  };
}
