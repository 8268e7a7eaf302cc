// The one place a tool call executes, whichever face asked: arguments parsed against the
// tool's input schema (unknown ones refused), planned, collected. Faces present the result.
// Each call is reported to the fleet's observer (metrics) with its outcome and wall time.
import { FleetError } from '@fleetls/core';
import { parseArgs } from './schemas.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';

export async function runTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  const started = performance.now();
  let outcome = 'ok';
  try {
    const parsed = parseArgs(tool.input, args);
    const plan = tool.plan(parsed, ctx);
    return await tool.collect(plan, ctx);
  } catch (err) {
    outcome = FleetError.from(err).code;
    throw err;
  } finally {
    ctx.fleet.observer?.callEnded({
      kind: 'tool',
      name: tool.name,
      outcome,
      seconds: (performance.now() - started) / 1000,
    });
  }
}
