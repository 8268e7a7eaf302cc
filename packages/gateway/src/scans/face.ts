// What a tool declares so that its calls can outlive their deadline as scans (scan.ts): the
// types live in call.ts (tool.ts re-exports them beside Tool); this is the collect they share,
// and where a merged answer's page starts and goes on (offsetPage).
import { encodeCursor } from '@fleetls/core';
import { fanOut } from '../fleet/fan-out.js';
import { fanOutOptions, type ScanFace, type ScanPage, type ToolContext, type ToolResult } from './call.js';

export type { HostTask, ScanFace, ScanInfo, ScanPage } from './call.js';

/**
 * A fan-out tool's `collect` and `scan`, both from its scan face: its collect is the face's
 * merge over every host, within the call's deadline.
 */
export function withScan<P, T, R extends ToolResult>(face: ScanFace<P, T, R>) {
  return {
    async collect(plan: P, ctx: ToolContext): Promise<R> {
      const results = await fanOut(ctx.fleet, face.hosts(plan), face.task(plan, ctx), fanOutOptions(ctx));
      return face.merge(plan, results, ctx);
    },
    scan: face,
  };
}

/**
 * Where a merged answer of `total` rows starts, and its cursor after `shown` more: within a
 * scan, the scan page's; else an offset cursor of the same query (the plan's start_index
 * or cursor offset, and its fingerprint).
 */
export function offsetPage(
  plan: { start: number; fingerprint: string },
  total: number,
  page: ScanPage | undefined,
): { start: number; cursorAfter(shown: number): string | undefined } {
  const start = Math.min(page ? page.start : plan.start, total);
  return {
    start,
    cursorAfter: (shown) =>
      page
        ? page.next(start + shown, total)
        : start + shown < total
          ? encodeCursor(start + shown, plan.fingerprint)
          : undefined,
  };
}
