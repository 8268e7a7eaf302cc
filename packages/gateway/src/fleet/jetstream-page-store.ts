// The page store on JetStream: a kept ranking is an object (gzipped JSON, Buffers as
// base64) in an object store whose objects expire with the memory store's TTL. Any gateway
// on the same NATS reads what another wrote, so the page after a gateway died is served
// by the next one, from the same ranking: every row exactly once. A store that cannot be
// reached is a miss (the next page ranks again from its offset), never a failed page.
import { randomBytes } from 'node:crypto';
import { Objm } from '@nats-io/obj';
import { type NatsConnection, nanos } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { decodeBody, encodeBody } from './gzip-json.js';
import type { PageStore, RankingSnapshot } from './page-store.js';

export const PAGES_BUCKET = 'fleetls-pages';
const TTL_MS = 10 * 60_000;
export async function openJetStreamPageStore(deps: {
  nc: NatsConnection;
  logger: Logger;
  bucket?: string;
  replicas?: number;
}): Promise<PageStore> {
  const { logger } = deps;
  const os = await new Objm(deps.nc).create(deps.bucket ?? PAGES_BUCKET, {
    ttl: nanos(TTL_MS),
    replicas: deps.replicas ?? 1,
  });
  return {
    async put(snapshot) {
      const id = randomBytes(8).toString('hex');
      try {
        await os.putBlob({ name: id }, await encodeBody(snapshot));
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'page store: ranking not kept in JetStream');
      }
      return id;
    },
    async get(id, fingerprint) {
      if (!/^[0-9a-f]{16}$/.test(id)) return undefined;
      try {
        const bytes = await os.getBlob(id);
        if (!bytes) return undefined;
        const s = await decodeBody<RankingSnapshot>(bytes);
        return s.fingerprint === fingerprint ? s : undefined;
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'page store: ranking not read from JetStream');
        return undefined;
      }
    },
  };
}
