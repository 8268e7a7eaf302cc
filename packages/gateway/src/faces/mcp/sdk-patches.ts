// The two places the gateway reaches into the MCP SDK's server past its public API; each
// cast names a private member of @modelcontextprotocol/sdk (v1.x), which declares no hook for either.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export type Handler = (r: unknown, e: unknown) => Promise<unknown>;

/**
 * Arguments are checked once, by runTool, for every face: the SDK's own check of the input
 * schema would answer a wrong type first, in its words ("MCP error -32602: Input validation
 * error … at depth"), beside ours for a value out of bounds. One style, a tool result the
 * model corrects from (SEP-1303): the schema is still advertised whole in tools/list.
 */
export function acceptToolInputAsIs(server: McpServer): void {
  // validateToolInput is private in the SDK, with no option to turn it off.
  (server as unknown as { validateToolInput: (t: unknown, args: unknown) => Promise<unknown> }).validateToolInput =
    async (_tool, args) => args ?? {};
}

/** The server's request handlers by method, to wrap one (the SDK exposes setting, not reading). */
export function requestHandlers(server: McpServer): Map<string, Handler> {
  return (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
}
