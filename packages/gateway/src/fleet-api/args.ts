// A Fleet API request → the tool's arguments. Each request field is named as the tool's
// argument (fleet-api.test.ts holds the contract to the registry), so the mapping is
// generic: a field left at its zero value is left out, and the tool applies its default,
// bounds and messages exactly as for an MCP call. A proto3 `optional` field (one whose zero
// is an argument unlike the default, e.g. one_file_system=false, or out of its bounds, e.g.
// depth=0) is taken whenever it is set, so the tool sees the 0 and refuses or applies it.
import type { z } from 'zod';

/** `max_items_per_dir` → `maxItemsPerDir`, as the contract's loader options name fields. */
export function fieldName(arg: string): string {
  return arg.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0);
}

/** Whether an `optional` field was set: the loader (oneofs: true) names it in its synthetic oneof. */
function isSet(request: Record<string, unknown>, field: string): boolean {
  return request[`_${field}`] === field;
}

/** The arguments of `input` (a tool's, or Walk's) that the request sets. */
export function requestArgs(input: z.ZodRawShape, request: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const arg of Object.keys(input)) {
    const field = fieldName(arg);
    const v = request[field];
    if (isSet(request, field) || !isEmpty(v)) args[arg] = v;
  }
  return args;
}
