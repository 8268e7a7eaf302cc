// The seam between the gateway's fan-out and the ways a host is reached: an agent over
// gRPC, the agent embedded in the gateway (localhost), or SSH. Tests use in-memory doubles.
import type { Row, StatInfo, Via, WalkRequest, WalkSummary } from './types.js';

export interface HostBackend {
  readonly via: Via;
  /**
   * Streams the walk's rows in batches and returns its summary. Aborting `signal` stops
   * the remote walk. A whole-host failure throws a FleetError (code → status row).
   */
  walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void>;
  stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo>;
  /**
   * Reachability check for list_hosts: the agent's (or remote tool's) version, and for an
   * agent the request features it says it applies (none named: none applied).
   */
  /** `certNotAfter`: when the agent's TLS certificate expires (mTLS agents only). */
  probe(signal: AbortSignal): Promise<{ version: string; features?: string[]; certNotAfter?: Date }>;
  close(): void;
}
