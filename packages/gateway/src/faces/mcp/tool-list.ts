// tools/list, made lean for the model that reads it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallerAccess } from '../../grants/access.js';
import { mayCall } from '../../grants/grant.js';
import { requestHandlers } from './sdk-patches.js';

type Json = Record<string, unknown>;

/**
 * tools/list as a model pays for it, ≤ 10 KB whole (it is read into every conversation):
 * input schemas whole but for the `$schema` line; output schemas name each field of the
 * answer and its JSON type, not the fields of every row nor which are always there (the
 * descriptions and the text say those); `execution` only when it is not the spec's default
 * (`taskSupport: forbidden`). A looser output schema is still one every answer conforms to.
 */
export function compactToolList(server: McpServer, taskTools: ReadonlySet<string>): void {
  const handlers = requestHandlers(server);
  const list = handlers.get('tools/list');
  if (!list) return;
  handlers.set('tools/list', async (request, extra) => {
    const r = (await list(request, extra)) as { tools: Json[] };
    return {
      ...r,
      tools: r.tools.map((t) => {
        const { $schema: _in, ...schema } = t.inputSchema as Json;
        const inputSchema = { ...schema, properties: leanProperties(schema.properties as Record<string, Json>) };
        const { execution, ...rest } = t;
        // A fan-out tool may run as an MCP task (faces/mcp/tasks.ts); the SDK registered it as a plain tool.
        const lean = taskTools.has(t.name as string)
          ? { ...rest, execution: { taskSupport: 'optional' } }
          : (execution as Json | undefined)?.taskSupport === 'forbidden'
            ? rest
            : t;
        return t.outputSchema
          ? { ...lean, inputSchema, outputSchema: shallowSchema(t.outputSchema as Json) }
          : { ...lean, inputSchema };
      }),
    };
  });
}

/**
 * String length bounds (paths, selectors, cursors, filter texts: none a model comes near) stay
 * the gateway's to enforce and name; a choice of plain types is one `type` list, not an anyOf.
 */
function leanProperties(props: Record<string, Json> = {}): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(props)) {
    const { minLength: _min, maxLength: _max, anyOf, ...rest } = v;
    const types = (anyOf as Json[] | undefined)?.map((a) => a.type);
    out[k] =
      anyOf === undefined
        ? rest
        : types?.every((t) => typeof t === 'string')
          ? { ...rest, type: types }
          : { ...rest, anyOf };
  }
  return out;
}

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

/**
 * tools/list as the caller's grant reads it: only the tools it may call (as MCP's SEP-1881
 * drafts), so a model is never shown a tool it would be refused. A call of another tool is
 * still refused by runTool, naming what the principal may call.
 */
export function grantedToolList(server: McpServer, access: () => CallerAccess): void {
  const handlers = requestHandlers(server);
  const list = handlers.get('tools/list');
  if (!list) return;
  handlers.set('tools/list', async (request, extra) => {
    const r = (await list(request, extra)) as { tools: Json[] };
    const spec = access().spec;
    return spec ? { ...r, tools: r.tools.filter((t) => mayCall(spec, t.name as string)) } : r;
  });
}
