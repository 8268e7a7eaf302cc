// Per-principal call rates: a token bucket per principal, refilled continuously, so a caller
// may burst up to a minute's calls and then goes at the granted pace. One bucket per principal
// name in the process, kept across reloads of the grants file (a reload must not reset a flood).
import { FleetError } from '@fleetls/core';

export class RateLimiter {
  private tokens: number;
  private at: number;

  constructor(
    private perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = perMinute;
    this.at = now();
  }

  /** A reloaded file's rate; the bucket keeps what it holds, up to the new size. */
  setRate(perMinute: number): void {
    this.refill();
    this.perMinute = perMinute;
    this.tokens = Math.min(this.tokens, perMinute);
  }

  /** Takes one call, or throws resource_exhausted saying when the next one may come. */
  take(principal: string): void {
    const wait = this.tryTake();
    if (wait > 0) {
      throw new FleetError(
        'resource_exhausted',
        `${principal} may make ${this.perMinute} calls a minute and has made them: retry in ${Math.ceil(wait / 1000)} s`,
      );
    }
  }

  /** 0 when a call was taken, else the milliseconds until one may be. */
  tryTake(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 60_000) / this.perMinute);
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.perMinute, this.tokens + ((t - this.at) * this.perMinute) / 60_000);
    this.at = t;
  }
}
