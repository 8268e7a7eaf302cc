// The gateway's fleet: the inventory's hosts (or the embedded localhost when there is
// none), the selector over them, and one lazily created, reused backend per host.
import { createLocalBackend } from '@fleetls/agent/embedded';
import {
  FleetError,
  type HostBackend,
  isVia,
  NOOP_OBSERVER,
  type Observer,
  type Row,
  type StatInfo,
  type Via,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import type { Logger } from 'pino';
import type { Fleet, FleetHost } from './fleet-types.js';
import { type Inventory, type InventoryHost, LOCALHOST } from './inventory.js';
import { loadInventory } from './inventory-file.js';
import { KUBERNETES_REFRESH_MS, KubernetesDiscovery, type Resolver } from './inventory-kubernetes.js';
import type { GatewayNatsSettings } from './inventory-nats.js';
import { observeBackend } from './metrics/observe-backend.js';
import { selectHosts } from './selector.js';
import type { SshHostConfig } from './ssh/types.js';
import type { PageStore } from './tools/page-store.js';

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
  const agentClient = needsAgent ? await import('./agent-client.js') : undefined;
  const sshBackend = needsSsh ? await import('./ssh/ssh-backend.js') : undefined;
  const overSsh = inventory?.hosts.some((h) => h.agentSocket) ? await import('./agent-over-ssh.js') : undefined;
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
  const loaded = loadInventory({ inventoryPath: opts.inventoryPath, env: opts.env, cwd: opts.cwd });
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
  const nats = opts.nats ?? inventory?.nats;
  if (inventory?.hostsFrom === 'nats' && !nats) {
    throw new FleetError('invalid_argument', 'hosts_from: nats needs NATS servers (`nats: { servers }` or --nats)');
  }
  let dynamic: DynamicHosts | undefined;
  if (nats) {
    // The NATS client loads only for a fleet on NATS.
    const { openNatsFleet } = await import('./nats/nats-fleet.js');
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

/** The fleet of an inventory (undefined = localhost only, embedded), over the given backend factories. */
export function createFleet(
  inventory: Inventory | undefined,
  opts: {
    logger: Logger;
    connectTimeoutMs?: number;
    factories: BackendFactories;
    observer?: Observer;
    dynamic?: DynamicHosts;
    /** Without an inventory: the embedded localhost's roots (`--allow`); undefined = `/`. */
    localAllow?: string[];
    /** `kubernetes:` agents, re-listed: the hosts follow the file plus the latest listing. */
    kubernetes?: { file: Inventory; discovery: KubernetesDiscovery };
  },
): LoadedFleet {
  const factories = opts.factories;
  const dynamic = opts.dynamic;
  const observer = opts.observer ?? NOOP_OBSERVER;
  const connectTimeoutMs = opts.connectTimeoutMs ?? inventory?.defaults.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // No implicit host: with an inventory, localhost is there only where it names it; a
  // registry alone (NATS) has it only under --allow roots; with neither, it is the one host.
  let hosts: FleetHost[] = inventory
    ? inventory.hosts.map(fleetHost)
    : dynamic && opts.localAllow === undefined
      ? []
      : [embeddedLocalhost()];
  let byInventoryName = new Map(inventory?.hosts.map((h) => [h.name, h]));
  let named = new Set(hosts.map((h) => h.name));
  let listed = opts.kubernetes?.discovery.hosts();
  /** After a new Kubernetes listing: the file's hosts plus the agents listed now. */
  const relisted = () => {
    const k = opts.kubernetes;
    if (!k || k.discovery.hosts() === listed) return;
    listed = k.discovery.hosts();
    const inv = withKubernetesAgents(k.file, listed);
    hosts = inv.hosts.map(fleetHost);
    byInventoryName = new Map(inv.hosts.map((h) => [h.name, h]));
    named = new Set(hosts.map((h) => h.name));
  };
  /** The inventory's hosts, then the registry's by name (read live: agents come and go). */
  const current = (): FleetHost[] => {
    relisted();
    if (!dynamic) return hosts;
    const live = dynamic.hosts().filter((h) => !named.has(h.name));
    live.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...hosts, ...live];
  };
  const backends = new Map<string, HostBackend>();
  /** The address each backend was made for. */
  const addresses = new Map<string, string>();
  let closed = false;

  const make = (host: FleetHost): HostBackend => {
    // The inventory's localhost has its own roots; without an inventory, --allow's (or `/`).
    if (host.via === 'embedded')
      return factories.local(byInventoryName.get(host.name)?.embedded?.allow ?? opts.localAllow);
    if (host.via === 'agent+nats' && dynamic) return dynamic.backend(host.name);
    const log = opts.logger.child({ host: host.name });
    const spec = byInventoryName.get(host.name)!;
    if (host.via === 'ssh') return factories.ssh(spec.ssh!, connectTimeoutMs, log, observer);
    if (host.via === 'agent+ssh') {
      const pair = factories.agentOverSsh(spec.agentSocket!, spec.ssh!, inventory!, connectTimeoutMs, log, observer);
      return createFallbackBackend(pair.agent, () => pair.find, log, Date.now, { primary: 'agent+ssh', note: true });
    }
    const agent = factories.agent(spec.agent!, inventory!, connectTimeoutMs, log);
    if (!spec.ssh) return agent;
    const ssh = spec.ssh;
    return createFallbackBackend(agent, () => factories.ssh(ssh, connectTimeoutMs, log, observer), log);
  };

  return {
    inventory,
    observer: opts.observer,
    pages: dynamic?.pages,
    hosts: current,
    select: (selector) => selectHosts(selector, current()),
    backend(name) {
      if (closed) throw new FleetError('unavailable', 'the fleet is closed');
      relisted();
      let b = backends.get(name);
      // A re-listed agent at a new address (its pod was replaced) gets a new backend.
      const address = opts.kubernetes && hosts.find((h) => h.name === name)?.address;
      if (b && address && addresses.get(name) !== address) {
        b.close();
        b = undefined;
      }
      if (!b) {
        const host = hosts.find((h) => h.name === name) ?? (named.has(name) ? undefined : dynamic?.host(name));
        if (!host) throw new FleetError('invalid_argument', `unknown host '${name}'`);
        b = opts.observer ? observeBackend(make(host), observer, host.name) : make(host);
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

/** Which transport answered (or failed last): set on results and errors of the fallback backend. */
export type WithVia = { via?: Via };

/**
 * The transport behind an outcome: the `via` that the fallback backend sets on the value
 * or error it hands back, else the backend's current `via`.
 */
export function viaOf(outcome: unknown, backend: HostBackend): Via {
  const v = (outcome as WithVia | undefined)?.via;
  return isVia(v) ? v : backend.via;
}

export interface FallbackOptions {
  /** The agent's transport: 'agent' (TCP, the default) or 'agent+ssh'. */
  primary?: Via;
  /** Say on each answer SSH gives in the agent's stead why the agent was not used. */
  note?: boolean;
}

/** How long SSH is used directly after the agent was unreachable, before trying the agent again. */
export const AGENT_RETRY_MS = 30_000;

/**
 * Agent first, SSH when the agent is unreachable (`unavailable`: refused, no route, no
 * connection within the connect timeout). Any other agent error (timeout mid-walk, auth,
 * not_found...) is the host's answer: SSH is not a retry for a reachable agent.
 *
 * `via` is a getter: after a call settles it names the transport that answered (or failed
 * last), and every summary, StatInfo, probe result and thrown error also carries `via`.
 */
export function createFallbackBackend(
  agent: HostBackend,
  makeSsh: () => HostBackend,
  logger: Logger,
  now: () => number = Date.now,
  opts: FallbackOptions = {},
): HostBackend {
  const primary = opts.primary ?? 'agent';
  let ssh: HostBackend | undefined;
  let agentDownUntil = 0;
  /** Why the agent was not used, while SSH stands in for it (a note on each answer). */
  let agentDown: FleetError | undefined;
  let current: Via = primary;
  const sshBackend = () => {
    ssh ??= makeSsh();
    return ssh;
  };
  const tag = <T extends object>(value: T, via: Via): T => {
    current = via;
    (value as WithVia).via = via;
    return value;
  };
  const agentUnreachable = (err: unknown): FleetError | undefined => {
    const fe = FleetError.from(err);
    return fe.code === 'unavailable' ? fe : undefined;
  };
  const markDown = (down: FleetError) => {
    agentDownUntil = now() + AGENT_RETRY_MS;
    agentDown = down;
    logger.info({ err: down.message }, 'agent unreachable; using SSH');
  };
  const both = (agentErr: FleetError, sshErr: unknown): FleetError => {
    const fe = FleetError.from(sshErr);
    return tag(new FleetError(fe.code, `${fe.message} (agent: ${agentErr.message})`, { cause: sshErr }), 'ssh');
  };
  /** An answer SSH gave in the agent's stead says why, when asked to. */
  const noted = <T extends { notes?: string[] }>(value: T): T => {
    if (opts.note && agentDown) {
      value.notes = [...(value.notes ?? []), `${primary} not used (${agentDown.message}); listed with find over SSH`];
    }
    return value;
  };

  async function viaSsh<T extends object>(run: (b: HostBackend) => Promise<T>, agentErr?: FleetError): Promise<T> {
    try {
      return tag(await run(sshBackend()), 'ssh');
    } catch (err) {
      throw agentErr ? both(agentErr, err) : tag(FleetError.from(err), 'ssh');
    }
  }

  async function call<T extends object>(run: (b: HostBackend) => Promise<T>, signal: AbortSignal): Promise<T> {
    if (now() < agentDownUntil) return viaSsh(run);
    try {
      const value = tag(await run(agent), primary);
      agentDown = undefined;
      return value;
    } catch (err) {
      const down = agentUnreachable(err);
      if (!down || signal.aborted) throw tag(FleetError.from(err), primary);
      markDown(down);
      return viaSsh(run, down);
    }
  }

  return {
    get via() {
      return current;
    },
    async *walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
      let agentErr: FleetError | undefined;
      if (now() >= agentDownUntil) {
        const gen = agent.walk(req, signal);
        let first: IteratorResult<Row[], WalkSummary>;
        try {
          first = await gen.next();
        } catch (err) {
          const down = agentUnreachable(err);
          if (!down || signal.aborted) throw tag(FleetError.from(err), primary);
          markDown(down);
          agentErr = down;
          first = undefined as never;
        }
        if (!agentErr) {
          // The agent answered: from here on its stream is the host's answer.
          current = primary;
          agentDown = undefined;
          try {
            if (first.done) return tag(first.value, primary);
            yield first.value;
            return tag(yield* gen, primary);
          } catch (err) {
            throw tag(FleetError.from(err), primary);
          } finally {
            // A consumer that stops early must stop the agent's walk too.
            await gen.return(undefined as never);
          }
        }
      }
      current = 'ssh';
      try {
        return noted(tag(yield* sshBackend().walk(req, signal), 'ssh'));
      } catch (err) {
        throw agentErr ? both(agentErr, err) : tag(FleetError.from(err), 'ssh');
      }
    },
    stat: async (path: string, follow: boolean, signal: AbortSignal): Promise<StatInfo> => {
      const info = await call((b) => b.stat(path, follow, signal), signal);
      return (info as WithVia).via === 'ssh' ? noted(info) : info;
    },
    probe: (signal: AbortSignal) => call((b) => b.probe(signal), signal),
    close() {
      agent.close();
      ssh?.close();
    },
  };
}
