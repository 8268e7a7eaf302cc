// The seam between the gateway's fan-out and the ways a host is reached: an agent over
// gRPC, the agent embedded in the gateway (localhost), or SSH. Tests use in-memory doubles.
import type { Row, StatInfo, Via, WalkRequest, WalkSummary } from './types.js';

/** Hears how far a walk is: the directory entries the host has read so far (rising). */
export type OnEntriesSeen = (entriesSeen: number) => void;

export interface HostBackend {
  readonly via: Via;
  /**
   * Streams the walk's rows in batches and returns its summary. Aborting `signal` stops
   * the remote walk. A whole-host failure throws a FleetError (code → status row).
   * `onEntriesSeen`, where the host can say it, hears the entries read while the walk goes
   * on (a ranked or du walk sends its rows only at its end): progress, never a result.
   */
  walk(req: WalkRequest, signal: AbortSignal, onEntriesSeen?: OnEntriesSeen): AsyncGenerator<Row[], WalkSummary, void>;
  stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo>;
  /**
   * Reachability check for list_hosts: the agent's (or remote tool's) version, and for an
   * agent the request features it says it applies (none named: none applied).
   */
  /** `certNotAfter`: when the agent's TLS certificate expires (mTLS agents only). */
  probe(signal: AbortSignal): Promise<{ version: string; features?: string[]; certNotAfter?: Date }>;
  close(): void;
}
