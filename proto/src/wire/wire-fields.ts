// The field numbers of the messages written and read by hand: WalkResponse and what is in it
// (the agent's encoder, the gateway's decoder, which matches fields by their tags: fieldTags),
// the agent's two requests and its Stat answer.
// They come from the constants generated from the .proto (gen/wire-numbers.ts: no .proto
// parsed in each walk worker), which must also agree on every field's type and hold no field
// these do not know, so that a change to the .proto fails at load instead of being skipped silently.
import { MESSAGE_FIELDS } from './wire-numbers.js';

/** The numbers of a message's fields, after checking the descriptor has exactly these fields with these types. */
function fieldNumbers<K extends string>(message: string, types: Record<K, string>): Record<K, number> {
  const fields = MESSAGE_FIELDS[message];
  if (!fields) throw new Error(`wire-fields: the contract has no message ${message}`);
  for (const [name, type] of Object.entries(types) as [K, string][]) {
    const f = fields[name];
    if (!f || f.type !== type)
      throw new Error(`wire-fields: ${message}.${name} is ${f?.type ?? 'missing'}, not ${type}`);
  }
  for (const name of Object.keys(fields)) {
    if (!(name in types))
      throw new Error(`wire-fields: ${message}.${name} is not known to the fast encoder and decoder`);
  }
  return table(Object.keys(types) as K[], (name) => fields[name].number);
}

/** The wire type that stands in a field's tag, by descriptor type (groups are not in the contract). */
function wireType(type: string): number {
  if (type === 'TYPE_MESSAGE' || type === 'TYPE_BYTES' || type === 'TYPE_STRING') return 2;
  if (type === 'TYPE_FIXED64' || type === 'TYPE_SFIXED64' || type === 'TYPE_DOUBLE') return 1;
  if (type === 'TYPE_FIXED32' || type === 'TYPE_SFIXED32' || type === 'TYPE_FLOAT') return 5;
  if (type === 'TYPE_GROUP') throw new Error('wire-fields: groups are not read');
  return 0;
}

/**
 * Each field's tag as it stands on the wire (number << 3 | wire type), of a message whose
 * numbers fieldNumbers gave: a decoder matches a field and its wire type in one comparison.
 */
export function fieldTags<K extends string>(message: string, numbers: Record<K, number>): Record<K, number> {
  const fields = MESSAGE_FIELDS[message];
  return table(Object.keys(numbers) as K[], (name) => (numbers[name] << 3) | wireType(fields[name].type));
}

/**
 * A name → number table made in one go: V8 may keep an object given many properties one by one
 * by computed name as a hash table, and WalkRequest's 21 numbers were one (%HasFastProperties),
 * looked up per field the agent decodes.
 */
function table<K extends string>(names: K[], value: (name: K) => number): Record<K, number> {
  return Object.fromEntries(names.map((name) => [name, value(name)])) as Record<K, number>;
}

export const RESPONSE = fieldNumbers('fleetls.v1.WalkResponse', {
  rows: 'TYPE_MESSAGE',
  summary: 'TYPE_MESSAGE',
  entriesSeen: 'TYPE_UINT64',
});
export const ROW = fieldNumbers('fleetls.v1.Row', { entry: 'TYPE_MESSAGE', truncation: 'TYPE_MESSAGE' });
export const ENTRY = fieldNumbers('fleetls.v1.Entry', {
  path: 'TYPE_BYTES',
  type: 'TYPE_ENUM',
  size: 'TYPE_UINT64',
  mtimeSec: 'TYPE_INT64',
  mtimeNsec: 'TYPE_UINT32',
  utcOffsetMin: 'TYPE_SINT32',
  mode: 'TYPE_UINT32',
  uid: 'TYPE_UINT32',
  gid: 'TYPE_UINT32',
  inode: 'TYPE_UINT64',
  nlink: 'TYPE_UINT64',
  depth: 'TYPE_UINT32',
  linkTarget: 'TYPE_BYTES',
  error: 'TYPE_MESSAGE',
  sizePartial: 'TYPE_BOOL',
  allocated: 'TYPE_UINT64',
  unreadableDirs: 'TYPE_UINT64',
  // The Fleet face's text of path (gateway tools/shared/fleet-entries.ts): agents never send it, the decoder skips it.
  pathText: 'TYPE_STRING',
});
export const ENTRY_ERROR = fieldNumbers('fleetls.v1.EntryError', { code: 'TYPE_ENUM', detail: 'TYPE_STRING' });
export const TRUNCATION = fieldNumbers('fleetls.v1.Truncation', {
  dir: 'TYPE_BYTES',
  shown: 'TYPE_UINT64',
  total: 'TYPE_UINT64',
  reason: 'TYPE_ENUM',
  // As Entry.pathText: the Fleet face's, skipped by the decoder.
  dirText: 'TYPE_STRING',
});
export const SUMMARY = fieldNumbers('fleetls.v1.Summary', {
  entriesSent: 'TYPE_UINT64',
  entriesSeen: 'TYPE_UINT64',
  entriesMatched: 'TYPE_UINT64',
  truncations: 'TYPE_MESSAGE',
  elapsedMs: 'TYPE_UINT64',
  depthLimitedDirs: 'TYPE_UINT64',
  applied: 'TYPE_STRING',
});

