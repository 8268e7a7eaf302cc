// The gateway's fleet: the inventory's hosts (or the embedded localhost when there is
// none), the selector over them, and one lazily created, reused backend per host.
import { createLocalBackend } from '@fleetls/agent/embedded';
import { FleetError, type HostBackend, NOOP_OBSERVER, type Observer } from '@fleetls/core';
import type { SshHostConfig } from '@fleetls/hosts';
import { createFallbackBackend } from '@fleetls/hosts';
import type { Logger } from 'pino';
import { LOCALHOST } from '../inventory/hosts.js';
import { KUBERNETES_REFRESH_MS, KubernetesDiscovery, type Resolver } from '../inventory/kubernetes.js';
import type { GatewayNatsSettings } from '../inventory/nats.js';
import { resolveInventoryPath } from '../inventory/path.js';
import type { Inventory, InventoryHost } from '../inventory/types.js';
import { observeBackend } from '../metrics/observe-backend.js';
import type { PageStore } from './page-store.js';
import { selectHosts } from './selector.js';
import type { Fleet, FleetHost } from './types.js';

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
  /** Backend factories; tests replace them with doubles. */
  factories?: Partial<BackendFactories>;
  /** Where walks, host outcomes and SSH connections are reported (metrics). */
  observer?: Observer;
  /** NATS (--nats, --nats-creds…): the registry's hosts beside the inventory's, and a shared page store. */
  nats?: GatewayNatsSettings;
  /** DNS for an inventory's `kubernetes:` agents; tests replace it. */
  resolver?: Resolver;
  /** How often `kubernetes:` agents are re-listed (default KUBERNETES_REFRESH_MS). */
  kubernetesRefreshMs?: number;
}

export interface BackendFactories {
  /** The embedded localhost, under `allow` (default `/`). */
  local(allow?: string[]): HostBackend;
  agent(address: string, inv: Inventory, connectTimeoutMs: number, logger: Logger): HostBackend;
  ssh(cfg: SshHostConfig, connectTimeoutMs: number, logger: Logger, observer: Observer): HostBackend;
  /** `agent: "ssh:PATH"`: the agent through the host's SSH, and `find` over the same connection. */
  agentOverSsh(
    socketPath: string,
    cfg: SshHostConfig,
    inv: Inventory,
    connectTimeoutMs: number,
    logger: Logger,
    observer: Observer,
  ): { agent: HostBackend; find: HostBackend };
}

/** Hosts that come and go (the NATS registry), beside the inventory's; the inventory's win a name. */
export interface DynamicHosts {
  hosts(): FleetHost[];
  /** One of hosts() by name, without listing them all (a call over 5,000 hosts asks each). */
  host(name: string): FleetHost | undefined;
  backend(name: string): HostBackend;
  /** A page store every gateway of this fleet shares (JetStream), if any. */
  readonly pages?: PageStore;
  close(): Promise<void>;
}

