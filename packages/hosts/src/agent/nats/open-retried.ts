// Opening (creating) a replicated JetStream bucket is a proposal to the cluster's meta
// leader. Gateways that start together race it, and the loser's request can time out:
// two R3 creates at once from two nodes of a 3-node cluster, 3 of 10 rounds (2026-12-06),
// which stopped a gateway at start. Asked again, the bucket is there.
import { FleetError } from '@fleetls/core';
import { natsProblem } from '@fleetls/runtime/nats';
import type { Logger } from 'pino';

export const OPEN_ATTEMPTS = 5;

/**
 * `open()`, tried again after a failure (250 ms, then doubling) up to OPEN_ATTEMPTS times; the
 * last failure is thrown naming `what` (a bare "timeout" from the JetStream API says nothing).
 */
export async function openRetried<T>(what: string, open: () => Promise<T>, logger: Logger, delayMs = 250): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      // A denied subject stays denied: asking again only delays saying which.
      const denied = /permissions violation/i.test((err as Error)?.message ?? '');
      if (attempt >= OPEN_ATTEMPTS || denied) {
        const why = natsProblem(err);
        throw new FleetError(
          denied ? 'permission_denied' : 'unavailable',
          `${what}: ${why}${denied ? '' : ` (tried ${OPEN_ATTEMPTS} times)`}`,
          {
            cause: err,
          },
        );
      }
      logger.warn({ err: (err as Error).message, attempt }, `${what}: ${natsProblem(err)}; trying again`);
      await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** (attempt - 1)));
    }
  }
}