// The requests the agent decodes (wire/request-decoder.ts) and the Stat answer it encodes.
export const WALK_REQUEST = fieldNumbers('fleetls.v1.WalkRequest', {
  path: 'TYPE_STRING',
  maxDepth: 'TYPE_UINT32',
  maxItemsPerDir: 'TYPE_UINT32',
  capRoot: 'TYPE_BOOL',
  maxEntries: 'TYPE_UINT32',
  order: 'TYPE_ENUM',
  direction: 'TYPE_ENUM',
  shape: 'TYPE_ENUM',
  topN: 'TYPE_UINT32',
  offset: 'TYPE_UINT32',
  include: 'TYPE_STRING',
  exclude: 'TYPE_STRING',
  types: 'TYPE_ENUM',
  excludeHidden: 'TYPE_BOOL',
  followSymlinks: 'TYPE_BOOL',
  oneFileSystem: 'TYPE_BOOL',
  dirSizes: 'TYPE_BOOL',
  deadlineMs: 'TYPE_UINT32',
  after: 'TYPE_BYTES',
  afterRow: 'TYPE_ENUM',
  filter: 'TYPE_MESSAGE',
});
export const FILTER = fieldNumbers('fleetls.v1.Filter', {
  minSize: 'TYPE_MESSAGE',
  maxSize: 'TYPE_MESSAGE',
  modifiedAfter: 'TYPE_MESSAGE',
  modifiedBefore: 'TYPE_MESSAGE',
  owner: 'TYPE_MESSAGE',
  group: 'TYPE_MESSAGE',
  perm: 'TYPE_MESSAGE',
  name: 'TYPE_STRING',
});
export const SIZE_BOUND = fieldNumbers('fleetls.v1.SizeBound', { bytes: 'TYPE_UINT64' });
export const INSTANT = fieldNumbers('fleetls.v1.Instant', { sec: 'TYPE_INT64', nsec: 'TYPE_UINT32' });
export const ID_MATCH = fieldNumbers('fleetls.v1.IdMatch', { id: 'TYPE_UINT32', name: 'TYPE_STRING' });
export const PERM_MATCH = fieldNumbers('fleetls.v1.PermMatch', { kind: 'TYPE_ENUM', mode: 'TYPE_UINT32' });
export const STAT_REQUEST = fieldNumbers('fleetls.v1.StatRequest', {
  path: 'TYPE_STRING',
  followSymlinks: 'TYPE_BOOL',
});
export const STAT_RESPONSE = fieldNumbers('fleetls.v1.StatResponse', {
  entry: 'TYPE_MESSAGE',
  owner: 'TYPE_STRING',
  group: 'TYPE_STRING',
  atimeSec: 'TYPE_INT64',
  atimeNsec: 'TYPE_UINT32',
  ctimeSec: 'TYPE_INT64',
  ctimeNsec: 'TYPE_UINT32',
  agentVersion: 'TYPE_STRING',
});
