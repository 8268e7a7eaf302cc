// The pieces the load tests (test/src/fleet/load*.test.ts) and the bench's `load` section share: one
// agent Walk's outcome as a client sees it, and the check of one fan-out answer under load
// (each host whole or turned away by a status row that says why, the merged list right for
// the hosts that answered).
import type { WalkSummary } from '@fleetls/core';
import { type AgentClient, summaryFromWire, type WireWalkRequest, type WireWalkResponseOut } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';

export interface WalkOutcome {
  /** Entry rows received (before a refusal too). */
  entries: number;
  /** The summary, when the walk ended OK. */
  summary?: WalkSummary;
  code: grpc.status;
  details?: string;
  /** From the call to its end, ms. */
  ms: number;
}

/** One Walk to its end, never rejecting: what arrived and how it ended. */
export function agentWalk(client: AgentClient, req: WireWalkRequest, timeoutMs = 60_000): Promise<WalkOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let entries = 0;
    let summary: WalkSummary | undefined;
    const call = client.Walk(req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs });
    call.on('data', (m: WireWalkResponseOut) => {
      entries += m.rows.filter((r) => r.entry).length;
      if (m.summary) summary = summaryFromWire(m.summary);
    });
    const ms = () => performance.now() - started;
    call.on('error', (err: grpc.ServiceError) => resolve({ entries, code: err.code, details: err.details, ms: ms() }));
    call.on('end', () => resolve({ entries, code: grpc.status.OK, ms: ms(), ...(summary ? { summary } : {}) }));
  });
}

/**
 * An admitted walk lost nothing silently: as many entries arrived as its summary says it
 * sent, and either all `whole` of them or a truncation (deadline, max_entries) that explains
 * the rest. Returns the problem, or undefined.
 */
export function silentLoss(w: WalkOutcome, whole: number): string | undefined {
  if (!w.summary) return `walk ended ${w.code} without a summary`;
  const losses = w.summary.truncations.filter((t) => t.reason === 'deadline' || t.reason === 'max_entries');
  if (w.summary.entriesSent !== w.entries) {
    return `summary says ${w.summary.entriesSent} entries sent, ${w.entries} arrived`;
  }
  if (w.entries < whole && losses.length === 0) return `${w.entries} of ${whole} entries and no truncation says why`;
  if (w.entries > whole) return `${w.entries} entries, more than the ${whole} there are`;
  return undefined;
}

export interface RankedAnswer {
  hosts: { host: string; status: string; message?: string }[];
  items: { size: number }[];
  /** Set on a scan page: the call outlived its deadline and these hosts are still walking. */
  next_cursor?: string;
}

export interface AnswerCount {
  ok: number;
  refused: number;
  timedOut: number;
  /** Hosts whose walk broke at a deadline after some rows: those rows are in the merged list. */
  partial: number;
  /** Hosts still walking when the call answered as a scan page (its next_cursor continues). */
  pending: number;
}

/**
 * One list_files answer (order_by size, descending, top_n) over hosts that all hold the same
 * files (sizes `sizes`, any order): every host has its status row; a host that is not ok was
 * turned away by its full agent (error, "too many concurrent walks"), ran out of time (timeout,
 * at either deadline), or broke at a deadline after some rows (error, "partial answer", its rows
 * kept); the merged list is the top n of what the hosts sent. Throws saying what is wrong.
 */
export function checkRankedAnswer(out: RankedAnswer, hosts: string[], topN: number, sizes: number[]): AnswerCount {
  const fail = (what: string) => {
    throw new Error(`${what}: ${JSON.stringify(out).slice(0, 2000)}`);
  };
  const named = out.hosts.map((h) => h.host).sort();
  if (JSON.stringify(named) !== JSON.stringify([...hosts].sort())) fail('not one status row per host');
  const count: AnswerCount = { ok: 0, refused: 0, timedOut: 0, partial: 0, pending: 0 };
  const desc = [...sizes].sort((a, b) => b - a);
  // What each host put in the merged list: all its files, or the first rows of its ranked walk.
  const contributed: number[] = [];
  for (const h of out.hosts) {
    const partial = /^partial answer: the walk broke after (\d+) rows, then .*Deadline exceeded/.exec(h.message ?? '');
    if (h.status === 'ok') {
      count.ok++;
      contributed.push(...sizes);
    } else if (h.status === 'error' && partial) {
      count.partial++;
      contributed.push(...desc.slice(0, Number(partial[1])));
    }
    // Either deadline: the host's share of the call, or the walk's own gRPC deadline (its
    // budget plus a grace), which a starved machine can reach first ("Deadline exceeded after 19.6s").
    else if (h.status === 'timeout' && /no answer within \d+ ms|: Deadline exceeded/.test(h.message ?? '')) {
      count.timedOut++;
    } else if (h.status === 'error' && /too many concurrent walks/.test(h.message ?? '')) count.refused++;
    else if (h.status === 'pending') {
      // A scan page: the host's rows come on a later page, so the cursor must be there.
      if (!out.next_cursor) fail(`host ${h.host}: pending without a next_cursor`);
      count.pending++;
    } else fail(`host ${h.host}: ${h.status} ${h.message ?? ''}`);
  }
  const expected = contributed.sort((a, b) => b - a).slice(0, topN);
  if (JSON.stringify(out.items.map((i) => i.size)) !== JSON.stringify(expected)) fail('merged top n wrong');
  return count;
}
