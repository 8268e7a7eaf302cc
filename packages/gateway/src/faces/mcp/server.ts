// The gateway's MCP face: every tool of the registry, registered with its schemas. A call
// runs through runTool (the same parse → plan → collect as the CLI) and is presented as
// structuredContent plus a compact text. Failures are results (isError) a model can read.
import { randomBytes } from 'node:crypto';
import { FleetError } from '@fleetls/core';
import {
  type CallToolResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { Fleet } from '../../fleet/fleet-types.js';
import { type GatewayOptions, resolveGatewayOptions } from '../../fleet/options.js';
import { MemoryPageStore, type PageStore } from '../../fleet/page-store.js';
import type { CallerAccess } from '../../grants/access.js';
import { createScanRegistry, type ScanRegistry } from '../../scans/scan-registry.js';
import { TOOLS } from '../../tools/registry.js';
import { runTool } from '../../tools/run-tool.js';
import { presentMcp } from '../../tools/scan-answer.js';
import type { AnyTool, ToolContext } from '../../tools/tool.js';
import { GATEWAY_VERSION } from '../../version.js';
import { registerMcpApps } from '../web/mcp-app.js';
import { callProgress } from './progress.js';
import { listTools } from './tool-list.js';

export const SERVER_NAME = 'fleetls';
export const SERVER_VERSION = GATEWAY_VERSION;

export interface McpServerDeps {
  fleet: Fleet;
  logger: Logger;
  options?: Partial<GatewayOptions>;
  /** Rankings kept for list_files pages; share one between the servers of one process (HTTP makes one per request). */
  pages?: PageStore;
  /** How often progress is sent while hosts walk (default 5 s). */
  progressIntervalMs?: number;
  /** Who is calling, for the audit line: `stdio` (default), `http:bearer`, `http:loopback`. */
  caller?: string;
  /**
   * The scans calls go on as past their deadline; share one between the servers of one process
   * (HTTP makes one per request). Default: this server's own (a stdio session's).
   */
  scans?: ScanRegistry;
  /** Who owns the scans of this server's calls (default: this server, a session of its own). */
  principal?: string;
  /** The gateway's state directory: scans spill rows beyond their memory bound under it. */
  stateDir?: string;
  /**
   * The caller's grant, read at each call (a reloaded grants file applies to a session's next
   * call): its calls are checked by runTool and its tools/list holds what it may call.
   */
  access?: () => CallerAccess;
}

const PROGRESS_INTERVAL_MS = 5000;

/**
 * Read into every conversation, and cut by Claude Code at 2,048 characters: the essentials
 * first (what it is, `host`, what an answer holds), then how to go on when an answer is cut or
 * a call outlives its deadline. server.test.ts holds it to MAX_INSTRUCTIONS_CHARS.
 */
export const INSTRUCTIONS =
  'fleetls lists directories across a fleet of Linux hosts, read-only. Every tool takes `host`: localhost, a name, ' +
  'a comma list, a glob like web-*, @group, label:key=value, or all (list_hosts shows the names). ' +
  'Answers from several hosts carry `host` on every row, are merged in the requested order, and have one ' +
  'status row per host in `hosts`; a failed host never fails the call. Long listings are cut at a size ' +
  'limit and say so; list_files and list_directory go on from next_cursor. A call over slow hosts answers ' +
  'within its deadline with the rows so far, the others `pending`, and a next_cursor (scan.…) that pages ' +
  'on as they answer; scan_status shows or cancels such a scan.';

/** Claude Code's cut of a server's instructions. */
export const MAX_INSTRUCTIONS_CHARS = 2048;

/**
 * Error text a client shows its model whole: Claude Code cuts an isError result's text at about
 * 11,000 characters; an error is cut here first, saying so, where its words are still the caller's.
 */
export const MAX_ERROR_CHARS = 8000;

/** `text` within MAX_ERROR_CHARS, saying how much was left out when cut. */
export function errorText(text: string): string {
  if (text.length <= MAX_ERROR_CHARS) return text;
  const tail = ` … (error cut at ${MAX_ERROR_CHARS} characters of ${text.length})`;
  let end = MAX_ERROR_CHARS - tail.length;
  // Not between the two halves of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  return text.slice(0, end) + tail;
}

/** What every call of one server shares. */
interface CallScope {
  deps: McpServerDeps;
  server: McpServer;
  options: GatewayOptions;
  pages: PageStore;
  scans: ScanRegistry;
  principal: string;
}

/**
 * The gateway's MCP server: one instance per stdio connection (faces/mcp/stdio.ts) or per HTTP
 * request (faces/mcp/http.ts), from whichever revision the client speaks (2026-07-28 or a 2025
 * one: the SDK's serving entries pick the era, the tools are the same).
 *
 * tools/list and tools/call are the gateway's own handlers on the SDK's public request-handler
 * API, not McpServer.registerTool: tools/list is made lean and cut to the caller's grant
 * (tool-list.ts), and a call's arguments are parsed once, by runTool, against the tool's strict
 * input schema (the `additionalProperties: false` one tools/list advertises), so a wrong or
 * unknown argument is a tool result in the gateway's words naming it (SEP-1303), audited as
 * every call is, not a protocol error in the SDK's.
 */
export function createMcpServer(deps: McpServerDeps): McpServer {
  const options = resolveGatewayOptions(deps.options);
  const scans = deps.scans ?? createScanRegistry(options, deps.logger, deps.stateDir);
  const principal = deps.principal ?? `${deps.caller ?? 'stdio'}:${randomBytes(8).toString('hex')}`;
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const scope: CallScope = { deps, server, options, pages: deps.pages ?? new MemoryPageStore(), scans, principal };
  // The tool set never changes while a server lives.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  server.server.setRequestHandler('tools/list', () => ({ tools: listTools(deps.access?.()) }));
  server.server.setRequestHandler('tools/call', (request, ctx) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Tool ${request.params.name} not found; tools/list names the ${TOOLS.length} tools`,
      );
    }
    // A 2025-11-25 `task` parameter (VS Code's Copilot Chat sends one to a tool it thinks may
    // run as a task) is not honoured: the call answers as any call does, within its deadline,
    // a slow fleet's answer carrying its scan cursor to page on with.
    return callTool(scope, tool, request.params.arguments ?? {}, ctx);
  });
  registerMcpApps(server);
  return server;
}

async function callTool(scope: CallScope, tool: AnyTool, args: unknown, ctx: ServerContext): Promise<CallToolResult> {
  const { deps, options } = scope;
  const req = ctx.mcpReq;
  const log = deps.logger.child({ tool: tool.name, request: String(req.id) });
  const progress = callProgress(ctx, req._meta?.progressToken, deps.progressIntervalMs ?? PROGRESS_INTERVAL_MS, log);
  // notifications/cancelled aborts the call's signal with the server still connected; the
  // server closing (stdin ended, a 2025 HTTP client gone) aborts it while closing: only the
  // first cancels a scan, which otherwise goes on for its cursor. On 2026-07-28 Streamable
  // HTTP a client cancels by closing the call's stream, which closes the request's server:
  // there, that close is the cancel (the spec's, and the only one such a client sends).
  const streamCancels = req.envelope !== undefined && ctx.http !== undefined;
  const cancel = new AbortController();
  const onAbort = () =>
    queueMicrotask(() => {
      if (streamCancels || scope.server.isConnected()) cancel.abort(req.signal.reason);
    });
  req.signal.addEventListener('abort', onAbort, { once: true });
  const toolCtx: ToolContext = {
    fleet: deps.fleet,
    options,
    signal: req.signal,
    cancel: cancel.signal,
    onProgress: progress.onProgress,
    pages: scope.pages,
    scans: scope.scans,
    principal: scope.principal,
    audit: { logger: deps.logger, caller: deps.caller ?? 'stdio' },
    access: deps.access?.(),
  };
  try {
    const result = await runTool(tool, args, toolCtx);
    const answer = presentMcp(tool, result, toolCtx);
    return {
      structuredContent: answer.structured,
      content: [{ type: 'text', text: answer.text }],
    };
  } catch (err) {
    const fe = FleetError.from(err);
    // Every call already has its audit line (run-tool.ts); a failure that is not the caller's gets its stack.
    if (fe.code !== 'invalid_argument') log.error({ err }, 'tool call failed');
    const text = fe.code === 'invalid_argument' ? `Invalid arguments: ${fe.message}` : `${fe.code}: ${fe.message}`;
    return { isError: true, content: [{ type: 'text', text: errorText(text) }] };
  } finally {
    progress.end();
    req.signal.removeEventListener('abort', onAbort);
  }
}
