// The agent contract's field and enum numbers (the rows generated in gen/wire-numbers.ts),
// looked up by message and by enum, for wire/wire-fields.ts and enums.ts.
import { ENUM_ROWS, FIELD_ROWS } from '../gen/wire-numbers.js';

type Lookup<V> = Readonly<Record<string, Readonly<Record<string, V>>>>;

/** Every message's fields: name (camelCase) → number and descriptor type. */
export const MESSAGE_FIELDS: Lookup<{ readonly number: number; readonly type: string }> = grouped(
  FIELD_ROWS,
  ([, , number, type]) => ({ number, type }),
);

/** Every enum's values: name → number. */
export const ENUM_VALUES: Lookup<number> = grouped(ENUM_ROWS, ([, , number]) => number);

/** Rows [outer name, inner name, …] → outer → inner → value. */
function grouped<R extends readonly [string, string, ...unknown[]], V>(
  rows: readonly R[],
  value: (row: R) => V,
): Record<string, Record<string, V>> {
  const out: Record<string, Record<string, V>> = {};
  for (const row of rows) {
    out[row[0]] ??= {};
    out[row[0]][row[1]] = value(row);
  }
  return out;
}
