// How the Agent contract's calls reach an agent: a Carrier moves a call's encoded messages and
// the agent's metadata (version, features), and says how a call failed as a FleetError. The
// contract's client (agent/client.ts) is written once over it; HTTP/2 (agent/http2/carrier.ts)
// and NATS (agent/nats/carrier.ts) are carriers, as connect-es writes one client over many
// transports.
import { FleetError, type Via, type WalkRequest } from '@fleetls/core';
import type { WireStatResponseOut } from '@fleetls/proto';

/** What an agent says of itself beside its answers: on HTTP/2 its metadata, on NATS its headers. */
export interface AgentMeta {
  version?: string;
  features?: readonly string[];
}

export interface Carrier {
  /** The host as messages name it (an address, or a NATS host's name). */
  readonly name: string;
  readonly via: Via;
  /**
   * A Walk's response messages (encoded WalkResponses) in order; `onMeta` hears the agent's
   * metadata before the first. Ends when the agent ended the call with success; throws the
   * call's failure (as a FleetError, or as `failure` maps it; the signal's reason when it
   * aborted). Returning early cancels the call.
   */
  walk(req: WalkRequest, signal: AbortSignal, onMeta: (meta: AgentMeta) => void): AsyncGenerator<Buffer, void, void>;
  /** A Stat; `onMeta` hears the agent's metadata, also when the Stat fails. */
  stat(
    path: string,
    followSymlinks: boolean,
    signal: AbortSignal,
    onMeta?: (meta: AgentMeta) => void,
  ): Promise<WireStatResponseOut>;
  /**
   * A walk's failure as the FleetError the client throws, where the carrier says more than
   * callFailure (HTTP/2: a gRPC status, a TLS fault diagnosed): the client maps it, so that a
   * carrier's walk can be its channel's own stream with no layer of its own around it.
   */
  failure?(err: unknown, signal: AbortSignal): Promise<FleetError>;
  /** The carrier's own reachability check before a probe's Stat (HTTP/2: gRPC health), if it has one. */
  health?(signal: AbortSignal): Promise<void>;
  /** The agent's certificate's notAfter, where the carrier has one. */
  peerNotAfter?(): Date | undefined;
  close(): void;
}

/**
 * A call's failure as the Carrier contract says it: the signal's reason when our own signal
 * ended the call (a FleetError as given, else `cancelled`), else the error as a FleetError.
 * Every carrier and the client map a failure with it, so an abort reads alike on each.
 */
export function callFailure(err: unknown, signal: AbortSignal): FleetError {
  if (signal.aborted) {
    return signal.reason instanceof FleetError
      ? signal.reason
      : new FleetError('cancelled', 'cancelled', { cause: signal.reason });
  }
  return FleetError.from(err);
}
