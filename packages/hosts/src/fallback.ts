// A host's agent with SSH behind it: the agent first, SSH while the agent is unreachable.
import {
  FleetError,
  type HostBackend,
  isVia,
  type OnEntriesSeen,
  type Row,
  type Via,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import type { Logger } from 'pino';

/** Which transport answered (or failed last): set on results and errors of the fallback backend. */
export type WithVia = { via?: Via };

/**
 * The transport behind an outcome: the `via` that the fallback backend sets on the value
 * or error it hands back, else the current `via` of its backend (or of the host, where the
 * call failed before it had one).
 */
export function viaOf(outcome: unknown, backend: { via: Via }): Via {
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
  const f: Fallback = { agent, makeSsh, logger, now, opts, primary, agentDownUntil: 0, current: primary };
  return {
    get via() {
      return f.current;
    },
    walk: (req, signal, onEntriesSeen) => fallbackWalk(f, req, signal, onEntriesSeen),
    stat: async (path, follow, signal) => {
      const info = await call(f, (b) => b.stat(path, follow, signal), signal);
      return (info as WithVia).via === 'ssh' ? noted(f, info) : info;
    },
    probe: (signal) => call(f, (b) => b.probe(signal), signal),
    close() {
      agent.close();
      f.ssh?.close();
    },
  };
}

/** One fallback backend's parts and state. */
interface Fallback {
  agent: HostBackend;
  makeSsh: () => HostBackend;
  logger: Logger;
  now: () => number;
  opts: FallbackOptions;
  primary: Via;
  ssh?: HostBackend;
  agentDownUntil: number;
  /** Why the agent was not used, while SSH stands in for it (a note on each answer). */
  agentDown?: FleetError;
  current: Via;
}

function sshBackend(f: Fallback): HostBackend {
  f.ssh ??= f.makeSsh();
  return f.ssh;
}

function tag<T extends object>(f: Fallback, value: T, via: Via): T {
  f.current = via;
  (value as WithVia).via = via;
  return value;
}

function agentUnreachable(err: unknown): FleetError | undefined {
  const fe = FleetError.from(err);
  return fe.code === 'unavailable' ? fe : undefined;
}

function markDown(f: Fallback, down: FleetError): void {
  f.agentDownUntil = f.now() + AGENT_RETRY_MS;
  f.agentDown = down;
  f.logger.info({ err: down.message }, 'agent unreachable; using SSH');
}

function both(f: Fallback, agentErr: FleetError, sshErr: unknown): FleetError {
  const fe = FleetError.from(sshErr);
  return tag(f, new FleetError(fe.code, `${fe.message} (agent: ${agentErr.message})`, { cause: sshErr }), 'ssh');
}

/** An answer SSH gave in the agent's stead says why, when asked to. */
function noted<T extends { notes?: string[] }>(f: Fallback, value: T): T {
  if (f.opts.note && f.agentDown) {
    value.notes = [...(value.notes ?? []), `${f.primary} not used (${f.agentDown.message}); listed with find over SSH`];
  }
  return value;
}

async function viaSsh<T extends object>(
  f: Fallback,
  run: (b: HostBackend) => Promise<T>,
  agentErr?: FleetError,
): Promise<T> {
  try {
    return tag(f, await run(sshBackend(f)), 'ssh');
  } catch (err) {
    throw agentErr ? both(f, agentErr, err) : tag(f, FleetError.from(err), 'ssh');
  }
}

async function call<T extends object>(
  f: Fallback,
  run: (b: HostBackend) => Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  if (f.now() < f.agentDownUntil) return viaSsh(f, run);
  try {
    const value = tag(f, await run(f.agent), f.primary);
    f.agentDown = undefined;
    return value;
  } catch (err) {
    const down = agentUnreachable(err);
    if (!down || signal.aborted) throw tag(f, FleetError.from(err), f.primary);
    markDown(f, down);
    return viaSsh(f, run, down);
  }
}

async function* fallbackWalk(
  f: Fallback,
  req: WalkRequest,
  signal: AbortSignal,
  onEntriesSeen?: OnEntriesSeen,
): AsyncGenerator<Row[], WalkSummary, void> {
  const { primary } = f;
  let agentErr: FleetError | undefined;
  if (f.now() >= f.agentDownUntil) {
    const gen = f.agent.walk(req, signal, onEntriesSeen);
    let first: IteratorResult<Row[], WalkSummary>;
    try {
      first = await gen.next();
    } catch (err) {
      const down = agentUnreachable(err);
      if (!down || signal.aborted) throw tag(f, FleetError.from(err), primary);
      markDown(f, down);
      agentErr = down;
      first = undefined as never;
    }
    if (!agentErr) {
      // The agent answered: from here on its stream is the host's answer.
      f.current = primary;
      f.agentDown = undefined;
      try {
        if (first.done) return tag(f, first.value, primary);
        yield first.value;
        return tag(f, yield* gen, primary);
      } catch (err) {
        throw tag(f, FleetError.from(err), primary);
      } finally {
        // A consumer that stops early must stop the agent's walk too.
        await gen.return(undefined as never);
      }
    }
  }
  f.current = 'ssh';
  try {
    return noted(f, tag(f, yield* sshBackend(f).walk(req, signal, onEntriesSeen), 'ssh'));
  } catch (err) {
    throw agentErr ? both(f, agentErr, err) : tag(f, FleetError.from(err), 'ssh');
  }
}