export interface LoadedFleet extends Fleet {
  /** Kept rankings shared by the gateways of this fleet (NATS); undefined = each process keeps its own. */
  readonly pages?: PageStore;
  /** The inventory in use; undefined when localhost is served by the embedded agent alone. */
  readonly inventory?: Inventory;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 3000;

/**
 * The real backends. gRPC and ssh2 are loaded only when the inventory has hosts that need
 * them, so `fleetls tree localhost:/etc` starts without either.
 */
async function defaultFactories(inventory: Inventory | undefined): Promise<BackendFactories> {
  const needsAgent = inventory?.hosts.some((h) => h.agent) ?? false;
  const needsSsh = inventory?.hosts.some((h) => h.ssh) ?? false;
  const agentClient = needsAgent ? await import('@fleetls/hosts/agent') : undefined;
  const sshBackend = needsSsh ? await import('@fleetls/hosts/ssh') : undefined;
  const overSsh = inventory?.hosts.some((h) => h.agentSocket) ? await import('@fleetls/hosts/over-ssh') : undefined;
  return {
    local: (allow) => createLocalBackend({ allowedRoots: allow }),
    agent: (address, inv, connectTimeoutMs, logger) =>
      agentClient!.createAgentBackend(address, {
        tls: inv.agentTls ?? 'insecure',
        tokenFile: inv.agentTokenFile,
        connectTimeoutMs,
        logger,
      }),
    ssh: (cfg, connectTimeoutMs, logger, observer) =>
      sshBackend!.createSshBackend({ ...cfg, connectTimeoutMs }, { logger, connectTimeoutMs, observer }),
    agentOverSsh: (socketPath, cfg, inv, connectTimeoutMs, logger, observer) =>
      overSsh!.createAgentSshPair(cfg, socketPath, {
        tokenFile: inv.agentTokenFile,
        connectTimeoutMs,
        logger,
        observer,
      }),
  };
}

function embeddedLocalhost(): FleetHost {
  return { name: LOCALHOST, via: 'embedded', address: 'embedded', labels: {}, groups: [], sshFallback: false };
}

function sshAddress(ssh: SshHostConfig): string {
  return `${ssh.user ? `${ssh.user}@` : ''}${ssh.host}${ssh.port ? `:${ssh.port}` : ''}`;
}

function fleetHost(h: InventoryHost): FleetHost {
  if (h.agentSocket && h.ssh) {
    const address = `${sshAddress(h.ssh)}:${h.agentSocket}`;
    return { name: h.name, via: 'agent+ssh', address, labels: h.labels, groups: h.groups, sshFallback: true };
  }
  if (h.agent) {
    return { name: h.name, via: 'agent', address: h.agent, labels: h.labels, groups: h.groups, sshFallback: !!h.ssh };
  }
  if (h.ssh) {
    return {
      name: h.name,
      via: 'ssh',
      address: sshAddress(h.ssh),
      labels: h.labels,
      groups: h.groups,
      sshFallback: false,
    };
  }
  if (h.embedded) return { ...embeddedLocalhost(), labels: h.labels, groups: h.groups };
  throw new FleetError('invalid_argument', `host ${h.name}: neither agent, ssh nor embedded`);
}

/** Loads the inventory that applies and builds the fleet over it. */
export async function loadFleet(opts: LoadFleetOptions): Promise<LoadedFleet> {
  const location = { inventoryPath: opts.inventoryPath, env: opts.env, cwd: opts.cwd };
  // The parsers (and yaml) load only when there is a file to read: localhost alone needs none.
  const loaded =
    resolveInventoryPath(location) === undefined
      ? undefined
      : (await import('../inventory/file.js')).loadInventory(location);
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
  const factories = { ...(await defaultFactories(inventory)), ...opts.factories };
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
  factories: BackendFactories;
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

/** The fleet of an inventory (undefined = localhost only, embedded), over the given backend factories. */
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
  const backends = new Map<string, HostBackend>();
  /** The address each backend was made for. */
  const addresses = new Map<string, string>();
  let closed = false;

  return {
    inventory,
    observer: opts.observer,
    pages: dynamic?.pages,
    hosts: current,
    select: (selector) => selectHosts(selector, current()),
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
        const host = own.hosts.find((h) => h.name === name) ?? (own.named.has(name) ? undefined : dynamic?.host(name));
        if (!host) throw new FleetError('invalid_argument', `unknown host '${name}'`);
        const made = makeBackend(host, own, inventory, opts, connectTimeoutMs);
        b = opts.observer ? observeBackend(made, opts.observer, host.name) : made;
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

/** A host's backend by its transport; an agent with SSH configured falls back to SSH. */
function makeBackend(
  host: FleetHost,
  own: FleetHosts,
  inventory: Inventory | undefined,
  opts: CreateFleetOptions,
  connectTimeoutMs: number,
): HostBackend {
  const { factories, dynamic } = opts;
  const observer = opts.observer ?? NOOP_OBSERVER;
  // The inventory's localhost has its own roots; without an inventory, --allow's (or `/`).
  if (host.via === 'embedded')
    return factories.local(own.byInventoryName.get(host.name)?.embedded?.allow ?? opts.localAllow);
  if (host.via === 'agent+nats' && dynamic) return dynamic.backend(host.name);
  const log = opts.logger.child({ host: host.name });
  const spec = own.byInventoryName.get(host.name)!;
  if (host.via === 'ssh') return factories.ssh(spec.ssh!, connectTimeoutMs, log, observer);
  if (host.via === 'agent+ssh') {
    const pair = factories.agentOverSsh(spec.agentSocket!, spec.ssh!, inventory!, connectTimeoutMs, log, observer);
    return createFallbackBackend(pair.agent, () => pair.find, log, Date.now, { primary: 'agent+ssh', note: true });
  }
  const agent = factories.agent(spec.agent!, inventory!, connectTimeoutMs, log);
  if (!spec.ssh) return agent;
  const ssh = spec.ssh;
  return createFallbackBackend(agent, () => factories.ssh(ssh, connectTimeoutMs, log, observer), log);
}
