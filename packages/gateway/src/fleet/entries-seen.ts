// How far one host is, while its task runs: the entries its walks have read so far, summed
// over the walks the task runs (du runs two or three side by side). A walk's figure is what
// its host says (an agent's progress messages, the embedded agent's count) or, where the host
// says nothing (SSH), the entries it has sent: whichever is higher. Counted by taps on the
// walk guard (fan-out.ts), not by another generator around every walk.
import type { OnEntriesSeen, Row, WalkSummary } from '@fleetls/core';
import type { WalkTap } from '@fleetls/hosts';

/** One host's entries read so far, told to `hear` as they rise. */
export class HostEntriesSeen {
  private readonly walks: WalkEntriesSeen[] = [];
  private heard = 0;

  constructor(private readonly hear: OnEntriesSeen) {}

  /** The tap of one more walk of the host. */
  walk(): WalkEntriesSeen {
    const tap = new WalkEntriesSeen(this);
    this.walks.push(tap);
    return tap;
  }

  update(): void {
    let sum = 0;
    for (const w of this.walks) sum += w.figure();
    if (sum > this.heard) {
      this.heard = sum;
      this.hear(sum);
    }
  }
}

/** One walk's count: the entry rows it sent, and what its host said it read. */
export class WalkEntriesSeen implements WalkTap {
  private sent = 0;
  private said = 0;

  constructor(private readonly host: HostEntriesSeen) {}

  figure(): number {
    return Math.max(this.said, this.sent);
  }

  /** The walk's onEntriesSeen: the host's own figure. */
  readonly seen = (n: number): void => {
    this.said = n;
    this.host.update();
  };

  rows(batch: Row[]): void {
    for (const row of batch) if (row.kind === 'entry') this.sent++;
    this.host.update();
  }

  done(summary: WalkSummary): void {
    this.said = Math.max(this.said, summary.entriesSeen);
    this.host.update();
  }
}
