// A tool call through a scan: the call starts one (or continues the one its cursor names),
// waits for it until just before the call's deadline, and answers the whole result when every
// host was done by then (as the tool's own collect would), else a page of the scan: what
// arrived, the hosts still walking as `pending`, and a next_cursor to the rest.
import { queryFingerprint } from '@fleetls/core';
import type { GatewayOptions } from '../fleet/options.js';
import { decodeScanCursor, invalidCursor } from '../scans/cursor.js';
import type { ScanFace } from '../scans/face.js';
import type { Scan } from '../scans/scan.js';
import type { ScanRegistry } from '../scans/scan-registry.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';

/**
 * Time kept back from the call's deadline to merge and present the page: a fifth of the call,
 * at least 2 s (a 40 s call waits 32 s). A gateway walking hundreds of hosts fires its timers
 * late on a loaded machine: 35 s of waiting answered at 38.5-44 s at load 25-38.
 */
const presentMs = (callDeadlineMs: number) => Math.max(2000, callDeadlineMs / 5);
/** A page waits for new rows until about this many are there (more than one answer shows). */
const PAGE_ROWS = 2000;

/** The options a scan's hosts run with: the scan's budgets in place of a call's. */
export function scanOptions(options: GatewayOptions): GatewayOptions {
  return {
    ...options,
    deadlineMs: options.scanHostDeadlineMs,
    callDeadlineMs: options.scanDeadlineMs,
    concurrency: options.scanConcurrency,
  };
}

/** The query a scan's cursor must come with again: the tool and its arguments but the cursor. */
function fingerprintOf(tool: AnyTool, args: Record<string, unknown>): string {
  const { cursor: _cursor, ...rest } = args;
  return queryFingerprint({ tool: tool.name, args: rest });
}

function principalOf(ctx: ToolContext): string {
  return ctx.principal ?? ctx.audit?.caller ?? 'anonymous';
}

/** While the call waits on the scan: its progress to the caller, its cancellation to the scan. */
function attach(scan: Scan, ctx: ToolContext): () => void {
  const off = ctx.onProgress ? scan.subscribe(ctx.onProgress) : () => {};
  const cancel = () => scan.cancel('cancelled by the client');
  if (ctx.cancel?.aborted) cancel();
  ctx.cancel?.addEventListener('abort', cancel, { once: true });
  return () => {
    off();
    ctx.cancel?.removeEventListener('abort', cancel);
  };
}

export async function runScanned(
  tool: AnyTool,
  face: ScanFace<unknown, unknown, ToolResult>,
  args: Record<string, unknown>,
  ctx: ToolContext & { scans: ScanRegistry; deadlineAt: number },
): Promise<ToolResult> {
  const principal = principalOf(ctx);
  const caller = ctx.audit?.caller ?? principal;
  const fingerprint = fingerprintOf(tool, args);
  const until = ctx.deadlineAt - presentMs(ctx.options.callDeadlineMs);
  if (typeof args.cursor === 'string') {
    const pos = decodeScanCursor(args.cursor);
    const scan = ctx.scans.get(pos.id, principal);
    if (scan.toolName !== tool.name || scan.fingerprint !== fingerprint) {
      throw invalidCursor(`the tool (${scan.toolName}) and arguments of the call that started scan ${scan.id}`);
    }
    ctx.scans.touch(scan);
    const detach = attach(scan, ctx);
    try {
      if (scan.waitsAt(pos.batch)) await scan.wait(until, ctx.signal, PAGE_ROWS);
      const result = await scan.page(pos.batch, pos.row, ctx);
      ctx.scans.touch(scan);
      ctx.scans.audit(scan, 'page', caller, {
        batch: pos.batch,
        row: pos.row,
        hostsDelivered: result.scan?.hostsDelivered,
      });
      return result;
    } finally {
      detach();
    }
  }
  const scanCtx: ToolContext = { ...ctx, options: scanOptions(ctx.options), onProgress: undefined };
  // One plan per call: a call that cannot be a scan is collected from the same plan (its hosts'
  // walks are held to the call's own budget by the fan-out, whatever the scan's deadlines).
  const plan = tool.plan(args, scanCtx);
  if (face.scannable?.(plan) === false) return tool.collect(plan, ctx);
  const scan = ctx.scans.start({ principal, toolName: tool.name, face, plan, fingerprint, ctx: scanCtx });
  const detach = attach(scan, ctx);
  try {
    await scan.wait(until, ctx.signal);
    if (scan.state === 'complete') {
      // Every host answered within the call: the tool's whole answer, and no scan to follow.
      const results = await scan.all();
      const result = face.finish ? await face.finish(plan, results, ctx) : face.merge(plan, results, ctx);
      ctx.scans.drop(scan.id, 'answered whole');
      return result;
    }
    ctx.scans.publish(scan, caller);
    const result = await scan.page(0, 0, ctx);
    ctx.scans.audit(scan, 'page', caller, { batch: 0, row: 0, hostsDelivered: result.scan?.hostsDelivered });
    return result;
  } finally {
    detach();
  }
}
