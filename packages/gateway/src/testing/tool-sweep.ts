// Every tool of the registry called over MCP on one host and on all, at its defaults or at the
// largest arguments its schema allows: the answer-size tests read each answer.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerDeps } from '../faces/mcp/server.js';
import { connectMcp } from './mcp-client.js';

/** What makes an answer bigger, at the largest value its schema allows. */
const GROWS = ['depth', 'max_depth', 'max_items_per_dir', 'limit', 'top_n'];

type Schema = { properties?: Record<string, { maximum?: number; enum?: string[] }> };

function largestArguments(schema: Schema): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    if (GROWS.includes(name) && p.maximum !== undefined) args[name] = p.maximum;
    if (name === 'type' && p.enum?.includes('any')) args[name] = 'any';
  }
  return args;
}

export interface SweptCall {
  tool: string;
  host: string;
  /** The call as a test's message names it: the tool and its arguments. */
  call: string;
  result: CallToolResult;
}

/**
 * Calls every tool on `h1` and on `all` with `path: /r` (list_hosts without), each at the
 * largest arguments its schema allows or at its defaults, and hands each answer to `check`.
 */
export async function sweepTools(
  deps: McpServerDeps,
  largest: boolean,
  check: (swept: SweptCall) => void,
): Promise<void> {
  const { client, close } = await connectMcp(deps, 'sweep');
  try {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      // scan_status names a scan, not hosts (scan.test.ts covers it).
      if (tool.name === 'scan_status') continue;
      for (const host of ['h1', 'all']) {
        const args: Record<string, unknown> = {
          host,
          path: '/r',
          ...(largest ? largestArguments(tool.inputSchema as Schema) : {}),
        };
        if (tool.name === 'list_hosts') delete args.path;
        const result = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
        check({ tool: tool.name, host, call: `${tool.name} ${JSON.stringify(args)}`, result });
      }
    }
  } finally {
    await close();
  }
}
