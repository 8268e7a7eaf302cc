// The gateway's fleet: the inventory's hosts (or the embedded localhost when there is
// none), the selector over them, and one lazily created, reused backend per host.
import { FleetError, type HostBackend, NOOP_OBSERVER, type Observer, type Via } from '@fleetls/core';
import { type HostSpec, TRANSPORTS, type TransportContext, type TransportFactory, transportOf } from '@fleetls/hosts';
import type { Logger } from 'pino';
import { LOCALHOST } from '../inventory/hosts.js';
import { KUBERNETES_REFRESH_MS, KubernetesDiscovery, type Resolver } from '../inventory/kubernetes.js';
import type { GatewayNatsSettings } from '../inventory/nats.js';
import { resolveInventoryPath } from '../inventory/path.js';
import type { Inventory, InventoryHost } from '../inventory/types.js';
import { observeBackend } from '../metrics/observe-backend.js';
import type { Fleet, FleetHost } from './fleet-types.js';
import type { PageStore } from './page-store.js';
import type { GatewayPeers } from './peers/gateway-peers.js';
import { selectHosts } from './selector.js';

export interface LoadFleetOptions {
  /** `--inventory`; else $FLEETLS_INVENTORY (empty = none), else ./fleetls.yaml. */
  inventoryPath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logger: Logger;
  /** Overrides the inventory's `defaults.connect_timeout_ms` (default 3000). */
  connectTimeoutMs?: number;
  /** Without an inventory: the roots of the embedded localhost (`serve --allow`); default `/`. */
  localAllow?: string[];
  /** Transports' factories by via (TRANSPORTS' `load`); tests replace them with doubles. */
  factories?: TransportFactories;
  /** Where walks, host outcomes and SSH connections are reported (metrics). */
  observer?: Observer;
  /** NATS (--nats, --nats-creds…): the registry's hosts beside the inventory's, and a shared page store. */
  nats?: GatewayNatsSettings;
  /** DNS for an inventory's `kubernetes:` agents; tests replace it. */
  resolver?: Resolver;
  /** How often `kubernetes:` agents are re-listed (default KUBERNETES_REFRESH_MS). */
  kubernetesRefreshMs?: number;
}

/** The loaded factory of each transport a fleet uses, by via. */
export type TransportFactories = Partial<Record<Via, TransportFactory<unknown>>>;

/** Hosts that come and go (the NATS registry), beside the inventory's; the inventory's win a name. */
export interface DynamicHosts {
  hosts(): FleetHost[];
  /** One of hosts() by name, without listing them all (a call over 5,000 hosts asks each). */
  host(name: string): FleetHost | undefined;
  backend(name: string): HostBackend;
  /** A page store every gateway of this fleet shares (JetStream), if any. */
  readonly pages?: PageStore;
  /** The other gateways serving this fleet (NATS), if any. */
  readonly peers?: GatewayPeers;
  /** Why there may be no host yet, said when a selector selects none (no agent registered). */
  whyNone?(): string;
  close(): Promise<void>;
}

