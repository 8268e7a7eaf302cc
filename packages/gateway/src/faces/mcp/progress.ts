// A tool call's notifications/progress: one per host answered, at most one a second (the spec
// asks senders to rate-limit), and a heartbeat while hosts are still walking.
import type { HostStatus } from '@fleetls/core';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';

const PROGRESS_MIN_GAP_MS = 1000;

export interface CallProgress {
  /** Undefined when the caller asked for no progress (no progressToken). */
  onProgress: ((done: number, total: number, status: HostStatus) => void) | undefined;
  /** The call answered: nothing more is sent. */
  end(): void;
}

export function callProgress(
  ctx: ServerContext,
  token: string | number | undefined,
  intervalMs: number,
  log: Logger,
): CallProgress {
  let lastSent = Number.NEGATIVE_INFINITY;
  let lastValue = Number.NEGATIVE_INFINITY;
  let trailing: NodeJS.Timeout | undefined;
  let ended = false;
  const send = (progressValue: number, total: number | undefined, message: string) => {
    // Progress must rise, and stops once the call answered.
    if (ended || progressValue <= lastValue) return;
    lastSent = performance.now();
    lastValue = progressValue;
    ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token as string | number, progress: progressValue, total, message },
      })
      .catch((err: unknown) => log.debug({ err }, 'progress notification not delivered'));
  };
  // At most one a second: the latest count goes out when the second is up.
  const progress = (progressValue: number, total: number | undefined, message: string) => {
    const wait = lastSent + PROGRESS_MIN_GAP_MS - performance.now();
    if (wait <= 0) return send(progressValue, total, message);
    clearTimeout(trailing);
    trailing = setTimeout(() => send(progressValue, total, message), wait);
    trailing.unref();
  };
  let done = 0;
  let total: number | undefined;
  let beats = 0;
  const onProgress =
    token === undefined
      ? undefined
      : (d: number, t: number, status: HostStatus) => {
          done = d;
          total = t;
          beats = 0;
          progress(d, t, `${status.host}: ${status.status}`);
        };
  // While hosts are still walking, progress keeps coming (clients that reset their timeout on
  // progress keep waiting): each beat rises, staying below the next host's count.
  const heartbeat =
    token === undefined
      ? undefined
      : setInterval(() => {
          if (total !== undefined && done >= total) return;
          beats++;
          const waiting = total === undefined ? 'hosts' : `${total - done} of ${total} hosts`;
          progress(done + 1 - 1 / (beats + 1), total, `waiting for ${waiting}`);
        }, intervalMs);
  heartbeat?.unref();
  return {
    onProgress,
    end() {
      ended = true;
      clearInterval(heartbeat);
      clearTimeout(trailing);
    },
  };
}
