// What a parsed inventory holds (inventory.ts parses it): hosts, groups, how agents are reached.

import type { SshHostConfig } from '@fleetls/hosts';
import type { EmbeddedSettings } from './localhost.js';
import type { GatewayNatsSettings } from './nats.js';

export interface InventoryHost {
  name: string;
  /** "host:port" of the host's fleetls-agent. */
  agent?: string;
  /** `agent: "ssh:PATH"`: the agent's Unix socket on the host, reached through its SSH connection. */
  agentSocket?: string;
  ssh?: SshHostConfig;
  /** `localhost` only: this machine, through the agent embedded in the gateway, under these roots. */
  embedded?: EmbeddedSettings;
  labels: Record<string, string>;
  /** Groups naming this host, in the inventory's order. */
  groups: string[];
}

/** `serverName`: the name agents' certificates carry when it is not the dialled host (a pod IP). */
export type AgentTls = { ca: string; cert?: string; key?: string; serverName?: string } | 'insecure';

export interface InventoryDefaults {
  concurrency?: number;
  connectTimeoutMs?: number;
  deadlineMs?: number;
  maxAnswerBytes?: number;
  maxAnswerTokens?: number;
  callDeadlineMs?: number;
  scanHostDeadlineMs?: number;
  scanDeadlineMs?: number;
  scanConcurrency?: number;
  scanTtlMs?: number;
  scansPerPrincipal?: number;
  scansTotal?: number;
  scanMemoryRows?: number;
  hostStallMs?: number;
}

/** The agents of a Kubernetes DaemonSet, found through their headless Service (inventory/kubernetes.ts). */
export interface KubernetesAgents {
  /** The headless Service's DNS name, e.g. fleetls-agent.fleetls.svc.cluster.local. */
  service: string;
  port: number;
}

export interface Inventory {
  /** The file it was read from (absolute). */
  source: string;
  /** In the file's order. */
  hosts: InventoryHost[];
  groups: Record<string, string[]>;
  agentTls?: AgentTls;
  agentTokenFile?: string;
  defaults: InventoryDefaults;
  /** Agents of a DaemonSet, found through their headless Service at load (inventory/kubernetes.ts). */
  kubernetes?: KubernetesAgents;
  /** `hosts_from: nats`: the agents registered on NATS are hosts too, beside these. */
  hostsFrom?: 'nats';
  /** How the gateway reaches NATS (inventory/nats.ts). */
  nats?: GatewayNatsSettings;
  /** Browser origins besides the gateway's own that may call its HTTP port (beside --cors-origin). */
  corsOrigins?: string[];
  /** `grants:` the grants file (resolved) `serve` holds callers to when --grants is not given, and the CLI's `local`. */
  grantsFile?: string;
}
