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
    // The call's deadline starts here, whichever face asked, so no fan-out outlives it.
    const call: ToolContext = { ...ctx, deadlineAt: ctx.deadlineAt ?? started + ctx.options.callDeadlineMs };
    const plan = tool.plan(parsed, call);
    return await tool.collect(plan, call);
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
