// Rows crossing from the walk worker to the main thread. Buffers become latin1 strings
// (every byte maps to one char and back, unchanged): strings clone cheaply, while a
// Buffer slice of Node's 8 KiB pool would drag its whole pool through postMessage.

import type { MessagePort } from 'node:worker_threads';
import type { Code, Entry, ResumeRow, Row, Truncation, WalkCounts, WalkRequest, WalkSummary } from '@fleetls/core';
import type { SkippedPath } from './hung-mounts.js';

export type PlainEntry = Omit<Entry, 'path' | 'linkTarget'> & { path: string; linkTarget?: string };
export type PlainTruncation = Omit<Truncation, 'dir'> & { dir: string };
export type PlainRow = { e: PlainEntry } | { t: PlainTruncation };
export type PlainSummary = Omit<WalkSummary, 'truncations'> & { truncations: PlainTruncation[] };

export interface WorkerInput {
  req: WalkRequest;
  allowedRoots: string[];
  /** Int32Array view: [CREDITS, CANCEL, SEEN]. */
  control: SharedArrayBuffer;
  /** rows: plain rows for in-process consumers; wire: protobuf-encoded WalkResponse bytes. */
  mode: 'rows' | 'wire';
  batchRows: number;
  batchBytes: number;
  flushMs: number;
  /** walk/call-probe.ts: the file system call in progress, for the main thread's watchdog. */
  probe: SharedArrayBuffer;
  /** Hung mounts to list as TIMEOUT without touching them. */
  skip: SkippedPath[];
  /**
   * The pseudo file systems mounted below the walk's root (point → type), from the table the
   * main thread read for this walk (find/route.ts decides with it too): the worker reads none.
   */
  pseudo: ReadonlyMap<string, string>;
  /** List with GNU find (find/find-source.ts), as find/route.ts decided; the JS walker if that fails. */
  find: boolean;
  /** A tree walk split with a helper thread (walk-split.ts): their port and control buffer. */
  split?: { port: MessagePort; shared: SharedArrayBuffer; timeoutMs: number };
  /**
   * A ranked walk that may share with a helper thread (walk/split/ranked-share.ts): it asks for
   * one (HelperAsk) once it has directories to hand out.
   */
  ranked?: true;
}

/** A ranked walk's worker asks the main thread for its helper: their control buffer and the helper's end of their port. */
export interface HelperAsk {
  t: 'ranked-helper';
  shared: SharedArrayBuffer;
  port: MessagePort;
}

/** Pieces of a split tree walk given to its helper, and spliced (the rest were walked by the walk itself). */
export interface SplitCounts {
  given: number;
  spliced: number;
}

/** Which source listed a walk. */
export type WalkRoute = 'find' | 'js';

/** The last row of a batch (path as latin1): where the walk resumes if its worker gets stuck after it. */
export interface LastRow {
  path: string;
  row: ResumeRow;
}

export const CREDITS = 0;
export const CANCEL = 1;
export const SEEN = 2;
export const CONTROL_SLOTS = 3;

/** A batch of rows: plain, or encoded as one WalkResponse. */
export type BatchMessage =
  | { t: 'rows'; rows: PlainRow[]; entries: number; last: LastRow }
  | { t: 'wire'; buf: ArrayBuffer; entries: number; last: LastRow };

export type WorkerMessage =
  | BatchMessage
  | {
      t: 'done';
      /** The walk's last batch, sent with its end: one message, not two (a small walk has one batch). */
      final?: BatchMessage;
      summary: PlainSummary;
      seen: number;
      counts: WalkCounts;
      route: WalkRoute;
      fallback?: string;
      split?: SplitCounts;
    }
  | { t: 'cancelled'; seen: number }
  | { t: 'error'; message: string; seen: number; code?: Code };

function truncationToPlain(t: Truncation): PlainTruncation {
  return { dir: t.dir.toString('latin1'), shown: t.shown, total: t.total, reason: t.reason };
}

function truncationFromPlain(t: PlainTruncation): Truncation {
  return { dir: Buffer.from(t.dir, 'latin1'), shown: t.shown, total: t.total, reason: t.reason };
}

export function rowToPlain(row: Row): PlainRow {
  if (row.kind === 'truncation') return { t: truncationToPlain(row.truncation) };
  const { path, linkTarget, ...rest } = row.entry;
  const e: PlainEntry = { ...rest, path: path.toString('latin1') };
  if (linkTarget) e.linkTarget = linkTarget.toString('latin1');
  return { e };
}

export function rowFromPlain(plain: PlainRow): Row {
  if ('t' in plain) return { kind: 'truncation', truncation: truncationFromPlain(plain.t) };
  const { path, linkTarget, ...rest } = plain.e;
  const entry: Entry = { ...rest, path: Buffer.from(path, 'latin1') };
  if (linkTarget !== undefined) entry.linkTarget = Buffer.from(linkTarget, 'latin1');
  return { kind: 'entry', entry };
}

export function summaryToPlain(summary: WalkSummary): PlainSummary {
  return { ...summary, truncations: summary.truncations.map(truncationToPlain) };
}

export function summaryFromPlain(plain: PlainSummary): WalkSummary {
  return { ...plain, truncations: plain.truncations.map(truncationFromPlain) };
}

/** A rough wire size of a row, to cut batches well under gRPC's message limit. */
export function plainRowBytes(plain: PlainRow): number {
  if ('t' in plain) return 24 + plain.t.dir.length;
  return (
    64 +
    plain.e.path.length +
    (plain.e.linkTarget?.length ?? 0) +
    (plain.e.error ? 16 + plain.e.error.detail.length : 0)
  );
}
