// The one conversion between the domain (@fleetls/core) and the wire (@fleetls/proto),
// both directions: the agent's service uses one half, the gateway's agent client the other.
import type {
  Entry,
  EntryError,
  EntryErrorCode,
  EntryType,
  OrderBy,
  Row,
  Shape,
  SortDirection,
  StatInfo,
  Truncation,
  TruncationReason,
  WalkRequest,
  WalkRequestInput,
  WalkSummary,
} from '@fleetls/core';
import type {
  WireEntry,
  WireEntryOut,
  WireEntryType,
  WireErrorCode,
  WireRow,
  WireRowOut,
  WireStatResponse,
  WireStatResponseOut,
  WireSummary,
  WireSummaryOut,
  WireTruncation,
  WireTruncationOut,
  WireTruncationReason,
  WireWalkRequest,
  WireWalkRequestOut,
} from '@fleetls/proto';

type WireEnum<T> = Extract<T, string>;

function invert<K extends string, V extends string>(m: Record<K, V>): Record<V, K> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k])) as Record<V, K>;
}

const TYPE_TO_WIRE: Record<EntryType, WireEnum<WireEntryType>> = {
  file: 'ENTRY_TYPE_FILE',
  dir: 'ENTRY_TYPE_DIR',
  symlink: 'ENTRY_TYPE_SYMLINK',
  fifo: 'ENTRY_TYPE_FIFO',
  socket: 'ENTRY_TYPE_SOCKET',
  char: 'ENTRY_TYPE_CHAR',
  block: 'ENTRY_TYPE_BLOCK',
  unknown: 'ENTRY_TYPE_UNKNOWN',
};
const TYPE_FROM_WIRE = invert(TYPE_TO_WIRE);

const ERROR_TO_WIRE: Record<EntryErrorCode, WireEnum<WireErrorCode>> = {
  NOT_FOUND: 'ERROR_CODE_NOT_FOUND',
  DENIED: 'ERROR_CODE_DENIED',
  ERROR: 'ERROR_CODE_ERROR',
};
const ERROR_FROM_WIRE = invert(ERROR_TO_WIRE);

// 'bytes' is the gateway's own cut (an answer's byte budget); the agent never sends it.
// It maps to UNSPECIFIED so that the mapping stays total in both directions.
const REASON_TO_WIRE: Record<TruncationReason, WireEnum<WireTruncationReason>> = {
  depth: 'TRUNCATION_REASON_DEPTH',
  items_per_dir: 'TRUNCATION_REASON_ITEMS_PER_DIR',
  max_entries: 'TRUNCATION_REASON_MAX_ENTRIES',
  deadline: 'TRUNCATION_REASON_DEADLINE',
  top_n: 'TRUNCATION_REASON_TOP_N',
  bytes: 'TRUNCATION_REASON_UNSPECIFIED',
};
const REASON_FROM_WIRE = invert(REASON_TO_WIRE);

const ORDER_TO_WIRE: Record<OrderBy, 'ORDER_NAME' | 'ORDER_SIZE' | 'ORDER_MODIFIED'> = {
  name: 'ORDER_NAME',
  size: 'ORDER_SIZE',
  modified: 'ORDER_MODIFIED',
};
const ORDER_FROM_WIRE = invert(ORDER_TO_WIRE);

const DIRECTION_TO_WIRE: Record<SortDirection, 'DIRECTION_ASCENDING' | 'DIRECTION_DESCENDING'> = {
  ascending: 'DIRECTION_ASCENDING',
  descending: 'DIRECTION_DESCENDING',
};
const DIRECTION_FROM_WIRE = invert(DIRECTION_TO_WIRE);

const SHAPE_TO_WIRE: Record<Shape, 'SHAPE_TREE' | 'SHAPE_RANKED'> = { tree: 'SHAPE_TREE', ranked: 'SHAPE_RANKED' };
const SHAPE_FROM_WIRE = invert(SHAPE_TO_WIRE);

