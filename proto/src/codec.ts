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
export function toBuffer(b: Buffer | Uint8Array | string | undefined | null): Buffer {
  if (b === undefined || b === null) return Buffer.alloc(0);
  if (Buffer.isBuffer(b)) return b;
  if (typeof b === 'string') return Buffer.from(b, 'base64');
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
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

export function filterToWire(f: FindFilter): WireFilter {
  const w: WireFilter = {};
  if (f.minSize !== undefined) w.minSize = { bytes: f.minSize };
  if (f.maxSize !== undefined) w.maxSize = { bytes: f.maxSize };
  if (f.modifiedAfter !== undefined) w.modifiedAfter = { ...f.modifiedAfter };
  if (f.modifiedBefore !== undefined) w.modifiedBefore = { ...f.modifiedBefore };
  if (f.owner !== undefined) w.owner = idToWire(f.owner);
  if (f.group !== undefined) w.group = idToWire(f.group);
  if (f.perm !== undefined) w.perm = { kind: PERM_KIND.toWire(f.perm.match), mode: f.perm.mode };
  if (f.name !== undefined) w.name = f.name;
  return w;
}

/** A decoded wire filter → core's (checked by resolveWalkRequest); an unknown perm kind is refused there. */
export function filterFromWire(w: WireFilterOut | null): FindFilter | undefined {
  if (!w) return undefined;
  const f: FindFilter = {};
  if (w.minSize) f.minSize = Number(w.minSize.bytes);
  if (w.maxSize) f.maxSize = Number(w.maxSize.bytes);
  if (w.modifiedAfter) f.modifiedAfter = { sec: Number(w.modifiedAfter.sec), nsec: w.modifiedAfter.nsec };
  if (w.modifiedBefore) f.modifiedBefore = { sec: Number(w.modifiedBefore.sec), nsec: w.modifiedBefore.nsec };
  const owner = idFromWire(w.owner);
  if (owner) f.owner = owner;
  const group = idFromWire(w.group);
  if (group) f.group = group;
  if (w.perm) {
    f.perm = { match: PERM_KIND.fromWire(w.perm.kind) ?? (String(w.perm.kind) as 'exact'), mode: w.perm.mode };
  }
  if (w.name !== '') f.name = w.name;
  return f;
}

/** A decoded wire request → the input of core's `resolveWalkRequest` (0 = the default). */
export function wireToRequestInput(w: WireWalkRequestOut): WalkRequestInput {
  return {
    path: w.path,
    maxDepth: w.maxDepth,
    maxItemsPerDir: w.maxItemsPerDir,
    capRoot: w.capRoot,
    maxEntries: w.maxEntries,
    order: ORDER.fromWire(w.order) ?? 'name',
    direction: DIRECTION.fromWire(w.direction) ?? 'ascending',
    shape: SHAPE.fromWire(w.shape) ?? 'tree',
    topN: w.topN,
    offset: w.offset,
    include: w.include,
    exclude: w.exclude,
    types: w.types.map((t) => ENTRY_TYPE.fromWire(t) ?? 'unknown'),
    excludeHidden: w.excludeHidden,
    followSymlinks: w.followSymlinks,
    oneFileSystem: w.oneFileSystem,
    dirSizes: w.dirSizes,
    deadlineMs: w.deadlineMs,
    // Empty `after` with RESUME_ROW_ENTRY (the defaults) is no resume point; core reads it so.
    after: toBuffer(w.after),
    // An unknown kind passes through as is, so that core refuses it with its bounds.
    afterRow: RESUME_ROW.fromWire(w.afterRow) ?? (String(w.afterRow) as ResumeRow),
    filter: filterFromWire(w.filter),
  };
}

// ---- rows ----

function errorToWire(e: EntryError): WireEntryError {
  return { code: ERROR_CODE.toWire(e.code), detail: e.detail };
}

export function entryToWire(e: Entry): WireEntry {
  const w: WireEntry = {
    path: e.path,
    type: ENTRY_TYPE.toWire(e.type),
    size: e.size,
    mtimeSec: e.mtimeSec,
    mtimeNsec: e.mtimeNsec,
    utcOffsetMin: e.utcOffsetMin,
    mode: e.mode,
    uid: e.uid,
    gid: e.gid,
    inode: e.inode,
    nlink: e.nlink,
    depth: e.depth,
  };
  if (e.linkTarget) w.linkTarget = e.linkTarget;
  if (e.error) w.error = errorToWire(e.error);
  if (e.sizePartial) w.sizePartial = true;
  if (e.allocated) w.allocated = e.allocated;
  if (e.unreadableDirs) w.unreadableDirs = e.unreadableDirs;
  return w;
}

export function entryFromWire(w: WireEntryOut): Entry {
  const e: Entry = {
    path: toBuffer(w.path),
    type: ENTRY_TYPE.fromWire(w.type) ?? 'unknown',
    size: Number(w.size),
    mtimeSec: Number(w.mtimeSec),
    mtimeNsec: w.mtimeNsec,
    utcOffsetMin: w.utcOffsetMin,
    mode: w.mode,
    uid: w.uid,
    gid: w.gid,
    inode: Number(w.inode),
    nlink: Number(w.nlink),
    depth: w.depth,
  };
  const lt = toBuffer(w.linkTarget);
  if (lt.length > 0) e.linkTarget = lt;
  if (w.error && w.error.code !== 'ERROR_CODE_NONE') {
    e.error = { code: ERROR_CODE.fromWire(w.error.code) ?? 'ERROR', detail: w.error.detail };
  }
  if (w.sizePartial) e.sizePartial = true;
  if (Number(w.allocated) > 0) e.allocated = Number(w.allocated);
  if (Number(w.unreadableDirs) > 0) e.unreadableDirs = Number(w.unreadableDirs);
  return e;
}

export function truncationToWire(t: Truncation): WireTruncation {
  return { dir: t.dir, shown: t.shown, total: t.total, reason: TRUNCATION_REASON.toWire(t.reason) };
}

export function truncationFromWire(w: WireTruncationOut): Truncation {
  return {
    dir: toBuffer(w.dir),
    shown: Number(w.shown),
    total: Number(w.total),
    reason: TRUNCATION_REASON.fromWire(w.reason) ?? 'bytes',
  };
}

export function rowToWire(r: Row): WireRow {
  return r.kind === 'entry' ? { entry: entryToWire(r.entry) } : { truncation: truncationToWire(r.truncation) };
}

export function rowFromWire(w: WireRowOut): Row {
  if (w.entry) return { kind: 'entry', entry: entryFromWire(w.entry) };
  if (w.truncation) return { kind: 'truncation', truncation: truncationFromWire(w.truncation) };
  throw new Error('wire row carries neither an entry nor a truncation');
}

export function summaryToWire(s: WalkSummary): WireSummary {
  return {
    entriesSent: s.entriesSent,
    entriesSeen: s.entriesSeen,
    entriesMatched: s.entriesMatched,
    truncations: s.truncations.map(truncationToWire),
    elapsedMs: s.elapsedMs,
    depthLimitedDirs: s.depthLimitedDirs,
    applied: s.applied ?? [],
  };
}

export function summaryFromWire(w: WireSummaryOut): WalkSummary {
  return {
    entriesSent: Number(w.entriesSent),
    entriesSeen: Number(w.entriesSeen),
    entriesMatched: Number(w.entriesMatched),
    truncations: w.truncations.map(truncationFromWire),
    elapsedMs: Number(w.elapsedMs),
    depthLimitedDirs: Number(w.depthLimitedDirs),
    ...(w.applied.length > 0 ? { applied: w.applied as FilterFeature[] } : {}),
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

export function statFromWire(w: WireStatResponseOut): StatInfo & { agentVersion: string } {
  if (!w.entry) throw new Error('stat response carries no entry');
  return {
    entry: entryFromWire(w.entry),
    owner: w.owner,
    group: w.group,
    atimeSec: Number(w.atimeSec),
    atimeNsec: w.atimeNsec,
    ctimeSec: Number(w.ctimeSec),
    ctimeNsec: w.ctimeNsec,
    agentVersion: w.agentVersion,
  };
}
