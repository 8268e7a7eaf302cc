// The field numbers of WalkResponse and the messages in it, for the hand-written encoder
// (the agent) and decoder (the gateway). They come from the constants generated from the
// .proto (gen/wire-numbers.ts: no .proto parsed in each walk worker), which must also agree
// on every field's type and hold no field these do not know, so that a change to the .proto
// fails at load instead of being skipped silently.
import { MESSAGE_FIELDS } from './wire-numbers.js';

/** The numbers of a message's fields, after checking the descriptor has exactly these fields with these types. */
function fieldNumbers<K extends string>(message: string, types: Record<K, string>): Record<K, number> {
  const fields = MESSAGE_FIELDS[message];
  if (!fields) throw new Error(`wire-fields: the contract has no message ${message}`);
  const out = {} as Record<K, number>;
  for (const [name, type] of Object.entries(types) as [K, string][]) {
    const f = fields[name];
    if (!f || f.type !== type)
      throw new Error(`wire-fields: ${message}.${name} is ${f?.type ?? 'missing'}, not ${type}`);
    out[name] = f.number;
  }
  for (const name of Object.keys(fields)) {
    if (!(name in types))
      throw new Error(`wire-fields: ${message}.${name} is not known to the fast encoder and decoder`);
  }
  return out;
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
