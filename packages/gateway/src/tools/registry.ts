// The tools of fleetls, declared once. Every face iterates this list: the MCP server
// registers each tool (faces/mcp/server.ts), the CLI makes a subcommand of each tool that has a
// `cli` face (cli/tool-command.ts), the Fleet API serves each tool's `fleet` face as an RPC
// (fleet-api/impl.ts), and the tests check every tool's answers against its outputSchema.
//
// Adding a tool (README.md lists the files it touches): write `tools/<name>/index.ts` exporting
// `defineTool({...})` (see tool.ts) with
//   - name, title, description: what MCP clients and the model see;
//   - input: zod shapes of the arguments, with defaults, bounds and messages that name the
//     argument (schemas.ts has the shared pieces: hostPath, treeDepth, itemsPerDir, order_by, int, cursor);
//   - output: zod shapes of the MCP structuredContent (each row lean: omit what is empty);
//   - plan(args, ctx): validated arguments → per-host requests (no I/O; throw
//     invalidArgument for what the schema cannot say);
//   - collect(plan, ctx): fan out (tools/shared/host-walks.ts, ../fan-out.ts) and merge into a domain
//     result: core types (Entry, HostStatus, Truncation), no MCP, CLI or gRPC types, with
//     `hosts` (one status per host) and, for listings that page, `cursorAfter(shown)`;
//   - mcp(result, ctx): the MCP answer {structured, text}, within ctx.options.maxAnswerBytes;
//   - cli (optional): the subcommand, its flags → arguments, and render(result, style);
//   - fleet: its Fleet API face, the RPC's method and present(result) → the response message;
// then add one line to TOOLS below, and the tool's RPC and its request and response messages
// to proto/fleetls/v1/fleet.proto (request fields named as the arguments; fleet-api.test.ts
// fails until they match). Every face (MCP, CLI, Fleet API) and every test iterates TOOLS.
//
// Adding a face (e.g. the Fleet gRPC service): iterate TOOLS (or import the one tool you
// serve, for its typed result), call runTool() from run-tool.ts with the raw arguments and
// a ToolContext, and present the domain result it returns. runTool is the one place a tool
// call executes (parse → plan → collect), so audit logging and metrics hook in there.
import { diffDirectoryTool } from './diff-directory/index.js';
import { diskUsageTool } from './disk-usage/index.js';
import { listDirectoriesTool } from './list-directories/index.js';
import { listDirectoryTool } from './list-directory/index.js';
import { listFilesTool } from './list-files/index.js';
import { listHostsTool } from './list-hosts/index.js';
import { scanStatusTool } from './scan-status/index.js';
import { narrowedSchema } from './schemas.js';
import { statTool } from './stat/index.js';
import type { AnyTool } from './tool.js';

/**
 * A tool whose calls name hosts may answer a selector its caller's grant narrowed, and says
 * so (`narrowed`, run-tool.ts and scans/answer.ts): its outputSchema declares the field.
 */
function grantable(tool: AnyTool): AnyTool {
  return 'host' in tool.input ? { ...tool, output: { ...tool.output, narrowed: narrowedSchema.optional() } } : tool;
}

export const TOOLS: readonly AnyTool[] = [
  listDirectoryTool,
  listFilesTool,
  listDirectoriesTool,
  statTool,
  listHostsTool,
  diffDirectoryTool,
  diskUsageTool,
  scanStatusTool,
].map(grantable);

export function findTool(name: string): AnyTool | undefined {
  return TOOLS.find((t) => t.name === name);
}
