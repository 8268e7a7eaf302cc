// One table per enum: the domain's name ↔ the wire's name. Numbers come from the constants
// generated from the .proto (gen/wire-numbers.ts), so nothing here restates it; a table
// naming a value the .proto lacks fails at module load.
import type {
  EntryErrorCode,
  EntryType,
  OrderBy,
  PermMatch,
  ResumeRow,
  Shape,
  SortDirection,
  TruncationReason,
} from '@fleetls/core';
import type { EntryType as WireEntryType } from './gen/fleetls/v1/EntryType.js';
import type { ErrorCode as WireErrorCode } from './gen/fleetls/v1/ErrorCode.js';
import type { PermKind as WirePermKind } from './gen/fleetls/v1/PermKind.js';
import type { ResumeRow as WireResumeRow } from './gen/fleetls/v1/ResumeRow.js';
import type { TruncationReason as WireTruncationReason } from './gen/fleetls/v1/TruncationReason.js';
import { ENUM_VALUES } from './wire/enum-values.js';

type Name<T> = Extract<T, string>;

export interface EnumCodec<D extends string, W extends string> {
  toWire(d: D): W;
  /** The wire number of a domain value (for the hand-written encoder). */
  number(d: D): number;
  /** A wire value as a name (enums: String) or, from a permissive writer, a number; undefined if unknown. */
  fromWire(w: string | number | null | undefined): D | undefined;
}

function enumCodec<D extends string, W extends string>(fullName: string, table: Record<D, W>): EnumCodec<D, W> {
  const numbers = ENUM_VALUES[fullName];
  if (!numbers) throw new Error(`contract: there is no enum ${fullName}`);
  const toNumber = new Map<D, number>();
  const fromName = new Map<string, D>();
  const fromNumber = new Map<number, D>();
  for (const [d, w] of Object.entries(table) as [D, W][]) {
    const n = numbers[w];
    if (n === undefined) throw new Error(`contract: ${fullName} has no value ${w}`);
    toNumber.set(d, n);
    fromName.set(w, d);
    fromNumber.set(n, d);
  }
  return {
    toWire: (d) => table[d],
    number: (d) => toNumber.get(d) as number,
    fromWire: (w) => (typeof w === 'number' ? fromNumber.get(w) : w == null ? undefined : fromName.get(w)),
  };
}

export const ENTRY_TYPE = enumCodec<EntryType, Name<WireEntryType>>('fleetls.v1.EntryType', {
  unknown: 'ENTRY_TYPE_UNKNOWN',
  file: 'ENTRY_TYPE_FILE',
  dir: 'ENTRY_TYPE_DIR',
  symlink: 'ENTRY_TYPE_SYMLINK',
  fifo: 'ENTRY_TYPE_FIFO',
  socket: 'ENTRY_TYPE_SOCKET',
  char: 'ENTRY_TYPE_CHAR',
  block: 'ENTRY_TYPE_BLOCK',
});

// ERROR_CODE_NONE is the absence of an error, which the domain spells as no `error` field.
export const ERROR_CODE = enumCodec<EntryErrorCode, Name<WireErrorCode>>('fleetls.v1.ErrorCode', {
  NOT_FOUND: 'ERROR_CODE_NOT_FOUND',
  DENIED: 'ERROR_CODE_DENIED',
  ERROR: 'ERROR_CODE_ERROR',
  TIMEOUT: 'ERROR_CODE_TIMEOUT',
  PRUNED: 'ERROR_CODE_PRUNED',
});

export const RESUME_ROW = enumCodec<ResumeRow, Name<WireResumeRow>>('fleetls.v1.ResumeRow', {
  entry: 'RESUME_ROW_ENTRY',
  error: 'RESUME_ROW_ERROR',
  warning: 'RESUME_ROW_WARNING',
});

// 'bytes' is the gateway's own cut (an answer's byte budget); the agent never sends it.
// It maps to UNSPECIFIED so that the mapping stays total in both directions.
export const TRUNCATION_REASON = enumCodec<TruncationReason, Name<WireTruncationReason>>(
  'fleetls.v1.TruncationReason',
  {
    bytes: 'TRUNCATION_REASON_UNSPECIFIED',
    depth: 'TRUNCATION_REASON_DEPTH',
    items_per_dir: 'TRUNCATION_REASON_ITEMS_PER_DIR',
    max_entries: 'TRUNCATION_REASON_MAX_ENTRIES',
    deadline: 'TRUNCATION_REASON_DEADLINE',
    top_n: 'TRUNCATION_REASON_TOP_N',
  },
);

export const ORDER = enumCodec<OrderBy, 'ORDER_NAME' | 'ORDER_SIZE' | 'ORDER_MODIFIED'>('fleetls.v1.Order', {
  name: 'ORDER_NAME',
  size: 'ORDER_SIZE',
  modified: 'ORDER_MODIFIED',
});

export const DIRECTION = enumCodec<SortDirection, 'DIRECTION_ASCENDING' | 'DIRECTION_DESCENDING'>(
  'fleetls.v1.Direction',
  { ascending: 'DIRECTION_ASCENDING', descending: 'DIRECTION_DESCENDING' },
);

export const SHAPE = enumCodec<Shape, 'SHAPE_TREE' | 'SHAPE_RANKED'>('fleetls.v1.Shape', {
  tree: 'SHAPE_TREE',
  ranked: 'SHAPE_RANKED',
});

export const PERM_KIND = enumCodec<PermMatch, Name<WirePermKind>>('fleetls.v1.PermKind', {
  exact: 'PERM_KIND_EXACT',
  all: 'PERM_KIND_ALL',
  any: 'PERM_KIND_ANY',
});
