// What every tool's Fleet face (its `fleet` presenter, in tools/<tool>.ts) shares: host
// statuses, cuts, notes and a scan's progress as Fleet API messages.
import type { HostStatus } from '@fleetls/core';
import type { HostNote, HostTruncation } from '../tools/host-walks.js';
import { scanJson } from '../tools/scan-answer.js';
import type { ScanInfo } from '../tools/tool.js';
import { truncationOut } from './text-paths.js';

export function hostStatusToWire(s: HostStatus) {
  return { host: s.host, status: s.status, via: s.via, elapsedMs: s.elapsedMs, message: s.message ?? '' };
}

export function hostTruncationToWire(t: HostTruncation) {
  return { host: t.host, truncation: truncationOut(t.truncation) };
}

/** A scan page's `scan` (complete: no next_cursor follows), as scan_status says it. */
export function scanToWire(s: ScanInfo, complete: boolean) {
  const j = scanJson(s, complete);
  return {
    id: j.id,
    state: j.state,
    complete: j.complete,
    hostsDone: j.hosts_done,
    hostsTotal: j.hosts_total,
    hostsDelivered: j.hosts_delivered,
    failed: j.failed,
    failedCount: j.failed_count,
    entriesSeen: j.entries_seen,
    elapsedMs: j.elapsed_ms,
    ...(j.estimate_ms !== undefined ? { estimateMs: j.estimate_ms } : {}),
    ...(j.ranking_final !== undefined ? { rankingFinal: j.ranking_final } : {}),
  };
}

export function notesToWire(notes: HostNote[]) {
  return notes.map((n) => ({ host: n.host, note: n.note }));
}
