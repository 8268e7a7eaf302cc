// A Fleet API request → the tool's arguments. Each request field is named as the tool's
// argument (fleet-api.test.ts holds the contract to the registry), so the mapping is
// generic: a field left at its zero value is left out, and the tool applies its default,
// bounds and messages exactly as for an MCP call. A proto3 `optional` field (one whose zero
// is an argument unlike the default, e.g. one_file_system=false, or out of its bounds, e.g.
// depth=0) is taken whenever it is set, so the tool sees the 0 and refuses or applies it:
// protobuf-es's isFieldSet says both (a zero, unless the field has presence and was set).
import { type DescMessage, isFieldSet, type Message } from '@bufbuild/protobuf';
import type { z } from 'zod';

/** `max_items_per_dir` → `maxItemsPerDir`, as protobuf-es names fields. */
export function fieldName(arg: string): string {
  return arg.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The arguments of `input` (a tool's, or Walk's) that `request` (a message of `schema`) sets. */
export function requestArgs(input: z.ZodRawShape, schema: DescMessage, request: Message): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const arg of Object.keys(input)) {
    const field = schema.field[fieldName(arg)];
    if (field && isFieldSet(request, field)) args[arg] = (request as Record<string, unknown>)[field.localName];
  }
  return args;
}
