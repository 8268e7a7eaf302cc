// A scan page as MCP presents it: the tool's own answer (within the budget less a reserve)
// with the scan's state as `scan` in structuredContent and one `[SCAN]` line of text.
import type { z } from 'zod';
import type { ScanInfo } from '../scans/face.js';
import type { scanSchema } from './schemas.js';
import type { AnyTool, McpAnswer, ToolContext, ToolResult } from './tool.js';

/** What the scan's field and line may take of the answer budget. */
const RESERVE_BYTES = 2048;
const RESERVE_TOKENS = 600;
const FAILED_NAMES = 50;

export type ScanJson = z.infer<typeof scanSchema>;

export function scanJson(scan: ScanInfo, complete: boolean): ScanJson {
  const out: ScanJson = {
    id: scan.id,
    state: scan.state,
    complete,
    hosts_done: scan.hostsDone,
    hosts_total: scan.hostsTotal,
    hosts_delivered: scan.hostsDelivered,
    failed: scan.failed.slice(0, FAILED_NAMES),
    failed_count: scan.failed.length,
    entries_seen: scan.entriesSeen,
    elapsed_ms: scan.elapsedMs,
  };
  if (scan.estimateMs !== undefined) out.estimate_ms = scan.estimateMs;
  if (scan.rankingFinal !== undefined) out.ranking_final = scan.rankingFinal;
  return out;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/** The `[SCAN]` line: how far the scan is, and what to do next. */
export function scanLine(scan: ScanInfo, tool: string, next: string | undefined): string {
  const failed =
    scan.failed.length === 0
      ? ''
      : `; ${scan.failed.length} failed: ${scan.failed.slice(0, 10).join(', ')}${scan.failed.length > 10 ? ', …' : ''}`;
  const done = `${scan.hostsDone} of ${scan.hostsTotal} hosts done${failed}, ${scan.entriesSeen} entries seen in ${seconds(scan.elapsedMs)}`;
  if (next === undefined) return `[SCAN] ${scan.id} complete: ${done}; every row has been shown`;
  const left =
    scan.estimateMs !== undefined && scan.state === 'running' ? `, about ${seconds(scan.estimateMs)} left` : '';
  const ranked = scan.rankingFinal === false ? '; ranked over the hosts so far: later rows may rank higher' : '';
  const word = scan.state === 'running' ? 'still scanning' : scan.state;
  return `[SCAN] ${scan.id} ${word}: ${done}${left}${ranked}. For the rest call ${tool} again with the same arguments and cursor: ${next}`;
}

/** What the narrowing note may take of the answer budget (its selector is cut at 256). */
const NARROWED_BYTES = 640;

/**
 * The MCP answer of a result: a scan page gets its scan field and line; a call whose selector
 * the caller's grant narrowed says so, as `narrowed` and a `[GRANT]` line.
 */
export function presentMcp(tool: AnyTool, result: ToolResult, ctx: ToolContext): McpAnswer {
  const note = result.narrowed;
  if (note === undefined) return presentScan(tool, result, ctx);
  const options = { ...ctx.options, maxAnswerBytes: Math.max(1024, ctx.options.maxAnswerBytes - NARROWED_BYTES) };
  const answer = presentScan(tool, result, { ...ctx, options });
  return { structured: { ...answer.structured, narrowed: note }, text: `[GRANT] ${note}\n${answer.text}` };
}

function presentScan(tool: AnyTool, result: ToolResult, ctx: ToolContext): McpAnswer {
  const scan = result.scan;
  if (!scan) return tool.mcp(result, ctx);
  const options = {
    ...ctx.options,
    maxAnswerBytes: Math.max(1024, ctx.options.maxAnswerBytes - RESERVE_BYTES),
    maxAnswerTokens: Math.max(256, ctx.options.maxAnswerTokens - RESERVE_TOKENS),
  };
  const answer = tool.mcp(result, { ...ctx, options });
  const next = (answer.structured as { next_cursor?: unknown }).next_cursor;
  const cursor = typeof next === 'string' ? next : undefined;
  return {
    structured: { ...answer.structured, scan: scanJson(scan, cursor === undefined) },
    text: `${answer.text}\n${scanLine(scan, tool.name, cursor)}`,
  };
}
