// The one place a tool call executes, whichever face asked: arguments parsed against the
// tool's input schema (unknown ones refused), planned, collected. Faces present the result.
// Each call is reported to the fleet's observer (metrics) with its outcome and wall time,
// and written to the audit trail (audit.ts) when the face gave one.
import { FleetError } from '@fleetls/core';
import { isScanCursor } from '../scans/cursor.js';
import { ScanRegistry } from '../scans/registry.js';
import { auditToolCall } from './audit.js';
import { runScanned } from './run-scanned.js';
import { parseArgs } from './schemas.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';

export async function runTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  const started = performance.now();
  let outcome = 'ok';
  let result: ToolResult | undefined;
  try {
    const parsed = parseArgs(tool.input, args);
    // The call's deadline starts here, whichever face asked, so no fan-out outlives it.
    const deadlineAt = ctx.deadlineAt ?? started + ctx.options.callDeadlineMs;
    const call: ToolContext = { ...ctx, deadlineAt };
    const cursor = (parsed as { cursor?: unknown }).cursor;
    // A first call (or a scan's page) of a fan-out tool on a face that keeps scans goes on past
    // its deadline as a scan; a tool's own cursor pages an answer that was whole.
    if (tool.scan && ctx.scans instanceof ScanRegistry && (cursor === undefined || isScanCursor(cursor))) {
      result = await runScanned(tool, tool.scan, parsed as Record<string, unknown>, {
        ...call,
        scans: ctx.scans,
        deadlineAt,
      });
      return result;
    }
    const plan = tool.plan(parsed, call);
    result = await tool.collect(plan, call);
    return result;
  } catch (err) {
    outcome = FleetError.from(err).code;
    throw err;
  } finally {
    if (ctx.audit)
      auditToolCall({ ...ctx, audit: ctx.audit }, tool, args, result, outcome, performance.now() - started);
    ctx.fleet.observer?.callEnded({
      kind: 'tool',
      name: tool.name,
      outcome,
      seconds: (performance.now() - started) / 1000,
    });
  }
}
