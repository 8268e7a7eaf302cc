// What a tool declares so that its calls can outlive their deadline as scans (scan.ts): the
// types live in tool.ts (beside Tool, which holds a ScanFace); this is the collect they share.
import { fanOut } from '../fan-out.js';
import { fanOutOptions } from './host-walks.js';
import type { ScanFace, ToolContext, ToolResult } from './tool.js';

export type { HostTask, ScanFace, ScanInfo, ScanPage } from './tool.js';

/** A tool's collect: its scan face's merge over every host, within the call's deadline. */
export async function collectWith<P, T, R extends ToolResult>(
  face: ScanFace<P, T, R>,
  plan: P,
  ctx: ToolContext,
): Promise<R> {
  const results = await fanOut(ctx.fleet, face.hosts(plan), face.task(plan, ctx), fanOutOptions(ctx));
  return face.merge(plan, results, ctx);
}
