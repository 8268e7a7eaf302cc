// The one conversion between the domain (@fleetls/core) and the wire, both directions:
// the agent's service uses one half, the gateway's agent client the other.
import type {
  Entry,
  EntryError,
  FilterFeature,
  FindFilter,
  IdSpec,
  ResumeRow,
  Row,
  StatInfo,
  Truncation,
  WalkRequest,
  WalkRequestInput,
  WalkSummary,
} from '@fleetls/core';
import { DIRECTION, ENTRY_TYPE, ERROR_CODE, ORDER, PERM_KIND, RESUME_ROW, SHAPE, TRUNCATION_REASON } from './enums.js';
import type { Entry as WireEntry, Entry__Output as WireEntryOut } from './gen/fleetls/v1/Entry.js';
import type { EntryError as WireEntryError } from './gen/fleetls/v1/EntryError.js';
import type { Filter as WireFilter, Filter__Output as WireFilterOut } from './gen/fleetls/v1/Filter.js';
import type { IdMatch as WireIdMatch, IdMatch__Output as WireIdMatchOut } from './gen/fleetls/v1/IdMatch.js';
import type { Row as WireRow, Row__Output as WireRowOut } from './gen/fleetls/v1/Row.js';
import type {
  StatResponse as WireStatResponse,
  StatResponse__Output as WireStatResponseOut,
} from './gen/fleetls/v1/StatResponse.js';
import type { Summary as WireSummary, Summary__Output as WireSummaryOut } from './gen/fleetls/v1/Summary.js';
import type {
  Truncation as WireTruncation,
  Truncation__Output as WireTruncationOut,
} from './gen/fleetls/v1/Truncation.js';
import type {
  WalkRequest as WireWalkRequest,
  WalkRequest__Output as WireWalkRequestOut,
} from './gen/fleetls/v1/WalkRequest.js';

