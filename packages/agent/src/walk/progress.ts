// How far a running walk is, for its caller while the walk has nothing to send (a ranked or du
// walk sends its rows at its end): the entries its worker has read, heard about once a second
// and only when the count rose, so a walk stuck on a hung mount says nothing new and a
// gateway's stall rule still sees it stuck.

/** How often a caller hears the count. */
export const PROGRESS_EVERY_MS = 1000;

/** Calls `hear` with `seen()` every `everyMs` while it rises; returns the stop. */
export function watchSeen(seen: () => number, hear: (entriesSeen: number) => void, everyMs = PROGRESS_EVERY_MS) {
  let last = 0;
  const timer = setInterval(() => {
    const n = seen();
    if (n > last) {
      last = n;
      hear(n);
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
