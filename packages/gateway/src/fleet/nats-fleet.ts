// The gateway on NATS: one connection, the live registry (hosts_from: nats) as hosts
// beside the inventory's, a NATS backend per registered host, and the JetStream page store
// that lets any gateway serve the page after another's.

import { randomBytes } from 'node:crypto';
import type { HostBackend } from '@fleetls/core';
import {
  createNatsBackend,
  isFresh,
  type NatsRegistry,
  openRetried,
  type RegisteredHost,
  watchRegistry,
} from '@fleetls/hosts/nats';
import { clusterReplicas, connectNats, REGISTRY_BUCKET } from '@fleetls/runtime/nats';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { GatewayNatsSettings } from '../inventory/nats.js';
import type { FleetHost } from './fleet-types.js';
import { openJetStreamPageStore, PAGES_BUCKET } from './jetstream-page-store.js';
import type { PageStore } from './page-store.js';
import { type GatewayPeers, openGatewayPeers } from './peers/gateway-peers.js';

export interface NatsFleetPart {
  readonly nc: NatsConnection;
  readonly registry: NatsRegistry;
  /** The registered hosts, fresh or not (one that stopped answers unreachable, naming when it was seen). */
  hosts(): FleetHost[];
  host(name: string): FleetHost | undefined;
  backend(name: string): HostBackend;
  readonly pages: PageStore;
  /** The other gateways on this NATS: a big call's hosts are split among them (peers/). */
  readonly peers: GatewayPeers;
  whyNone(): string;
  close(): Promise<void>;
}

/** A registered host as the selector sees it: its name, and the operator's labels and groups (never its own claim). */
function fleetHostOf(h: RegisteredHost, now: number, registry: NatsRegistry): FleetHost {
  const name = h.name;
  const fresh = isFresh(h, now);
  const host: FleetHost = {
    name,
    via: 'agent+nats',
    address: `nats:${name}${fresh ? '' : ` (last seen ${h.seenAt.toISOString()})`}`,
    labels: h.identity.labels,
    groups: h.identity.groups,
    sshFallback: false,
  };
  // Staleness at list time, from the last heartbeat heard: no probe needed to know it.
  if (!fresh) host.unreachable = registry.stale(name)?.message;
  return host;
}

/** After the page store failed to open, how long rankings go unkept before it is tried again. */
const PAGES_RETRY_MS = 30_000;

/**
 * The page store, opened at first use: a gateway answers without it (a ranking not kept is a
 * next page ranked again), so its bucket being unreachable (its one replica's node down) never
 * holds a start or a one-shot CLI. A failed open is tried again PAGES_RETRY_MS later.
 */
function lazyPageStore(open: () => Promise<PageStore>, logger: Logger): PageStore {
  let opening: Promise<PageStore> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  const store = () => {
    if (!opening && Date.now() - failedAt < PAGES_RETRY_MS) return Promise.reject(new Error('page store: unavailable'));
    opening ??= open().catch((err) => {
      opening = undefined;
      failedAt = Date.now();
      throw err;
    });
    return opening;
  };
  const unkept = (err: unknown) =>
    logger.warn({ err: (err as Error).message }, `${(err as Error).message}: rankings are not kept`);
  return {
    async put(snapshot) {
      try {
        return await (await store()).put(snapshot);
      } catch (err) {
        unkept(err);
        return randomBytes(8).toString('hex'); // a handle nothing is kept under: the next page ranks again
      }
    },
    async get(id, fingerprint) {
      try {
        return await (await store()).get(id, fingerprint);
      } catch (err) {
        unkept(err);
        return undefined;
      }
    },
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
  // A gateway (or a one-shot CLI) fails, naming the servers, once each was tried: an agent waits.
  const nc = await connectNats(deps.settings, { name: 'fleetls gateway', key: 'nats_creds', waitForServers: false });
  logger.debug({ server: nc.getServer() }, 'connected to NATS');
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect')
        logger.info({ event: s.type, server: nc.getServer() }, `nats ${s.type}`);
    }
  })().catch(() => undefined);
  const replicas = deps.replicas ?? clusterReplicas(nc, deps.settings.servers);
  const operatorHosts = deps.settings.hosts;
  const registry = await watchRegistry({
    nc,
    logger,
    replicas,
    identity: operatorHosts && ((name) => operatorHosts.get(name)),
    maxHeartbeatMs: deps.settings.maxHeartbeatMs,
  });
  const pages = lazyPageStore(
    () =>
      openRetried(
        `page store (object store ${PAGES_BUCKET})`,
        () => openJetStreamPageStore({ nc, logger, replicas }),
        logger,
      ),
    logger,
  );
  const peers = openGatewayPeers({ nc, logger, minHosts: deps.settings.splitMinHosts });
  return {
    nc,
    registry,
    pages,
    peers,
    hosts: () => {
      const now = Date.now();
      return registry.hosts().map((h) => fleetHostOf(h, now, registry));
    },
    host(name) {
      const h = registry.get(name);
      return h && fleetHostOf(h, Date.now(), registry);
    },
    whyNone() {
      const unread = registry.problem();
      return (
        `No agent has registered on NATS (${deps.settings.servers.join(', ')}): agents register in the bucket ${REGISTRY_BUCKET} at start and every heartbeat (is one running with --connect, and may its credentials publish to $KV.${REGISTRY_BUCKET}.<its name>?)` +
        (unread ? `; and the registry could not be read: ${unread}` : '')
      );
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
      peers.close();
      registry.close();
      await nc.drain().catch(() => nc.close());
    },
  };
}
