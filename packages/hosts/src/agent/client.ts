// The Agent contract's client, written once over a Carrier (agent/carrier.ts): a Walk's
// messages decoded into rows, the agent's features checked before its first row and against
// its summary; Stat; the probe of list_hosts. HTTP/2 (agent/http2/carrier.ts) and NATS
// (agent/nats/carrier.ts) carry the calls; wire types stop here.
import {
  FleetError,
  filterFeatures,
  type HostBackend,
  type OnEntriesSeen,
  type Row,
  type StatInfo,
  type Via,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import { decodeWalkResponse, statFromWire } from '@fleetls/proto';
import { type AgentMeta, type Carrier, callFailure } from './carrier.js';
import { refuseMissing } from './filters.js';
import { type AgentBackendOptions, http2Carrier } from './http2/carrier.js';

export type { AgentBackendOptions, AgentTlsFiles } from './http2/carrier.js';
export { AGENT_VERSION_METADATA, fleetErrorFromGrpc } from './http2/carrier.js';

/** The backend of one agent at `address` ("host:port" or "unix:PATH") over gRPC; the session connects on first use. */
export function createAgentBackend(address: string, opts: AgentBackendOptions): HostBackend {
  return agentBackend(http2Carrier(address, opts));
}

/** The Agent contract over `carrier`, as a host backend. */
export function agentBackend(carrier: Carrier): HostBackend {
  return new AgentBackend(carrier);
}

/** agentBackend's backend: its methods on the class (a NATS host's backend is made per call, per host). */
class AgentBackend implements HostBackend {
  readonly via: Via;

  constructor(private readonly carrier: Carrier) {
    this.via = carrier.via;
  }

  walk(req: WalkRequest, signal: AbortSignal, onEntriesSeen?: OnEntriesSeen): AsyncGenerator<Row[], WalkSummary, void> {
    return walkAgent(this.carrier, req, signal, onEntriesSeen);
  }

  async stat(path: string, followSymlinks: boolean, signal: AbortSignal): Promise<StatInfo> {
    const res = await this.carrier.stat(path, followSymlinks, signal);
    const { agentVersion: _v, ...info } = statFromWire(res);
    return info;
  }

  probe(signal: AbortSignal): ReturnType<HostBackend['probe']> {
    return probeAgent(this.carrier, signal);
  }

  close(): void {
    this.carrier.close();
  }
}

/** A Walk: rows as they come, the agent's features checked before the first row and from its summary. */
async function* walkAgent(
  carrier: Carrier,
  req: WalkRequest,
  signal: AbortSignal,
  onEntriesSeen?: OnEntriesSeen,
): AsyncGenerator<Row[], WalkSummary, void> {
  const requested = filterFeatures(req.filter);
  const meta: AgentMeta = {};
  let checked = requested.length === 0;
  let summary: WalkSummary | undefined;
  let rows = 0;
  const messages = carrier.walk(req, signal, (m) => Object.assign(meta, m));
  try {
    for await (const bytes of messages) {
      if (!checked) {
        refuseMissing(carrier.name, requested, meta.features ?? [], meta.version, 'not in its features');
        checked = true;
      }
      const msg = decodeWalkResponse(bytes);
      if (msg.summary) summary = msg.summary;
      // The agent's progress while it reads and has nothing to send yet.
      if (msg.entriesSeen !== undefined) onEntriesSeen?.(msg.entriesSeen);
      if (msg.rows.length > 0) {
        rows += msg.rows.length;
        yield msg.rows;
      }
    }
  } catch (err) {
    throw carrier.failure ? await carrier.failure(err, signal) : callFailure(err, signal);
  } finally {
    // The consumer stopped early (return()/throw()): the carrier cancels the call.
    await messages.return();
  }
  if (signal.aborted) throw callFailure(undefined, signal);
  if (!summary) throw new FleetError('internal', `agent ${carrier.name}: walk ended without a summary (${rows} rows)`);
  refuseMissing(carrier.name, requested, summary.applied ?? [], meta.version, 'not echoed in its summary');
  return summary;
}

/**
 * Reachability: the carrier's own check where it has one (gRPC health, exempt from the token),
 * then a Stat of '/', which proves the credentials and carries `agent_version`. An agent that
 * does not serve '/' still answers (not_found, permission_denied or invalid_argument): it is
 * reachable, and its version comes from its metadata when it sends one, else 'unknown'.
 */
async function probeAgent(
  carrier: Carrier,
  signal: AbortSignal,
): Promise<{ version: string; features: string[]; certNotAfter?: Date }> {
  await carrier.health?.(signal);
  const meta: AgentMeta = {};
  const certNotAfter = () => {
    const notAfter = carrier.peerNotAfter?.();
    return notAfter ? { certNotAfter: notAfter } : {};
  };
  const features = () => [...(meta.features ?? [])];
  try {
    const res = await carrier.stat('/', false, signal, (m) => Object.assign(meta, m));
    return { version: res.agentVersion || meta.version || 'unknown', features: features(), ...certNotAfter() };
  } catch (err) {
    const fe = FleetError.from(err);
    if (fe.code === 'not_found' || fe.code === 'permission_denied' || fe.code === 'invalid_argument') {
      return { version: meta.version || 'unknown', features: features(), ...certNotAfter() };
    }
    throw fe;
  }
}