/** Wire enums may arrive as names (enums: String) or, from a permissive writer, as numbers. */
const ENTRY_TYPE_NUMBERS: WireEnum<WireEntryType>[] = [
  'ENTRY_TYPE_UNKNOWN',
  'ENTRY_TYPE_FILE',
  'ENTRY_TYPE_DIR',
  'ENTRY_TYPE_SYMLINK',
  'ENTRY_TYPE_FIFO',
  'ENTRY_TYPE_SOCKET',
  'ENTRY_TYPE_CHAR',
  'ENTRY_TYPE_BLOCK',
];

export function entryTypeToWire(t: EntryType): WireEnum<WireEntryType> {
  return TYPE_TO_WIRE[t];
}

export function entryTypeFromWire(t: WireEntryType | string | number): EntryType {
  const name = typeof t === 'number' ? ENTRY_TYPE_NUMBERS[t] : t;
  return TYPE_FROM_WIRE[name as WireEnum<WireEntryType>] ?? 'unknown';
}

function toBuffer(b: Buffer | Uint8Array | string | undefined | null): Buffer {
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
    order: ORDER_TO_WIRE[req.order],
    direction: DIRECTION_TO_WIRE[req.direction],
    shape: SHAPE_TO_WIRE[req.shape],
    topN: req.topN,
    offset: req.offset,
    include: req.include,
    exclude: req.exclude,
    types: req.types.map((t) => TYPE_TO_WIRE[t]),
    excludeHidden: req.excludeHidden,
    followSymlinks: req.followSymlinks,
    oneFileSystem: req.oneFileSystem,
    dirSizes: req.dirSizes,
    deadlineMs: req.deadlineMs,
  };
}

/** A decoded wire request → the input of core's `resolveWalkRequest` (0 = the default). */
export function wireToRequestInput(w: WireWalkRequestOut): WalkRequestInput {
  return {
    path: w.path,
    maxDepth: w.maxDepth,
    maxItemsPerDir: w.maxItemsPerDir,
    capRoot: w.capRoot,
    maxEntries: w.maxEntries,
    order: ORDER_FROM_WIRE[w.order as keyof typeof ORDER_FROM_WIRE] ?? 'name',
    direction: DIRECTION_FROM_WIRE[w.direction as keyof typeof DIRECTION_FROM_WIRE] ?? 'ascending',
    shape: SHAPE_FROM_WIRE[w.shape as keyof typeof SHAPE_FROM_WIRE] ?? 'tree',
    topN: w.topN,
    offset: w.offset,
    include: w.include,
    exclude: w.exclude,
    types: w.types.map((t) => entryTypeFromWire(t)),
    excludeHidden: w.excludeHidden,
    followSymlinks: w.followSymlinks,
    oneFileSystem: w.oneFileSystem,
    dirSizes: w.dirSizes,
    deadlineMs: w.deadlineMs,
  };
}

// ---- rows ----

function errorToWire(e: EntryError): { code: WireEnum<WireErrorCode>; detail: string } {
  return { code: ERROR_TO_WIRE[e.code], detail: e.detail };
}

export function entryToWire(e: Entry): WireEntry {
  const w: WireEntry = {
    path: e.path,
    type: TYPE_TO_WIRE[e.type],
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
  return w;
}

export function entryFromWire(w: WireEntryOut): Entry {
  const e: Entry = {
    path: toBuffer(w.path),
    type: entryTypeFromWire(w.type),
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
    e.error = {
      code: ERROR_FROM_WIRE[w.error.code as keyof typeof ERROR_FROM_WIRE] ?? 'ERROR',
      detail: w.error.detail,
    };
  }
  if (w.sizePartial) e.sizePartial = true;
  return e;
}

export function truncationToWire(t: Truncation): WireTruncation {
  return { dir: t.dir, shown: t.shown, total: t.total, reason: REASON_TO_WIRE[t.reason] };
}

export function truncationFromWire(w: WireTruncationOut): Truncation {
  return {
    dir: toBuffer(w.dir),
    shown: Number(w.shown),
    total: Number(w.total),
    reason: REASON_FROM_WIRE[w.reason as keyof typeof REASON_FROM_WIRE] ?? 'bytes',
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