export interface LoadedFleet extends Fleet {
  /** Kept rankings shared by the gateways of this fleet (NATS); undefined = each process keeps its own. */
  readonly pages?: PageStore;
  /** The inventory in use; undefined when localhost is served by the embedded agent alone. */
  readonly inventory?: Inventory;
  /** The other gateways serving this fleet (NATS): calls split among them, and serve() answers theirs. */
  readonly peers?: GatewayPeers;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 3000;

/**
 * The factories of the transports the fleet's hosts use (without an inventory, the embedded
 * localhost's): each transport's entry point loads only when a host needs it, so
 * `fleetls tree localhost:/etc` starts without gRPC or ssh2.
 */
async function loadFactories(inventory: Inventory | undefined): Promise<TransportFactories> {
  const specs: HostSpec[] = inventory?.hosts ?? [{ name: LOCALHOST, embedded: {} }];
  const used = TRANSPORTS.filter((t) => specs.some((spec) => t.keys.every((key) => spec[key] !== undefined)));
  return Object.fromEntries(await Promise.all(used.map(async (t) => [t.via, await t.load()])));
}

function embeddedLocalhost(): FleetHost {
  return { name: LOCALHOST, via: 'embedded', address: 'embedded', labels: {}, groups: [], sshFallback: false };
}

function fleetHost(h: InventoryHost): FleetHost {
  const transport = transportOf(h);
  if (!transport) throw new FleetError('invalid_argument', `host ${h.name}: neither agent, ssh nor embedded`);
  const { via } = transport;
  const address = transport.address(h);
  return { name: h.name, via, address, labels: h.labels, groups: h.groups, sshFallback: transport.fallsBack(h) };
}

/** Loads the inventory that applies and builds the fleet over it. */
export async function loadFleet(opts: LoadFleetOptions): Promise<LoadedFleet> {
  const location = { inventoryPath: opts.inventoryPath, env: opts.env, cwd: opts.cwd };
  // The parsers (and yaml) load only when there is a file to read: localhost alone needs none.
  const loaded =
    resolveInventoryPath(location) === undefined
      ? undefined
      : (await import('../inventory/inventory-file.js')).loadInventory(location);
  const kubernetes = loaded?.kubernetes ? new KubernetesDiscovery(loaded.kubernetes, opts.resolver) : undefined;
  if (kubernetes) {
    await kubernetes.refresh();
    kubernetes.start(opts.kubernetesRefreshMs ?? KUBERNETES_REFRESH_MS, (err) =>
      opts.logger.warn(
        { err: FleetError.from(err).message },
        'kubernetes: re-listing the agents failed; keeping the last list',
      ),
    );
  }
  const inventory = loaded && kubernetes ? withKubernetesAgents(loaded, kubernetes.hosts()) : loaded;
  const factories = { ...(await loadFactories(inventory)), ...opts.factories };
  // --nats says how to reach the cluster; what the operator says of its hosts stays the inventory's.
  const nats =
    opts.nats && inventory?.nats
      ? { ...opts.nats, hosts: inventory.nats.hosts, maxHeartbeatMs: inventory.nats.maxHeartbeatMs }
      : (opts.nats ?? inventory?.nats);
  if (inventory?.hostsFrom === 'nats' && !nats) {
    throw new FleetError('invalid_argument', 'hosts_from: nats needs NATS servers (`nats: { servers }` or --nats)');
  }
  let dynamic: DynamicHosts | undefined;
  if (nats) {
    // The NATS client loads only for a fleet on NATS.
    const { openNatsFleet } = await import('./nats-fleet.js');
    dynamic = await openNatsFleet({
      settings: nats,
      logger: opts.logger,
      connectTimeoutMs: opts.connectTimeoutMs ?? inventory?.defaults.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      replicas: nats.replicas,
    });
  }
  const kubernetesHosts = kubernetes && loaded ? { file: loaded, discovery: kubernetes } : undefined;
  return createFleet(inventory, { ...opts, factories, dynamic, kubernetes: kubernetesHosts });
}

/** The inventory with the DaemonSet's agents added (a host the file names too keeps the file's settings). */
function withKubernetesAgents(inv: Inventory, found: InventoryHost[]): Inventory {
  const named = new Set(inv.hosts.map((h) => h.name));
  return { ...inv, hosts: [...inv.hosts, ...found.filter((h) => !named.has(h.name))] };
}

interface CreateFleetOptions {
  logger: Logger;
  connectTimeoutMs?: number;
  factories: TransportFactories;
  observer?: Observer;
  dynamic?: DynamicHosts;
  /** Without an inventory: the embedded localhost's roots (`--allow`); undefined = `/`. */
  localAllow?: string[];
  /** `kubernetes:` agents, re-listed: the hosts follow the file plus the latest listing. */
  kubernetes?: { file: Inventory; discovery: KubernetesDiscovery };
}

/** The fleet's own hosts (the inventory's, re-listed with Kubernetes), by name. */
interface FleetHosts {
  hosts: FleetHost[];
  byInventoryName: Map<string, InventoryHost>;
  named: Set<string>;
  listed?: InventoryHost[];
}

/** The fleet of an inventory (undefined = localhost only, embedded), over the given transports' factories. */
export function createFleet(inventory: Inventory | undefined, opts: CreateFleetOptions): LoadedFleet {
  const dynamic = opts.dynamic;
  const connectTimeoutMs = opts.connectTimeoutMs ?? inventory?.defaults.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // No implicit host: with an inventory, localhost is there only where it names it; a
  // registry alone (NATS) has it only under --allow roots; with neither, it is the one host.
  const hosts: FleetHost[] = inventory
    ? inventory.hosts.map(fleetHost)
    : dynamic && opts.localAllow === undefined
      ? []
      : [embeddedLocalhost()];
  const own: FleetHosts = {
    hosts,
    byInventoryName: new Map(inventory?.hosts.map((h) => [h.name, h])),
    named: new Set(hosts.map((h) => h.name)),
    listed: opts.kubernetes?.discovery.hosts(),
  };
  /** The inventory's hosts, then the registry's by name (read live: agents come and go). */
  const current = (): FleetHost[] => {
    relisted(own, opts.kubernetes);
    if (!dynamic) return own.hosts;
    const live = dynamic.hosts().filter((h) => !own.named.has(h.name));
    live.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...own.hosts, ...live];
  };
  /** The inventory's host of that name, else the registry's. */
  const lookup = (name: string): FleetHost | undefined => {
    relisted(own, opts.kubernetes);
    if (own.named.has(name)) return own.hosts.find((h) => h.name === name);
    return dynamic?.host(name);
  };
  const backends = new Map<string, HostBackend>();
  /** The address each backend was made for. */
  const addresses = new Map<string, string>();
  let closed = false;

