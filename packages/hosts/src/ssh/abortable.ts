// Waits an SSH call may abort: a channel slot (sshd's MaxSessions) and a retry's backoff.
import { FleetError } from '@fleetls/core';

/** A counting semaphore whose waits can be aborted. */
export class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        this.waiting = this.waiting.filter((w) => w !== go);
        reject(new FleetError('cancelled', 'cancelled while waiting for an SSH channel'));
      };
      this.waiting.push(go);
      signal.addEventListener('abort', abort, { once: true });
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(t);
      reject(new FleetError('cancelled', 'cancelled'));
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
