// The peers part of a gateway on NATS: the table of serving gateways, the splitter a call's
// fan-out asks (split.ts) and, once the gateway serves (faces/cli/serve.ts), the shard
// server its peers send to (serve-shards.ts). A one-shot CLI splits its calls but serves none.
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { FleetPeers } from '../fleet-types.js';
import { openPeerTable } from './peer-table.js';
import { type ShardServerDeps, serveShards } from './serve-shards.js';
import { DEFAULT_SPLIT_MIN_HOSTS, peerSplitter } from './split.js';

export type ServeShards = Omit<ShardServerDeps, 'nc' | 'table' | 'logger'>;

export interface GatewayPeers extends FleetPeers {
  /** Serves shards from the other gateways, and says hello so they send some. */
  serve(deps: ServeShards): void;
  close(): void;
}

export function openGatewayPeers(deps: { nc: NatsConnection; logger: Logger; minHosts?: number }): GatewayPeers {
  const logger = deps.logger.child({ part: 'peers' });
  const table = openPeerTable(deps.nc, logger);
  const splitter = peerSplitter({ nc: deps.nc, table, logger, minHosts: deps.minHosts ?? DEFAULT_SPLIT_MIN_HOSTS });
  let server: { close(): void } | undefined;
  return {
    split: splitter.split,
    withCaller: splitter.withCaller,
    serve(s) {
      server ??= serveShards({ ...s, nc: deps.nc, table, logger });
    },
    close() {
      server?.close();
      table.close();
    },
  };
}
