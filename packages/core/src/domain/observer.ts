// The one seam through which a process reports its work to metrics (node_exporter style:
// fed at the points that today only log). Every method is synchronous and must not throw;
// a metrics implementation only bumps counters, so observing never slows a walk.
import type { Code } from '../errors/errors.js';
import type { EntryErrorCode, HostStatus, Row, TruncationReason, Via, WalkSummary } from './types.js';

/** One finished walk: a Walk RPC on the agent, one host's walk through its backend on the gateway. */
export interface WalkObservation {
  via: Via;
  /** 'ok', or the error code the walk ended with. */
  outcome: 'ok' | Code;
  seconds: number;
  counts: WalkCounts;
}

/** What a walk produced. Plain data: the agent's walk worker posts it to the main thread. */
export interface WalkCounts {
  entries: number;
  errors: Partial<Record<EntryErrorCode, number>>;
  truncations: Partial<Record<TruncationReason, number>>;
}

/** One finished call: an MCP tool call, or a gRPC method. */
export interface CallObservation {
  kind: 'tool' | 'rpc';
  /** The tool or the full method name: never caller-chosen text. */
  name: string;
  /** A tool: 'ok' or the error code. An RPC: the gRPC status name (OK, INVALID_ARGUMENT, …). */
  outcome: string;
  seconds: number;
}

export interface Observer {
  walkEnded(w: WalkObservation): void;
  /** One host's part of a fan-out ended, with its status row. */
  hostDone(s: HostStatus): void;
  callEnded(c: CallObservation): void;
  /** An SSH connection completed its handshake, or a call reused an open one. */
  sshConnection(event: 'opened' | 'reused'): void;
  /** A probe saw this agent's TLS certificate, valid until `notAfter`. */
  agentCertificate?(host: string, notAfter: Date): void;
}

export const NOOP_OBSERVER: Observer = {
  walkEnded() {},
  hostDone() {},
  callEnded() {},
  sshConnection() {},
};

/** What a walk produced, counted as its rows pass: entries, entry errors by code, truncations by reason. */
export class WalkTally implements WalkCounts {
  entries = 0;
  readonly errors: Partial<Record<EntryErrorCode, number>> = {};
  readonly truncations: Partial<Record<TruncationReason, number>> = {};

  row(r: Row): void {
    if (r.kind === 'truncation') {
      this.truncation(r.truncation.reason);
      return;
    }
    this.entries++;
    const code = r.entry.error?.code;
    if (code) this.errors[code] = (this.errors[code] ?? 0) + 1;
  }

  /** The summary's whole-walk truncations (per-directory ones arrived as rows). */
  summary(s: WalkSummary): void {
    for (const t of s.truncations) this.truncation(t.reason);
  }

  private truncation(reason: TruncationReason): void {
    this.truncations[reason] = (this.truncations[reason] ?? 0) + 1;
  }
}
