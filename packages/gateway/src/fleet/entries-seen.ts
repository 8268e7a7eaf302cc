// How far one host is, while its task runs: the entries its walks have read so far, summed
// over the walks the task runs (du runs two or three side by side). A walk's figure is what
// its host says (an agent's progress messages, the embedded agent's count) or, where the host
// says nothing (SSH), the entries it has sent: whichever is higher.
import type { HostBackend, OnEntriesSeen, Row } from '@fleetls/core';

/** `backend` whose walks report their host's entries read so far to `hear` (rising). */
export function countingEntries(backend: HostBackend, hear: OnEntriesSeen): HostBackend {
  const walks: number[] = [];
  let heard = 0;
  const tell = () => {
    let sum = 0;
    for (const n of walks) sum += n;
    if (sum > heard) {
      heard = sum;
      hear(sum);
    }
  };
  return {
    get via() {
      return backend.via;
    },
    async *walk(req, signal) {
      const slot = walks.push(0) - 1;
      let sent = 0;
      let said = 0;
      const update = () => {
        walks[slot] = Math.max(said, sent);
        tell();
      };
      const gen = backend.walk(req, signal, (n) => {
        said = n;
        update();
      });
      try {
        for (;;) {
          const r = await gen.next();
          if (r.done) {
            said = Math.max(said, r.value.entriesSeen);
            update();
            return r.value;
          }
          for (const row of r.value as Row[]) if (row.kind === 'entry') sent++;
          update();
          yield r.value;
        }
      } finally {
        await gen.return(undefined as never);
      }
    },
    stat: (path, follow, signal) => backend.stat(path, follow, signal),
    probe: (signal) => backend.probe(signal),
    close: () => backend.close(),
  };
}
