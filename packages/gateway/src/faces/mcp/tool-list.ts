// tools/list, made lean for the model that reads it, and cut to what the caller may call.
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CallerAccess } from '../../grants/access.js';
import { mayCall } from '../../grants/grant.js';
import { TOOLS } from '../../tools/registry.js';
import { argsObject } from '../../tools/schemas.js';
import type { AnyTool } from '../../tools/tool.js';
import { toolUiMeta } from '../web/mcp-app.js';

type Json = Record<string, unknown>;

// destructiveHint and openWorldHint are left at the spec's defaults: destructiveHint means
// nothing beside readOnlyHint, and openWorldHint is true by default (these tools reach other hosts).
const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true } as const;

/**
 * tools/list as a model pays for it, ≤ 10 KB whole (it is read into every conversation):
 * input schemas whole (draft-07, strict: `additionalProperties: false`) but for the `$schema`
 * line; output schemas name each field of the answer and its JSON type, not the fields of
 * every row nor which are always there (the descriptions and the text say those). A looser
 * output schema is still one every answer conforms to. No `execution`: a tool runs as a plain
 * call (the spec's default), a long scan going on from its cursor.
 *
 * With a grant, only the tools it may call (as MCP's SEP-1881 drafts), so a model is never
 * shown a tool it would be refused; a call of another is still refused by runTool, naming what
 * the principal may call.
 */
export function listTools(access?: CallerAccess): Tool[] {
  const spec = access?.spec;
  return leanTools().filter((t) => !spec || mayCall(spec, t.name));
}

let lean: Tool[] | undefined;
function leanTools(): Tool[] {
  lean ??= TOOLS.map(leanTool);
  return lean;
}

function leanTool(tool: AnyTool): Tool {
  const { $schema: _in, ...schema } = z.toJSONSchema(argsObject(tool.input), {
    io: 'input',
    target: 'draft-7',
  }) as Json;
  // JSON Schema as zod writes it: the SDK's type of a schema is JSON values only.
  const inputSchema = {
    ...schema,
    type: 'object',
    properties: leanProperties(schema.properties as Record<string, Json>),
  } as Tool['inputSchema'];
  const outputSchema = z.toJSONSchema(z.object(tool.output), { io: 'output', target: 'draft-7' }) as Json;
  const meta = toolUiMeta(tool.name);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema,
    outputSchema: shallowSchema(outputSchema) as Tool['outputSchema'],
    annotations: ANNOTATIONS,
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * String length bounds (paths, selectors, cursors, filter texts: none a model comes near) stay
 * the gateway's to enforce and name. A choice of types stays zod's `anyOf` of one type each:
 * a `type` list is valid JSON Schema, but MCP Inspector 2.12 warns on one (its forms take a
 * list only as a type with null), and a model reads either as well.
 */
function leanProperties(props: Record<string, Json> = {}): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(props)) {
    const { anyOf, ...rest } = lengthless(v);
    out[k] = anyOf === undefined ? rest : { ...rest, anyOf: (anyOf as Json[]).map(lengthless) };
  }
  return out;
}

const lengthless = ({ minLength: _min, maxLength: _max, ...rest }: Json): Json => rest;

function shallowSchema(schema: Json): Json {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const shallow: Record<string, Json> = {};
  for (const [k, v] of Object.entries(props)) {
    // Only an answer a grant narrowed has it (and its [GRANT] line says so): not worth every list's bytes.
    if (k === 'narrowed') continue;
    shallow[k] = v.const !== undefined ? { const: v.const } : v.type !== undefined ? { type: v.type } : {};
  }
  return { type: 'object', properties: shallow };
}
