// Gateway-wide limits, set once at construction (CLI flags or createMcpServer's options).

import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_ANSWER_TOKENS } from '@fleetls/core';

export interface GatewayOptions {
  /** Hosts asked at once. */
  concurrency: number;
  /** Connecting to one host (agent channel or SSH handshake). */
  connectTimeoutMs: number;
  /** Budget of one host's part of a call. */
  deadlineMs: number;
  /**
   * Budget of a whole tool call, queueing for a fan-out slot and connecting included: each
   * host gets what is left of it (at most deadlineMs), and hosts whose turn comes after it
   * are reported as not asked. Under the MCP SDK client's 60 s request timeout, with room.
   */
  callDeadlineMs: number;
  /** One whole MCP answer at most (the serialized CallToolResult: text and structuredContent), in bytes; cut after a row. */
  maxAnswerBytes: number;
  /** Its text and its structuredContent, each, at most in tokens as core's estimateTokens counts them (high): a client gives its model one of them, under its token cap. */
  maxAnswerTokens: number;
  /** A scan (a call gone on past its deadline, tools/scan.ts): one host's share, its walk included. */
  scanHostDeadlineMs: number;
  /** A whole scan: hosts whose turn comes after it are not asked. */
  scanDeadlineMs: number;
  /** Hosts a scan asks at once (they are mostly waited on, so more than a call's). */
  scanConcurrency: number;
  /** A scan is dropped (its walks stopped) this long after its last page. */
  scanTtlMs: number;
  /** Scans running at once for one caller (HTTP token, stdio session). */
  scansPerPrincipal: number;
  /** Scans running at once in the gateway. */
  scansTotal: number;
  /**
   * Rows all scans keep in memory; the rest wait in files under the state directory (without
   * one, a host whose rows would pass it is an `error` row instead).
   */
  scanMemoryRows: number;
  /**
   * Once a host's rows began, the longest it may send none: past it the host is ended
   * (`timeout`, "no rows for N s"), so a host that keeps its stream alive and says nothing
   * holds no call or scan. Before its first row the walk's own deadline applies (a ranked
   * walk sends its rows only when done).
   */
  hostStallMs: number;
}

export const DEFAULT_GATEWAY_OPTIONS: Readonly<GatewayOptions> = Object.freeze({
  concurrency: 32,
  connectTimeoutMs: 3000,
  deadlineMs: 20000,
  callDeadlineMs: 40000,
  maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES,
  maxAnswerTokens: DEFAULT_MAX_ANSWER_TOKENS,
  scanHostDeadlineMs: 120_000,
  scanDeadlineMs: 30 * 60_000,
  scanConcurrency: 256,
  scanTtlMs: 15 * 60_000,
  scansPerPrincipal: 4,
  scansTotal: 32,
  scanMemoryRows: 200_000,
  hostStallMs: 30_000,
});

/** Defaults overlaid with the given values (undefined ones ignored). */
export function resolveGatewayOptions(partial?: Partial<GatewayOptions>): GatewayOptions {
  const out: GatewayOptions = { ...DEFAULT_GATEWAY_OPTIONS };
  for (const key of Object.keys(out) as (keyof GatewayOptions)[]) {
    const v = partial?.[key];
    if (v !== undefined) {
      if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${key} must be a positive number, got ${v}`);
      out[key] = v;
    }
  }
  return out;
}