/** Bytes fields arrive as Buffers (bytes: Buffer), or base64 from a JSON writer. */
export function toBuffer(bytes: Buffer | Uint8Array | string | undefined | null): Buffer {
  if (bytes === undefined || bytes === null) return Buffer.alloc(0);
  if (Buffer.isBuffer(bytes)) return bytes;
  if (typeof bytes === 'string') return Buffer.from(bytes, 'base64');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// ---- request ----

export function requestToWire(req: WalkRequest): WireWalkRequest {
  return {
    path: req.path,
    maxDepth: req.maxDepth,
    maxItemsPerDir: req.maxItemsPerDir,
    capRoot: req.capRoot,
    maxEntries: req.maxEntries,
    order: ORDER.toWire(req.order),
    direction: DIRECTION.toWire(req.direction),
    shape: SHAPE.toWire(req.shape),
    topN: req.topN,
    offset: req.offset,
    include: req.include,
    exclude: req.exclude,
    types: req.types.map(ENTRY_TYPE.toWire),
    excludeHidden: req.excludeHidden,
    followSymlinks: req.followSymlinks,
    oneFileSystem: req.oneFileSystem,
    dirSizes: req.dirSizes,
    deadlineMs: req.deadlineMs,
    ...(req.after !== undefined ? { after: req.after, afterRow: RESUME_ROW.toWire(req.afterRow ?? 'entry') } : {}),
    ...(req.filter !== undefined ? { filter: filterToWire(req.filter) } : {}),
  };
}

function idToWire(s: IdSpec): WireIdMatch {
  return 'id' in s ? { id: s.id } : { name: s.name };
}

function idFromWire(w: WireIdMatchOut | null): IdSpec | undefined {
  if (!w || w.by === undefined) return undefined;
  return w.by === 'id' ? { id: w.id ?? 0 } : { name: w.name ?? '' };
}

export function filterToWire(filter: FindFilter): WireFilter {
  const w: WireFilter = {};
  if (filter.minSize !== undefined) w.minSize = { bytes: filter.minSize };
  if (filter.maxSize !== undefined) w.maxSize = { bytes: filter.maxSize };
  if (filter.modifiedAfter !== undefined) w.modifiedAfter = { ...filter.modifiedAfter };
  if (filter.modifiedBefore !== undefined) w.modifiedBefore = { ...filter.modifiedBefore };
  if (filter.owner !== undefined) w.owner = idToWire(filter.owner);
  if (filter.group !== undefined) w.group = idToWire(filter.group);
  if (filter.perm !== undefined) w.perm = { kind: PERM_KIND.toWire(filter.perm.match), mode: filter.perm.mode };
  if (filter.name !== undefined) w.name = filter.name;
  return w;
}

/** A decoded wire filter → core's (checked by resolveWalkRequest); an unknown perm kind is refused there. */
export function filterFromWire(wire: WireFilterOut | null): FindFilter | undefined {
  if (!wire) return undefined;
  const f: FindFilter = {};
  if (wire.minSize) f.minSize = Number(wire.minSize.bytes);
  if (wire.maxSize) f.maxSize = Number(wire.maxSize.bytes);
  if (wire.modifiedAfter) f.modifiedAfter = { sec: Number(wire.modifiedAfter.sec), nsec: wire.modifiedAfter.nsec };
  if (wire.modifiedBefore) f.modifiedBefore = { sec: Number(wire.modifiedBefore.sec), nsec: wire.modifiedBefore.nsec };
  const owner = idFromWire(wire.owner);
  if (owner) f.owner = owner;
  const group = idFromWire(wire.group);
  if (group) f.group = group;
  if (wire.perm) {
    f.perm = { match: PERM_KIND.fromWire(wire.perm.kind) ?? (String(wire.perm.kind) as 'exact'), mode: wire.perm.mode };
  }
  if (wire.name !== '') f.name = wire.name;
  return f;
}

/**
 * A decoded wire request → the input of core's `resolveWalkRequest` (0 = the default): the
 * numbers, flags and globs as they came, the enums by name, the resume point and filter in core's form.
 */
export function wireToRequestInput(wire: WireWalkRequestOut): WalkRequestInput {
  return {
    ...wire,
    order: ORDER.fromWire(wire.order) ?? 'name',
    direction: DIRECTION.fromWire(wire.direction) ?? 'ascending',
    shape: SHAPE.fromWire(wire.shape) ?? 'tree',
    types: wire.types.map((t) => ENTRY_TYPE.fromWire(t) ?? 'unknown'),
    // Empty `after` with RESUME_ROW_ENTRY (the defaults) is no resume point; core reads it so.
    after: toBuffer(wire.after),
    // An unknown kind passes through as is, so that core refuses it with its bounds.
    afterRow: RESUME_ROW.fromWire(wire.afterRow) ?? (String(wire.afterRow) as ResumeRow),
    filter: filterFromWire(wire.filter),
  };
}

// ---- rows ----

function errorToWire(e: EntryError): WireEntryError {
  return { code: ERROR_CODE.toWire(e.code), detail: e.detail };
}

export function entryToWire(entry: Entry): WireEntry {
  const w: WireEntry = {
    path: entry.path,
    type: ENTRY_TYPE.toWire(entry.type),
    size: entry.size,
    mtimeSec: entry.mtimeSec,
    mtimeNsec: entry.mtimeNsec,
    utcOffsetMin: entry.utcOffsetMin,
    mode: entry.mode,
    uid: entry.uid,
    gid: entry.gid,
    inode: entry.inode,
    nlink: entry.nlink,
    depth: entry.depth,
  };
  if (entry.linkTarget) w.linkTarget = entry.linkTarget;
  if (entry.error) w.error = errorToWire(entry.error);
  if (entry.sizePartial) w.sizePartial = true;
  if (entry.allocated) w.allocated = entry.allocated;
  if (entry.unreadableDirs) w.unreadableDirs = entry.unreadableDirs;
  return w;
}

export function entryFromWire(wire: WireEntryOut): Entry {
  const e: Entry = {
    path: toBuffer(wire.path),
    type: ENTRY_TYPE.fromWire(wire.type) ?? 'unknown',
    size: Number(wire.size),
    mtimeSec: Number(wire.mtimeSec),
    mtimeNsec: wire.mtimeNsec,
    utcOffsetMin: wire.utcOffsetMin,
    mode: wire.mode,
    uid: wire.uid,
    gid: wire.gid,
    inode: Number(wire.inode),
    nlink: Number(wire.nlink),
    depth: wire.depth,
  };
  const lt = toBuffer(wire.linkTarget);
  if (lt.length > 0) e.linkTarget = lt;
  if (wire.error && wire.error.code !== 'ERROR_CODE_NONE') {
    e.error = { code: ERROR_CODE.fromWire(wire.error.code) ?? 'ERROR', detail: wire.error.detail };
  }
  if (wire.sizePartial) e.sizePartial = true;
  if (Number(wire.allocated) > 0) e.allocated = Number(wire.allocated);
  if (Number(wire.unreadableDirs) > 0) e.unreadableDirs = Number(wire.unreadableDirs);
  return e;
}

export function truncationToWire(truncation: Truncation): WireTruncation {
  return {
    dir: truncation.dir,
    shown: truncation.shown,
    total: truncation.total,
    reason: TRUNCATION_REASON.toWire(truncation.reason),
  };
}

export function truncationFromWire(wire: WireTruncationOut): Truncation {
  return {
    dir: toBuffer(wire.dir),
    shown: Number(wire.shown),
    total: Number(wire.total),
    reason: TRUNCATION_REASON.fromWire(wire.reason) ?? 'bytes',
  };
}

export function rowToWire(row: Row): WireRow {
  return row.kind === 'entry' ? { entry: entryToWire(row.entry) } : { truncation: truncationToWire(row.truncation) };
}

export function rowFromWire(wire: WireRowOut): Row {
  if (wire.entry) return { kind: 'entry', entry: entryFromWire(wire.entry) };
  if (wire.truncation) return { kind: 'truncation', truncation: truncationFromWire(wire.truncation) };
  throw new Error('wire row carries neither an entry nor a truncation');
}

export function summaryToWire(summary: WalkSummary): WireSummary {
  return {
    entriesSent: summary.entriesSent,
    entriesSeen: summary.entriesSeen,
    entriesMatched: summary.entriesMatched,
    truncations: summary.truncations.map(truncationToWire),
    elapsedMs: summary.elapsedMs,
    depthLimitedDirs: summary.depthLimitedDirs,
    applied: summary.applied ?? [],
  };
}

export function summaryFromWire(wire: WireSummaryOut): WalkSummary {
  return {
    entriesSent: Number(wire.entriesSent),
    entriesSeen: Number(wire.entriesSeen),
    entriesMatched: Number(wire.entriesMatched),
    truncations: wire.truncations.map(truncationFromWire),
    elapsedMs: Number(wire.elapsedMs),
    depthLimitedDirs: Number(wire.depthLimitedDirs),
    ...(wire.applied.length > 0 ? { applied: wire.applied as FilterFeature[] } : {}),
  };
}

// ---- stat ----

export function statToWire(info: StatInfo, version: string): WireStatResponse {
  return {
    entry: entryToWire(info.entry),
    owner: info.owner,
    group: info.group,
    atimeSec: info.atimeSec,
    atimeNsec: info.atimeNsec,
    ctimeSec: info.ctimeSec,
    ctimeNsec: info.ctimeNsec,
    agentVersion: version,
  };
}

export function statFromWire(wire: WireStatResponseOut): StatInfo & { agentVersion: string } {
  if (!wire.entry) throw new Error('stat response carries no entry');
  return {
    entry: entryFromWire(wire.entry),
    owner: wire.owner,
    group: wire.group,
    atimeSec: Number(wire.atimeSec),
    atimeNsec: wire.atimeNsec,
    ctimeSec: Number(wire.ctimeSec),
    ctimeNsec: wire.ctimeNsec,
    agentVersion: wire.agentVersion,
  };
}
