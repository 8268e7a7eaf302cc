import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { PROTO_DIR, PROTO_FILES, packageDefinition } from '../contract.js';
import * as generated from '../gen/wire-numbers.js';
import { ENUM_VALUES } from './enum-values.js';

type Def = { format: string; type: EnumType };
type EnumType = { value?: { name: string; number: number }[] };

// The hand codec (fast-encoder, fast-decoder, request-decoder) takes its field numbers and tags
// from gen/wire-numbers.ts, not from the .proto: proto's build writes them from the .proto each
// time (`npm run generate`, through proto-loader), and this test holds them to protobufjs' own
// reading of it.
const root = new protobuf.Root().loadSync(
  PROTO_FILES.map((f) => join(PROTO_DIR, f)),
  { keepCase: false },
);
root.resolveAll();
const messages = (root.lookup('fleetls.v1') as protobuf.Namespace).nestedArray.filter(
  (n): n is protobuf.Type => n instanceof protobuf.Type,
);
const constName = (message: string) => message.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
const tables = generated as unknown as Record<string, Record<string, number>>;

/** A field's wire type as protobufjs writes it unpacked: its scalar's, 0 for an enum, 2 for a message. */
function wireType(field: protobuf.Field): number {
  const basic = (protobuf.types.basic as Record<string, number | undefined>)[field.type];
  if (basic !== undefined) return basic;
  return field.resolvedType instanceof protobuf.Enum ? 0 : 2;
}

// The fields the hand codec writes and reads, and the type it writes and reads each as. A field
// added to the .proto, removed or retyped fails here: the codec would otherwise leave it out
// silently (the encoder never writes it, the decoders skip it).
const KNOWN: Record<string, Record<string, string>> = {
  WalkResponse: { rows: 'Row', summary: 'Summary', entriesSeen: 'uint64' },
  Row: { entry: 'Entry', truncation: 'Truncation' },
  Entry: {
    path: 'bytes',
    type: 'EntryType',
    size: 'uint64',
    mtimeSec: 'int64',
    mtimeNsec: 'uint32',
    utcOffsetMin: 'sint32',
    mode: 'uint32',
    uid: 'uint32',
    gid: 'uint32',
    inode: 'uint64',
    nlink: 'uint64',
    depth: 'uint32',
    linkTarget: 'bytes',
    error: 'EntryError',
    sizePartial: 'bool',
    allocated: 'uint64',
    unreadableDirs: 'uint64',
    // The Fleet face's text of path (gateway tools/shared/fleet-entries.ts): agents never send it, the decoder skips it.
    pathText: 'string',
  },
  EntryError: { code: 'ErrorCode', detail: 'string' },
  // dirText: as Entry.pathText, the Fleet face's.
  Truncation: { dir: 'bytes', shown: 'uint64', total: 'uint64', reason: 'TruncationReason', dirText: 'string' },
  Summary: {
    entriesSent: 'uint64',
    entriesSeen: 'uint64',
    entriesMatched: 'uint64',
    truncations: 'Truncation',
    elapsedMs: 'uint64',
    depthLimitedDirs: 'uint64',
    applied: 'string',
  },
  WalkRequest: {
    path: 'string',
    maxDepth: 'uint32',
    maxItemsPerDir: 'uint32',
    capRoot: 'bool',
    maxEntries: 'uint32',
    order: 'Order',
    direction: 'Direction',
    shape: 'Shape',
    topN: 'uint32',
    offset: 'uint32',
    include: 'string',
    exclude: 'string',
    types: 'EntryType',
    excludeHidden: 'bool',
    followSymlinks: 'bool',
    oneFileSystem: 'bool',
    dirSizes: 'bool',
    deadlineMs: 'uint32',
    after: 'bytes',
    afterRow: 'ResumeRow',
    filter: 'Filter',
  },
  Filter: {
    minSize: 'SizeBound',
    maxSize: 'SizeBound',
    modifiedAfter: 'Instant',
    modifiedBefore: 'Instant',
    owner: 'IdMatch',
    group: 'IdMatch',
    perm: 'PermMatch',
    name: 'string',
  },
  SizeBound: { bytes: 'uint64' },
  Instant: { sec: 'int64', nsec: 'uint32' },
  IdMatch: { id: 'uint32', name: 'string' },
  PermMatch: { kind: 'PermKind', mode: 'uint32' },
  StatRequest: { path: 'string', followSymlinks: 'bool' },
  StatResponse: {
    entry: 'Entry',
    owner: 'string',
    group: 'string',
    atimeSec: 'int64',
    atimeNsec: 'uint32',
    ctimeSec: 'int64',
    ctimeNsec: 'uint32',
    agentVersion: 'string',
  },
};

describe('wire-numbers (gen/wire-numbers.ts)', () => {
  it('has every message of the agent contract, its fields numbered as protobufjs reads the .proto', () => {
    assert.ok(messages.length > 0);
    for (const type of messages) {
      const fields = type.fieldsArray;
      assert.deepEqual(tables[constName(type.name)], Object.fromEntries(fields.map((f) => [f.name, f.id])), type.name);
      assert.deepEqual(
        tables[`${constName(type.name)}_TAG`],
        Object.fromEntries(fields.map((f) => [f.name, (f.id << 3) | wireType(f)])),
        type.name,
      );
    }
    const names = messages.flatMap((t) => [constName(t.name), `${constName(t.name)}_TAG`]);
    assert.deepEqual(Object.keys(generated).sort(), [...names, 'ENUM_ROWS'].sort());
  });

  it('has every field the hand codec knows, with the type it knows it as, and no other', () => {
    const contract = Object.fromEntries(
      messages.map((t) => [t.name, Object.fromEntries(t.fieldsArray.map((f) => [f.name, f.type]))]),
    );
    assert.deepEqual(contract, KNOWN);
  });

  it('has every enum of the agent contract with its values as the .proto has them', () => {
    const defs = Object.entries(packageDefinition() as unknown as Record<string, Def>);
    const loaded = Object.fromEntries(
      defs
        .filter(([, d]) => d.format === 'Protocol Buffer 3 EnumDescriptorProto')
        .map(([name, d]) => [name, Object.fromEntries((d.type.value ?? []).map((v) => [v.name, v.number]))]),
    );
    assert.deepEqual(ENUM_VALUES, loaded);
  });
});
