// A Walk call as the handlers see it, whichever carrier brings it (gRPC or NATS): the WalkCall
// seam, and the helpers of createAgentHandlers' walk: the batch stream, its deadline, its
// failure and its 'walk end' line.

import type { WalkObservation, WalkRequest } from '@fleetls/core';
import { FleetError } from '@fleetls/core';
import {
  encodeWalkProgress,
  encodeWalkResponse,
  toStatus,
  type WireWalkRequestOut,
} from '@fleetls/proto/agent-service';
import type { Logger } from 'pino';
import { watchSeen } from '../walk/progress.js';
import type { RunningWalk, WalkOutcome, WireBatch } from '../walk/walker.js';

/** Time kept back from the client's deadline so the summary (with its DEADLINE truncation) still arrives. */
const DEADLINE_MARGIN_MS = 100;

/** A StatusObject as grpc-js emits it: a gRPC code and the agent's message. */
export interface CallStatus {
  code: number;
  details: string;
}

/**
 * One Walk call as a transport carries it. Messages are encoded WalkResponses, written in
 * order; `write` returning false means the carrier's window is full: wait for `drained()`.
 */
export interface WalkCall {
  readonly request: WireWalkRequestOut;
  /** Who called, for the audit line (certificate subject, NATS user, or the peer). */
  readonly caller: string;
  readonly peer: string;
  readonly cancelled: boolean;
  /** The caller's deadline (ms since the epoch), if it sent one. */
  deadline(): number | undefined;
  /** Called once when the caller cancels or goes away; returns the unsubscribe. */
  onCancel(fn: () => void): () => void;
  /** The response metadata (version, features), before any message. */
  sendHeaders(version: string, features: readonly string[]): void;
  write(message: Buffer): boolean;
  /** Resolves true when more may be written, false when the call was cancelled meanwhile. */
  drained(): Promise<boolean>;
  end(): void;
  fail(status: CallStatus): void;
}

/** What a Walk call has sent so far: read by its audit and end log even when the call failed midway. */
export interface WalkProgress {
  sent: number;
  bytes: number;
  seen: number | undefined;
}

/**
 * The walk's batches onto the call, then its summary; a cancelled call or one that will not
 * drain cancels the walk. In between, once a second while the count rises, a message of the
 * entries read so far (WalkResponse.entries_seen): a ranked or du walk sends no row until it
 * is done, and its caller shows it under way. Never while the call's window is full.
 */
export async function streamBatches(
  call: WalkCall,
  run: RunningWalk<WireBatch>,
  progress: WalkProgress,
): Promise<void> {
  const it = run.batches;
  let full = false;
  const unwatch = watchSeen(run.seen, (n) => {
    if (!full && !call.cancelled) full = !call.write(encodeWalkProgress(n));
  });
  try {
    await streamAll(call, run, it, progress, (f) => {
      full = f;
    });
  } finally {
    unwatch();
  }
}

async function streamAll(
  call: WalkCall,
  run: RunningWalk<WireBatch>,
  it: RunningWalk<WireBatch>['batches'],
  progress: WalkProgress,
  setFull: (full: boolean) => void,
): Promise<void> {
  for (;;) {
    const r = await it.next();
    if (r.done) {
      progress.seen = r.value.entriesSeen;
      if (!call.cancelled) {
        call.write(encodeWalkResponse([], r.value));
        call.end();
      }
      return;
    }
    if (call.cancelled) {
      run.cancel();
      return;
    }
    progress.sent += r.value.entries;
    progress.bytes += r.value.bytes.length;
    if (!call.write(r.value.bytes)) {
      setFull(true);
      if (!(await call.drained())) {
        run.cancel();
        return;
      }
    }
    setFull(false);
  }
}

/** The 'walk end' line, once the walk settled (or 5 s passed): its end is also what the observer counts. */
export async function logWalkEnd(
  log: Logger,
  running: RunningWalk<WireBatch>,
  req: WalkRequest | undefined,
  progress: WalkProgress,
  outcome: WalkObservation['outcome'],
  started: number,
): Promise<WalkOutcome | undefined> {
  const end = await settleWithin(running.finished, 5000);
  log.info(
    {
      path: req?.path,
      entriesSeen: progress.seen ?? end?.seen,
      entriesSent: progress.sent,
      cancelled: outcome === 'cancelled',
      outcome,
      route: end?.route,
      fallback: end?.fallback,
      // A split walk's pieces, or a shared ranked walk's directories (handed out / the helper's).
      split: end?.split,
      elapsedMs: Date.now() - started,
    },
    'walk end',
  );
  return end;
}

function settleWithin<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(undefined);
      },
    );
  });
}

/** The walk's own deadline, shortened to the call's (less a margin for the summary) when that comes sooner. */
export function withinCallDeadline(req: WalkRequest, deadlineMs: number | undefined): WalkRequest {
  if (deadlineMs === undefined || !Number.isFinite(deadlineMs)) return req;
  const left = Math.max(1, deadlineMs - Date.now() - DEADLINE_MARGIN_MS);
  return left < req.deadlineMs ? { ...req, deadlineMs: left } : req;
}

/** A Walk call that threw: failed with its status unless cancelled; refused means it never entered admission. */
export function failWalk(call: WalkCall, err: unknown, log: Logger, refused: boolean): WalkObservation['outcome'] {
  const fe = FleetError.from(err);
  if (call.cancelled || fe.code === 'cancelled') return 'cancelled';
  if (refused) log.info({ code: fe.code, err: fe.message, path: call.request?.path }, 'walk refused');
  else log.warn({ code: fe.code, err: fe.message }, 'walk failed');
  call.fail(toStatus(fe));
  return fe.code;
}
