// The gateway's MCP face: every tool of the registry, registered with its schemas. A call
// runs through runTool (the same parse → plan → collect as the CLI) and is presented as
// structuredContent plus a compact text. Failures are results (isError) a model can read.
import { randomBytes } from 'node:crypto';
import { FleetError } from '@fleetls/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Fleet } from '../../fleet/fleet-types.js';
import { type GatewayOptions, resolveGatewayOptions } from '../../fleet/options.js';
import { MemoryPageStore, type PageStore } from '../../fleet/page-store.js';
import type { CallerAccess } from '../../grants/access.js';
import { createScanRegistry, type ScanRegistry } from '../../scans/scan-registry.js';
import { TOOLS } from '../../tools/registry.js';
import { runTool } from '../../tools/run-tool.js';
import { presentMcp } from '../../tools/scan-answer.js';
import { argsObject } from '../../tools/schemas.js';
import type { AnyTool, ToolContext } from '../../tools/tool.js';
import { GATEWAY_VERSION } from '../../version.js';
import { registerMcpApps, toolUiMeta } from '../web/mcp-app.js';
import { callProgress } from './progress.js';
import { acceptToolInputAsIs, requestHandlers } from './sdk-patches.js';
import { TASK_CAPABILITIES, type TaskKeeper, type TaskRun, tasksOf } from './tasks.js';
import { compactToolList, grantedToolList } from './tool-list.js';

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

// destructiveHint and openWorldHint are left at the spec's defaults: destructiveHint means
// nothing beside readOnlyHint, and openWorldHint is true by default (these tools reach other hosts).
const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true } as const;

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

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every call of one server shares. */
interface CallScope {
  deps: McpServerDeps;
  server: McpServer;
  options: GatewayOptions;
  pages: PageStore;
  scans: ScanRegistry;
  principal: string;
}

export function createMcpServer(deps: McpServerDeps): McpServer {
  const options = resolveGatewayOptions(deps.options);
  const scans = deps.scans ?? createScanRegistry(options, deps.logger, deps.stateDir);
  const principal = deps.principal ?? `${deps.caller ?? 'stdio'}:${randomBytes(8).toString('hex')}`;
  const tasks = tasksOf(scans);
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { logging: {}, tasks: TASK_CAPABILITIES },
      instructions: INSTRUCTIONS,
      taskStore: tasks.storeFor(principal),
    },
  );
  const scope: CallScope = { deps, server, options, pages: deps.pages ?? new MemoryPageStore(), scans, principal };
  acceptToolInputAsIs(server);
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: argsObject(tool.input),
        outputSchema: tool.output,
        annotations: ANNOTATIONS,
        _meta: toolUiMeta(tool.name),
      },
      (args: unknown, extra: Extra) => callTool(scope, tool, args, extra),
    );
  }
  const scanned = new Map(TOOLS.filter((t) => t.scan !== undefined).map((t) => [t.name, t]));
  compactToolList(server, new Set(scanned.keys()));
  if (deps.access) grantedToolList(server, deps.access);
  routeTaskCalls(scope, tasks, scanned);
  registerMcpApps(server);
  return server;
}

/** `run`: the call is a task's (faces/mcp/tasks.ts): its signal, progress and the scan's whole deadline. */
async function callTool(
  scope: CallScope,
  tool: AnyTool,
  args: unknown,
  extra: Extra,
  run?: TaskRun,
): Promise<CallToolResult> {
  const { deps, options } = scope;
  const log = deps.logger.child({ tool: tool.name, request: String(extra.requestId) });
  // A task's progress is its statusMessage: the call that created it has answered already.
  const token = run ? undefined : extra._meta?.progressToken;
  const progress = callProgress(extra, token, deps.progressIntervalMs ?? PROGRESS_INTERVAL_MS, log);
  // notifications/cancelled aborts the call's signal with the transport still up; a transport
  // going away aborts it while closing (it is gone a moment later): only the first cancels a scan.
  const cancel = new AbortController();
  const onAbort = () =>
    queueMicrotask(() => {
      if (scope.server.server.transport !== undefined) cancel.abort(extra.signal.reason);
    });
  if (!run) extra.signal.addEventListener('abort', onAbort, { once: true });
  const ctx: ToolContext = {
    fleet: deps.fleet,
    options,
    signal: run?.signal ?? extra.signal,
    cancel: run?.signal ?? cancel.signal,
    onProgress: run?.onProgress ?? progress.onProgress,
    // A task waits for its whole scan, which answers whole when it is done.
    deadlineAt: run ? performance.now() + options.scanDeadlineMs : undefined,
    pages: scope.pages,
    scans: scope.scans,
    principal: scope.principal,
    audit: { logger: deps.logger, caller: deps.caller ?? 'stdio' },
    access: deps.access?.(),
  };
  try {
    const result = await runTool(tool, args, ctx);
    const answer = presentMcp(tool, result, ctx);
    const out: CallToolResult = {
      structuredContent: answer.structured,
      content: [{ type: 'text', text: answer.text }],
    };
    return out;
  } catch (err) {
    const fe = FleetError.from(err);
    // Every call already has its audit line (run-tool.ts); a failure that is not the caller's gets its stack.
    if (fe.code !== 'invalid_argument') log.error({ err }, 'tool call failed');
    const text = fe.code === 'invalid_argument' ? `Invalid arguments: ${fe.message}` : `${fe.code}: ${fe.message}`;
    return { isError: true, content: [{ type: 'text', text: errorText(text) }] };
  } finally {
    progress.end();
    extra.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A task-augmented call of a fan-out tool answers its task at once and runs on; any other
 * call (no `task`, or a tool that answers within its call) takes the ordinary route.
 */
function routeTaskCalls(scope: CallScope, tasks: TaskKeeper, scanned: ReadonlyMap<string, AnyTool>): void {
  const handlers = requestHandlers(scope.server);
  const plain = handlers.get('tools/call');
  if (!plain) return;
  handlers.set('tools/call', async (request, extra) => {
    const params = (request as { params: { name: string; arguments?: unknown; task?: { ttl?: number | null } } })
      .params;
    const tool = scanned.get(params.name);
    if (!params.task || !tool) return plain(request, extra);
    const run = tasks.create(scope.principal, params.task.ttl);
    void callTool(scope, tool, params.arguments ?? {}, extra as Extra, run).then(run.finish);
    return { task: run.task };
  });
}
