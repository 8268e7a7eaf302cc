// The gateway on NATS: one connection, the live registry (hosts_from: nats) as hosts
// beside the inventory's, a NATS backend per registered host, and the JetStream page store
// that lets any gateway serve the page after another's.

import type { HostBackend } from '@fleetls/core';
import {
  createNatsBackend,
  isFresh,
  type NatsRegistry,
  openRetried,
  type RegisteredHost,
  watchRegistry,
} from '@fleetls/hosts/nats';
import { connectNats } from '@fleetls/runtime/nats';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { GatewayNatsSettings } from '../inventory/nats.js';
import { openJetStreamPageStore } from './jetstream-page-store.js';
import type { PageStore } from './page-store.js';
import type { FleetHost } from './types.js';

export interface NatsFleetPart {
  readonly nc: NatsConnection;
  readonly registry: NatsRegistry;
  /** The registered hosts, fresh or not (one that stopped answers unreachable, naming when it was seen). */
  hosts(): FleetHost[];
  host(name: string): FleetHost | undefined;
  backend(name: string): HostBackend;
  readonly pages: PageStore;
  close(): Promise<void>;
}

/** A registered host as the selector sees it: its name, and the operator's labels and groups (never its own claim). */
function fleetHostOf(h: RegisteredHost, now: number): FleetHost {
  const name = h.registration.name;
  return {
    name,
    via: 'agent+nats',
    address: `nats:${name}${isFresh(h, now) ? '' : ` (last seen ${h.seenAt.toISOString()})`}`,
    labels: h.identity.labels,
    groups: h.identity.groups,
    sshFallback: false,
  };
}

export async function openNatsFleet(deps: {
  settings: GatewayNatsSettings;
  logger: Logger;
  connectTimeoutMs: number;
  /** JetStream replicas of the registry and the page store (the cluster's size, up to 3). */
  replicas?: number;
}): Promise<NatsFleetPart> {
  const logger = deps.logger.child({ nats: deps.settings.servers.join(',') });
  const nc = await connectNats(deps.settings, { name: 'fleetls gateway', key: 'nats_creds' });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect')
        logger.info({ event: s.type, server: nc.getServer() }, `nats ${s.type}`);
    }
  })().catch(() => undefined);
  const operatorHosts = deps.settings.hosts;
  const registry = await watchRegistry({
    nc,
    logger,
    replicas: deps.replicas,
    identity: operatorHosts && ((name) => operatorHosts.get(name)),
    maxHeartbeatMs: deps.settings.maxHeartbeatMs,
  });
  const pages = await openRetried(
    'page store',
    () => openJetStreamPageStore({ nc, logger, replicas: deps.replicas }),
    logger,
  );
  return {
    nc,
    registry,
    pages,
    hosts: () => {
      const now = Date.now();
      return registry.hosts().map((h) => fleetHostOf(h, now));
    },
    host(name) {
      const h = registry.get(name);
      return h && fleetHostOf(h, Date.now());
    },
    backend: (name) =>
      createNatsBackend(name, {
        nc,
        // Not a child logger per host: 5,000 of them were a tenth of a call's CPU; the backend names its host.
        logger,
        connectTimeoutMs: deps.connectTimeoutMs,
        registry,
      }),
    async close() {
      registry.close();
      await nc.drain().catch(() => nc.close());
    },
  };
}
