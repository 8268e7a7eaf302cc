// The gateway's view of its fleet: which hosts exist, how a selector picks them, and the
// one reused backend per host. Tools and the CLI speak only this.
import type { HostBackend, Observer, Via } from '@fleetls/core';

export interface FleetHost {
  name: string;
  /** How the host is tried first. */
  via: Via;
  /** Agent address (host:port) or SSH target, for list_hosts. */
  address: string;
  labels: Record<string, string>;
  groups: string[];
  /** Also reachable over SSH when the agent is not. */
  sshFallback: boolean;
  /** Known unreachable without asking it (a NATS host whose heartbeats stopped): why. */
  unreachable?: string;
}

export interface Fleet {
  hosts(): FleetHost[];
  /** `localhost`, a name, a comma list, a glob, `@group`, `label:key=value`, `all`; throws invalid_argument. */
  select(selector: string): FleetHost[];
  /** The host's backend, created once and reused (one connection per host). */
  backend(host: string): HostBackend;
  close(): Promise<void>;
  /** Where the fleet's work is reported (metrics); absent = nowhere. */
  readonly observer?: Observer;
}
