// The gateway's audit trail: one JSON line per tool call ("audit": "tool"), written where
// every call runs (run-tool.ts), whichever face asked. The caller is the face's word for
// who called: `stdio`, `http:bearer` / `http:loopback`, `cli:<user>`; the principal is whose
// grant the call ran under, and the decision what the grant made of it (allowed, narrowed,
// refused) and why. Arguments are not logged whole: the selector and path say what was asked,
// and nothing else may hold a secret.
import type { HostStatus } from '@fleetls/core';
import type { GrantDecision } from '../grants/access.js';
import type { AnyTool, ToolAudit, ToolContext, ToolResult } from './tool.js';

export type { ToolAudit } from './tool.js';

/** Rows of a result: its `rows`, for a tree every section's rows, for a stream those it sent. */
function rowsOf(result: ToolResult): number {
  const r = result as { rows?: unknown; sections?: { rows: unknown[] }[]; rowsSent?: number };
  if (typeof r.rowsSent === 'number') return r.rowsSent;
  if (Array.isArray(r.rows)) return r.rows.length;
  if (Array.isArray(r.sections)) return r.sections.reduce((n, s) => n + s.rows.length, 0);
  return 0;
}

function field(args: unknown, key: string): string | undefined {
  const v = (args as Record<string, unknown> | null | undefined)?.[key];
  return typeof v === 'string' ? v.slice(0, 1024) : undefined;
}

export function auditToolCall(
  ctx: ToolContext & { audit: ToolAudit },
  tool: AnyTool,
  args: unknown,
  result: ToolResult | undefined,
  outcome: string,
  ms: number,
  decision?: GrantDecision,
): void {
  const log = ctx.audit.logger;
  if (!log.isLevelEnabled('info')) return;
  const hosts: HostStatus[] = result?.hosts ?? [];
  let bytes = 0;
  if (result) {
    // The answer a model gets (the MCP presentation), whichever face asked: the bound that matters.
    const answer = tool.mcp(result, ctx);
    bytes = Buffer.byteLength(answer.text) + Buffer.byteLength(JSON.stringify(answer.structured));
  }
  log.info(
    {
      audit: 'tool',
      caller: ctx.audit.caller,
      tool: tool.name,
      selector: field(args, 'host'),
      path: field(args, 'path'),
      hostsOk: hosts.filter((h) => h.status === 'ok').map((h) => h.host),
      hostsFailed: hosts
        .filter((h) => h.status !== 'ok' && h.status !== 'pending')
        .map((h) => ({ host: h.host, status: h.status })),
      rows: result ? rowsOf(result) : 0,
      bytes,
      ms: Math.round(ms),
      outcome,
      // With grants (--grants), whose grant the call ran under and what it made of the call.
      ...(ctx.access
        ? {
            principal: ctx.access.principal,
            decision: decision?.decision ?? 'allowed',
            ...(decision?.why !== undefined ? { why: decision.why } : {}),
          }
        : {}),
    },
    'audit',
  );
}
