// k-way merge of sorted lists (one per host) with a binary heap: O(log k) per item.
// Equal items come out in source order, so the merge is stable and deterministic.

type Head<T> = { item: T; src: number };

/** A min-heap of sources' current heads, ordered by `compare` then source index. */
class HeadHeap<T> {
  readonly items: Head<T>[] = [];
  constructor(private readonly compare: (a: T, b: T) => number) {}

  private less(a: Head<T>, b: Head<T>): boolean {
    const c = this.compare(a.item, b.item);
    return c < 0 || (c === 0 && a.src < b.src);
  }

  get size(): number {
    return this.items.length;
  }

  push(h: Head<T>): void {
    const a = this.items;
    a.push(h);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop(): Head<T> {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m])) m = l;
        if (r < a.length && this.less(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Merges lists each sorted by `compare` into one sorted list; ties keep list order. Stops
 * after `limit` items: a fleet's top N costs N pops, not one per row of every host.
 */
export function mergeSortedArrays<T>(
  lists: T[][],
  compare: (a: T, b: T) => number,
  limit = Number.POSITIVE_INFINITY,
): T[] {
  const heap = new HeadHeap<T>(compare);
  // A loop, not map and forEach arrows: a closure made per call loses its optimized code at
  // each full collection and is compiled again (walk/cursor.ts, stable).
  const pos: number[] = [];
  for (let src = 0; src < lists.length; src++) {
    pos.push(0);
    if (lists[src].length > 0) heap.push({ item: lists[src][0], src });
  }
  const out: T[] = [];
  while (heap.size > 0 && out.length < limit) {
    const { item, src } = heap.pop();
    out.push(item);
    const next = ++pos[src];
    if (next < lists[src].length) heap.push({ item: lists[src][next], src });
  }
  return out;
}
