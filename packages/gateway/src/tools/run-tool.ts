// The one place a tool call executes, whichever face asked: the caller's grant checked (tool,
// path, rate) and its selector narrowed before any host is asked, arguments parsed against the
// tool's input schema (unknown ones refused), planned, collected. Faces present the result.
// Each call is reported to the fleet's observer (metrics) with its outcome and wall time,
// and written to the audit trail (audit.ts) when the face gave one.
import { FleetError } from '@fleetls/core';
import type { Fleet, PeerCaller } from '../fleet/fleet-types.js';
import { boundPages } from '../fleet/page-store.js';
import { type CallerAccess, checkCallPath, checkTool, type GrantDecision, grantedFleet } from '../grants/access.js';
import { isScanCursor } from '../scans/cursor.js';
import { ScanRegistry } from '../scans/scan-registry.js';
import { auditToolCall } from './audit.js';
import { runScanned } from './run-scanned.js';
import { parseArgs } from './schemas.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';

export async function runTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  const started = performance.now();
  let outcome = 'ok';
  let result: ToolResult | undefined;
  const decision: GrantDecision = { decision: 'allowed' };
  try {
    const call = grantedCall(tool, ctx, decision);
    const parsed = parseArgs(tool.input, args);
    if (ctx.access)
      refusing(decision, () => checkCallPath(ctx.access as CallerAccess, (parsed as { path?: unknown }).path));
    // The call's deadline starts here, whichever face asked, so no fan-out outlives it.
    const deadlineAt = ctx.deadlineAt ?? started + ctx.options.callDeadlineMs;
    call.deadlineAt = deadlineAt;
    const cursor = (parsed as { cursor?: unknown }).cursor;
    // A first call (or a scan's page) of a fan-out tool on a face that keeps scans goes on past
    // its deadline as a scan; a tool's own cursor pages an answer that was whole.
    if (tool.scan && ctx.scans instanceof ScanRegistry && (cursor === undefined || isScanCursor(cursor))) {
      result = await runScanned(tool, tool.scan, parsed as Record<string, unknown>, {
        ...call,
        scans: ctx.scans,
        deadlineAt,
      });
    } else {
      const plan = tool.plan(parsed, call);
      result = await tool.collect(plan, call);
    }
    if (decision.decision === 'narrowed') result.narrowed = decision.why;
    return result;
  } catch (err) {
    outcome = FleetError.from(err).code;
    throw err;
  } finally {
    if (ctx.audit)
      auditToolCall({ ...ctx, audit: ctx.audit }, tool, args, result, outcome, performance.now() - started, decision);
    ctx.fleet.observer?.callEnded({
      kind: 'tool',
      name: tool.name,
      outcome,
      seconds: (performance.now() - started) / 1000,
    });
  }
}

/**
 * The call as the caller's grant lets it run: refused (rate, tool) before anything else
 * happens, its fleet narrowed to the granted hosts, and the pages it keeps or reads marked
 * as its principal's. `decision` is filled in for the audit line and the answer.
 */
function grantedCall(tool: AnyTool, ctx: ToolContext, decision: GrantDecision): ToolContext {
  const { access } = ctx;
  // A ranking is the grant's (who the caller is), not the session's: a ranked page kept in
  // JetStream is continued by another gateway, or another session of the same principal.
  const principal = access?.principal ?? ctx.audit?.caller ?? ctx.principal;
  const pages = ctx.pages && principal !== undefined ? boundPages(ctx.pages, principal) : ctx.pages;
  const granted = tool.grantedAs ?? tool.name;
  // A call split among peer gateways names its principal: each peer holds its shard to its own grants.
  const fleet = forCaller(ctx.fleet, { principal: principal ?? 'local', tool: granted });
  if (!access) return { ...ctx, pages, fleet };
  refusing(decision, () => checkTool(access, granted));
  const spec = access.spec;
  if (!spec) return { ...ctx, pages, fleet };
  return { ...ctx, pages, fleet: grantedFleet(fleet, spec, decision) };
}

/** The fleet whose peers (if any) split this caller's calls. */
function forCaller(fleet: Fleet, caller: PeerCaller): Fleet {
  return fleet.peers ? { ...fleet, peers: fleet.peers.withCaller(caller) } : fleet;
}

/** Runs a grant check; its refusal is the call's decision. */
function refusing(decision: GrantDecision, check: () => void): void {
  try {
    check();
  } catch (err) {
    decision.decision = 'refused';
    decision.why = FleetError.from(err).message;
    throw err;
  }
}
