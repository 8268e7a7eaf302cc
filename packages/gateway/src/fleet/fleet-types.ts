// The gateway's view of its fleet: which hosts exist, how a selector picks them, and the
// one reused backend per host. Tools and the CLI speak only this.
import type { HostBackend, HostStatus, Observer, Via } from '@fleetls/core';

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
  /** One host by name, as hosts() would list it, without listing them all (100,000 on NATS). */
  host(name: string): FleetHost | undefined;
  /** `localhost`, a name, a comma list, a glob, `@group`, `label:key=value`, `all`; throws invalid_argument. */
  select(selector: string): FleetHost[];
  /** The host's backend, created once and reused (one connection per host). */
  backend(host: string): HostBackend;
  close(): Promise<void>;
  /** Where the fleet's work is reported (metrics); absent = nowhere. */
  readonly observer?: Observer;
  /** Other gateways serving the same fleet (NATS), which a big call's hosts are split among (fleet/peers/). */
  readonly peers?: FleetPeers;
}

/** One host's part of a fan-out (fan-out.ts runs it). */
export type FleetTask<T> = (backend: HostBackend, host: FleetHost, signal: AbortSignal, budgetMs: number) => Promise<T>;

/** Who a call is for, as a peer gateway holds a shard of it to its own grants. */
export interface PeerCaller {
  principal: string;
  /** The tool as grants name it. */
  tool: string;
}

/** The peer gateways a fan-out may split its hosts among (fleet/peers/split.ts). */
export interface FleetPeers {
  /**
   * The fan-out of `task` over `hosts`, split with the peers, or undefined when it is not
   * split (a task that cannot be, too few hosts, no caller): fan-out.ts then runs it alone.
   * `opts` are fan-out.ts's FanOutOptions.
   */
  split<T>(
    fleet: Fleet,
    hosts: FleetHost[],
    task: FleetTask<T>,
    opts: object,
  ): Promise<{ host: FleetHost; status: HostStatus; value?: T }[]> | undefined;
  /** The same peers for one call's caller. */
  withCaller(caller: PeerCaller): FleetPeers;
}
