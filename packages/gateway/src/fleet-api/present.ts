// The gRPC face of each tool's domain result: the same rows, statuses, cuts and cursors the
// MCP face shows, as Fleet API messages (entries and cuts in the agent contract's types,
// paths as bytes). No byte budget here: a gRPC client gets the whole page.
import type { DiffValue, Entry, HostStatus } from '@fleetls/core';
import { statToWire } from '@fleetls/proto';
import type { DirectoryDiff } from '../tools/diff-directory.js';
import type { DiskUsage } from '../tools/disk-usage.js';
import type { HostNote, HostTruncation } from '../tools/host-walks.js';
import type { DirectoryListing } from '../tools/list-directories.js';
import type { TreeListing } from '../tools/list-directory.js';
import type { FileListing } from '../tools/list-files.js';
import type { HostListing } from '../tools/list-hosts.js';
import { scanJson } from '../tools/scan-answer.js';
import type { ScanStatus } from '../tools/scan-status.js';
import type { StatListing } from '../tools/stat.js';
import type { ScanInfo } from '../tools/tool.js';
import { entryOut, rowOut, textOf, truncationOut } from './text-paths.js';

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

export function presentScanStatus(r: ScanStatus) {
  return { scan: scanToWire(r.info, r.delivered), cancelled: r.cancelled };
}

function notesToWire(notes: HostNote[]) {
  return notes.map((n) => ({ host: n.host, note: n.note }));
}

export function presentHosts(l: HostListing) {
  return {
    checked: l.checked,
    hosts: l.rows.map(({ host: h, probe }) => ({
      host: h.name,
      transport: h.via,
      address: h.address,
      labels: Object.entries(h.labels).map(([key, value]) => ({ key, value })),
      groups: [...h.groups],
      sshFallback: h.sshFallback,
      ...(probe
        ? {
            reachable: probe.status.status === 'ok',
            version: probe.version ?? '',
            features: probe.features ?? [],
            probe: hostStatusToWire(probe.status),
          }
        : {}),
    })),
  };
}

export function presentTree(l: TreeListing) {
  const rows = l.sections.flatMap((sec) => sec.rows.map((row) => ({ host: sec.status.host, row: rowOut(row) })));
  return {
    path: l.path,
    rows,
    truncations: l.sections.flatMap((sec) =>
      sec.losses.map((truncation) => hostTruncationToWire({ host: sec.status.host, truncation })),
    ),
    notes: notesToWire(l.notes),
    nextCursor: l.cursorAfter(rows.length) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

export function presentFiles(l: FileListing) {
  return {
    path: l.path,
    entries: l.rows.map((r) => ({ host: r.host, entry: entryOut(r.entry) })),
    startIndex: l.start,
    total: l.total,
    found: l.found,
    truncations: l.truncations.map(hostTruncationToWire),
    notes: notesToWire(l.notes),
    nextCursor: l.cursorAfter(l.rows.length) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

export function presentDirectories(l: DirectoryListing) {
  return {
    path: l.path,
    entries: l.rows.map((r) => ({ host: r.host, entry: entryOut(r.entry) })),
    recursiveSizes: l.sizes,
    found: l.found,
    truncations: l.truncations.map(hostTruncationToWire),
    notes: notesToWire(l.notes),
    hosts: l.hosts.map(hostStatusToWire),
    nextCursor: l.cursorAfter?.(l.rows.length) ?? '',
  };
}

export function presentStat(l: StatListing) {
  return {
    path: l.path,
    results: l.rows.map((r) =>
      r.stat
        ? {
            host: r.host,
            stat: { ...statToWire(r.stat, ''), entry: entryOut(r.stat.entry) },
            notes: r.stat.notes ?? [],
          }
        : { host: r.host, notes: [] },
    ),
    hosts: l.hosts.map(hostStatusToWire),
    nextCursor: l.cursorAfter?.(l.rows.length) ?? '',
  };
}

/** A diff value as an Entry of the agent contract: its compared attributes set, the rest zero. */
function diffEntry(v: DiffValue): Entry {
  const e: Entry = {
    path: Buffer.alloc(0),
    type: v.type ?? 'unknown',
    size: v.size ?? 0,
    mtimeSec: v.mtimeSec ?? 0,
    mtimeNsec: v.mtimeNsec ?? 0,
    utcOffsetMin: 0,
    mode: v.mode ?? 0,
    uid: v.uid ?? 0,
    gid: v.gid ?? 0,
    inode: 0,
    nlink: 0,
    depth: 0,
  };
  if (v.linkTarget !== undefined) e.linkTarget = v.linkTarget;
  if (v.error !== undefined) e.error = { code: v.error, detail: '' };
  return e;
}

export function presentDiff(l: DirectoryDiff) {
  return {
    path: l.path,
    compare: [...l.compare],
    groups: l.diff.groups.map((g) => ({ id: g.id, hosts: g.hosts })),
    differences: l.diff.differences.slice(l.start).map((d) => ({
      path: d.path,
      values: d.values.map(({ value, hosts }) =>
        value.present ? { hosts, present: true, entry: entryOut(diffEntry(value)) } : { hosts, present: false },
      ),
      notCompared: d.notCompared,
      ...textOf('pathText', d.path),
    })),
    startIndex: l.start,
    total: l.diff.differences.length,
    truncations: l.diff.capped.map(hostTruncationToWire),
    // Whole here (no byte budget): only a scan's page has one to follow.
    nextCursor: l.cursorAfter(l.diff.differences.length - l.start) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

/** A directory of disk_usage as a wire entry: its path, recursive size and whether that is a lower bound. */
function duEntry(
  host: string,
  path: Buffer,
  size: number,
  partial: boolean,
  why: { allocated?: number; unreadableDirs?: number } = {},
) {
  return {
    host,
    entry: entryOut({
      path,
      type: 'dir',
      size,
      mtimeSec: 0,
      mtimeNsec: 0,
      utcOffsetMin: 0,
      mode: 0,
      uid: 0,
      gid: 0,
      inode: 0,
      nlink: 0,
      depth: path.length === 0 ? 0 : path.toString('latin1').split('/').length,
      ...(partial ? { sizePartial: true } : {}),
      ...(why.allocated !== undefined ? { allocated: why.allocated } : {}),
      ...(why.unreadableDirs ? { unreadableDirs: why.unreadableDirs } : {}),
    }),
  };
}

export function presentDiskUsage(l: DiskUsage) {
  return {
    path: l.path,
    entries: l.rows.slice(l.start).map((r) => duEntry(r.host, r.path, r.size, r.partial, r)),
    pathTotals: l.totals.map((t) => duEntry(t.host, Buffer.alloc(0), t.size, t.partial, t)),
    startIndex: l.start,
    found: l.found,
    truncations: l.truncations.map(hostTruncationToWire),
    notes: notesToWire(l.notes),
    nextCursor: l.cursorAfter(l.rows.length - l.start) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}
