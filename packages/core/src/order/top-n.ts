// Keeps the best `limit` items of a stream in O(limit) memory: a binary heap whose top is
// the worst item kept, so each new item costs O(log limit) and most cost one comparison.

export class TopN<T> {
  private readonly heap: T[] = [];
  private pushed = 0;

  /** `compare(a, b) < 0` means a ranks before b; the `limit` first-ranked are kept. */
  constructor(
    readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Items offered so far, kept or not. */
  get seen(): number {
    return this.pushed;
  }

  get size(): number {
    return this.heap.length;
  }

  /**
   * Offers `item`; true when it is kept (it ranks within the best `limit` so far, the worst
   * kept one making room). What is refused now can never rank within `limit`.
   */
  push(item: T): boolean {
    this.pushed++;
    if (this.limit <= 0) return false;
    const h = this.heap;
    if (h.length < this.limit) {
      h.push(item);
      this.up(h.length - 1);
      return true;
    }
    if (this.compare(item, h[0]) >= 0) return false;
    h[0] = item;
    this.down(0);
    return true;
  }

  /** The worst item kept once `limit` are kept (what a new one must beat); undefined before. */
  worst(): T | undefined {
    return this.limit > 0 && this.heap.length >= this.limit ? this.heap[0] : undefined;
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  // Max-heap on `compare`: the worst kept item sits at the root.
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.compare(h[i], h[p]) <= 0) return;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && this.compare(h[l], h[worst]) > 0) worst = l;
      if (r < h.length && this.compare(h[r], h[worst]) > 0) worst = r;
      if (worst === i) return;
      [h[i], h[worst]] = [h[worst], h[i]];
      i = worst;
    }
  }
}