  return {
    inventory,
    observer: opts.observer,
    pages: dynamic?.pages,
    peers: dynamic?.peers,
    hosts: current,
    host: lookup,
    select(selector) {
      const hosts = current();
      try {
        return selectHosts(selector, hosts);
      } catch (err) {
        // An empty fleet on NATS: say where hosts come from, not only that there are none.
        const why = hosts.length === 0 ? dynamic?.whyNone?.() : undefined;
        if (why && err instanceof FleetError) throw new FleetError(err.code, `${err.message}. ${why}`);
        throw err;
      }
    },
    backend(name) {
      if (closed) throw new FleetError('unavailable', 'the fleet is closed');
      relisted(own, opts.kubernetes);
      let b = backends.get(name);
      // A re-listed agent at a new address (its pod was replaced) gets a new backend.
      const address = opts.kubernetes && own.hosts.find((h) => h.name === name)?.address;
      if (b && address && addresses.get(name) !== address) {
        b.close();
        b = undefined;
      }
      if (!b) {
        const host = lookup(name);
        if (!host) throw new FleetError('invalid_argument', `unknown host '${name}'`);
        const made = makeBackend(host, own, inventory, opts, connectTimeoutMs);
        b = opts.observer ? observeBackend(made, opts.observer, host.name) : made;
        // A NATS host's backend holds nothing but its subjects (the connection is the
        // gateway's): made per use, not kept, so 100,000 registered hosts, and those long
        // gone from the registry, hold no memory between calls.
        if (host.via === 'agent+nats' && !own.named.has(name)) return b;
        backends.set(name, b);
        addresses.set(name, host.address);
      }
      return b;
    },
    async close() {
      closed = true;
      for (const b of backends.values()) {
        try {
          b.close();
        } catch (err) {
          opts.logger.warn({ err }, 'closing a host backend failed');
        }
      }
      backends.clear();
      opts.kubernetes?.discovery.close();
      await dynamic?.close();
    },
  };
}

/** After a new Kubernetes listing: the file's hosts plus the agents listed now. */
function relisted(own: FleetHosts, k: CreateFleetOptions['kubernetes']): void {
  if (!k || k.discovery.hosts() === own.listed) return;
  own.listed = k.discovery.hosts();
  const inv = withKubernetesAgents(k.file, own.listed);
  own.hosts = inv.hosts.map(fleetHost);
  own.byInventoryName = new Map(inv.hosts.map((h) => [h.name, h]));
  own.named = new Set(own.hosts.map((h) => h.name));
}

/** A host's backend by its transport (TRANSPORTS); one on NATS, by the NATS registry. */
function makeBackend(
  host: FleetHost,
  own: FleetHosts,
  inventory: Inventory | undefined,
  opts: CreateFleetOptions,
  connectTimeoutMs: number,
): HostBackend {
  if (host.via === 'agent+nats' && opts.dynamic) return opts.dynamic.backend(host.name);
  const listed = own.byInventoryName.get(host.name);
  // The inventory's localhost has its own roots; without an inventory, --allow's (or `/`).
  const spec: HostSpec =
    host.via === 'embedded'
      ? { name: host.name, embedded: { allow: listed?.embedded?.allow ?? opts.localAllow } }
      : listed!;
  const ctx: TransportContext = {
    agentTls: inventory?.agentTls,
    agentTokenFile: inventory?.agentTokenFile,
    connectTimeoutMs,
    logger: opts.logger.child({ host: host.name }),
    observer: opts.observer ?? NOOP_OBSERVER,
    backend: (via, of) => transportBackend(via, of, ctx, opts.factories),
  };
  return transportBackend(host.via, spec, ctx, opts.factories);
}

/** The backend `via`'s transport makes for a host, from its loaded factory. */
function transportBackend(via: Via, spec: HostSpec, ctx: TransportContext, factories: TransportFactories): HostBackend {
  const transport = TRANSPORTS.find((t) => t.via === via);
  const factory = factories[via];
  if (!transport || !factory) throw new FleetError('internal', `host ${spec.name}: the ${via} transport is not loaded`);
  return transport.create(factory(spec, ctx), spec, ctx);
}
