// The one place a tool call executes, whichever face asked: arguments parsed against the
// tool's input schema (unknown ones refused), planned, collected. Faces present the result.
import { parseArgs } from './schemas.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';

export async function runTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseArgs(tool.input, args);
  const plan = tool.plan(parsed, ctx);
  return tool.collect(plan, ctx);
}
