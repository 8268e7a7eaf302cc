// What a transport is: the `via` its hosts show, the inventory keys that choose it, the
// address list_hosts shows, and how a host's backend is made. TRANSPORTS (index.ts) lists
// them, one entry each; the gateway's fleet (fleet/fleet.ts) reads the list and names none.
// A transport's entry point loads only when a host needs it (`load`), so a process loads
// gRPC or ssh2 only when its inventory names a host reached that way.
import type { HostBackend, Observer, Via } from '@fleetls/core';
import type { Logger } from 'pino';
import type { AgentBackendOptions } from './agent/client.js';
import type { SshHostConfig } from './ssh/types.js';

/** A host as the inventory describes it: its name, and the keys a transport is chosen by. */
export interface HostSpec {
  name: string;
  /** "host:port" of the host's fleetls-agent. */
  agent?: string;
  /** `agent: "ssh:PATH"`: the agent's Unix socket on the host, reached through its SSH connection. */
  agentSocket?: string;
  ssh?: SshHostConfig;
  /** `localhost` only: this machine, through the agent embedded in the gateway, under these roots. */
  embedded?: { allow?: string[] };
}

/** An inventory key of a host that chooses its transport. */
export type HostKey = Exclude<keyof HostSpec, 'name'>;

/** What every host's backend is made with: the fleet's agent settings, its timeout, logger and observer. */
export interface TransportContext {
  /** The inventory's agent_tls (undefined: insecure) and agent_token_file. */
  agentTls?: AgentBackendOptions['tls'];
  agentTokenFile?: string;
  connectTimeoutMs: number;
  /** The host's own logger. */
  logger: Logger;
  observer: Observer;
  /** Another transport's backend for the same host (an agent falls back to the host's SSH). */
  backend(via: Via, spec: HostSpec): HostBackend;
}

/** A loaded transport's constructor: what a host's backend is made of (tests replace it with a double). */
export type TransportFactory<Made> = (spec: HostSpec, ctx: TransportContext) => Made;

/**
 * One transport. Declared with method syntax so that transports making different things are
 * one list (as the gateway's TOOLS); `create` is only ever handed what the same entry's
 * factory made.
 */
export interface Transport<Made = HostBackend> {
  via: Via;
  /** The inventory keys a host sets to be reached this way, all of them (TRANSPORTS' first match wins). */
  keys: readonly HostKey[];
  /** How list_hosts shows where the host is reached. */
  address(spec: HostSpec): string;
  /** Whether a failed call goes on over the host's SSH (list_hosts' ssh_fallback). */
  fallsBack(spec: HostSpec): boolean;
  /** Imports the transport's entry point (and so its dependencies) and returns its factory. */
  load(): Promise<TransportFactory<Made>>;
  /** The host's backend from what the factory made: a fallback is composed here. */
  create(made: Made, spec: HostSpec, ctx: TransportContext): HostBackend;
}

/** Checks a transport's types where it is written; TRANSPORTS holds it as a Transport<unknown>. */
export function defineTransport<Made>(transport: Transport<Made>): Transport<Made> {
  return transport;
}

/** `user@host:port` of a host's SSH, as list_hosts shows it. */
export function sshAddress(ssh: SshHostConfig): string {
  return `${ssh.user ? `${ssh.user}@` : ''}${ssh.host}${ssh.port ? `:${ssh.port}` : ''}`;
}
