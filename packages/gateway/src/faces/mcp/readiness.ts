// What `/readyz` answers for `fleetls serve`: not ready until each thing it waits for is up
// (the inventory loaded, every transport listening), and again once shutting down.
export class Readiness {
  private readonly waiting: Set<string>;
  private stopping = false;

  constructor(waitFor: readonly string[]) {
    this.waiting = new Set(waitFor);
  }

  up(what: string): void {
    this.waiting.delete(what);
  }

  stop(): void {
    this.stopping = true;
  }

  /** undefined when ready, else why not. */
  notReady(): string | undefined {
    if (this.stopping) return 'shutting down';
    return this.waiting.size === 0 ? undefined : `waiting for ${[...this.waiting].join(', ')}`;
  }
}
