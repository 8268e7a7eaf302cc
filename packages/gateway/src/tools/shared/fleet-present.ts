// What every tool's Fleet face (its `fleet` presenter, in tools/<tool>.ts) shares: host
// statuses, cuts, notes and a scan's progress as Fleet API messages (protobuf-es init shapes,
// as fleet-entries.ts says why). In tools/shared/, below the faces: the tools present with it.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HostStatus } from '@fleetls/core';
import type { HostNoteSchema, HostStatusSchema, HostTruncationSchema, ScanInfoSchema } from '@fleetls/proto/fleet_pb';
import { scanJson } from '../scan-answer.js';
import type { ScanInfo } from '../tool.js';
import { int64, truncationOut } from './fleet-entries.js';
import type { HostNote, HostTruncation } from './host-walks.js';

export function hostStatusToWire(status: HostStatus): MessageInitShape<typeof HostStatusSchema> {
  return {
    host: status.host,
    status: status.status,
    via: status.via,
    elapsedMs: int64(status.elapsedMs),
    message: status.message ?? '',
  };
}

export function hostTruncationToWire(cut: HostTruncation): MessageInitShape<typeof HostTruncationSchema> {
  return { host: cut.host, truncation: truncationOut(cut.truncation) };
}

/** A scan page's `scan` (complete: no next_cursor follows), as scan_status says it. */
export function scanToWire(scan: ScanInfo, complete: boolean): MessageInitShape<typeof ScanInfoSchema> {
  const j = scanJson(scan, complete);
  return {
    id: j.id,
    state: j.state,
    complete: j.complete,
    hostsDone: j.hosts_done,
    hostsTotal: j.hosts_total,
    hostsDelivered: j.hosts_delivered,
    failed: j.failed,
    failedCount: j.failed_count,
    entriesSeen: int64(j.entries_seen),
    elapsedMs: int64(j.elapsed_ms),
    estimateMs: j.estimate_ms !== undefined ? int64(j.estimate_ms) : undefined,
    rankingFinal: j.ranking_final,
  };
}

export function notesToWire(notes: HostNote[]): MessageInitShape<typeof HostNoteSchema>[] {
  return notes.map((n) => ({ host: n.host, note: n.note }));
}
