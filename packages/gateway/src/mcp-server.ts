// The gateway's MCP face: every tool of the registry, registered with its schemas. A call
// runs through runTool (the same parse → plan → collect as the CLI) and is presented as
// structuredContent plus a compact text. Failures are results (isError) a model can read.
import { randomBytes } from 'node:crypto';
import { FleetError, type HostStatus } from '@fleetls/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Fleet } from './fleet-types.js';
import { TASK_CAPABILITIES, type TaskRun, tasksOf } from './mcp-tasks.js';
import { type GatewayOptions, resolveGatewayOptions } from './options.js';
import { MemoryPageStore, type PageStore } from './tools/page-store.js';
import { TOOLS } from './tools/registry.js';
import { runTool } from './tools/run-tool.js';
import { presentMcp } from './tools/scan-answer.js';
import { createScanRegistry, type ScanRegistry } from './tools/scan-registry.js';
import { argsObject } from './tools/schemas.js';
import type { AnyTool, ToolContext } from './tools/tool.js';
import { GATEWAY_VERSION } from './version.js';
import { registerMcpApps, toolUiMeta } from './web/mcp-app.js';

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
}

const PROGRESS_INTERVAL_MS = 5000;
/** notifications/progress at most this often (the spec asks senders to rate-limit). */
const PROGRESS_MIN_GAP_MS = 1000;

// destructiveHint and openWorldHint are left at the spec's defaults: destructiveHint means
// nothing beside readOnlyHint, and openWorldHint is true by default (these tools reach other hosts).
const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true } as const;

const INSTRUCTIONS =
  'fleetls lists directories across a fleet of Linux hosts. Every tool takes `host`: localhost, a name, ' +
  'a comma list, a glob like web-*, @group, label:key=value, or all (list_hosts shows the names). ' +
  'Answers from several hosts carry `host` on every row, are merged in the requested order, and have one ' +
  'status row per host in `hosts`; a failed host never fails the call. Long listings are cut at a size ' +
  'limit and say so; list_files and list_directory go on from next_cursor.';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function createMcpServer(deps: McpServerDeps): McpServer {
  const options = resolveGatewayOptions(deps.options);
  const pages = deps.pages ?? new MemoryPageStore();
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

  /** `run`: the call is a task's (mcp-tasks.ts): its signal, progress and the scan's whole deadline. */
  const call = async (tool: AnyTool, args: unknown, extra: Extra, run?: TaskRun): Promise<CallToolResult> => {
    const log = deps.logger.child({ tool: tool.name, request: String(extra.requestId) });
    // A task's progress is its statusMessage: the call that created it has answered already.
    const token = run ? undefined : extra._meta?.progressToken;
    let lastSent = Number.NEGATIVE_INFINITY;
    let lastValue = Number.NEGATIVE_INFINITY;
    let trailing: NodeJS.Timeout | undefined;
    let ended = false;
    const send = (progressValue: number, total: number | undefined, message: string) => {
      // Progress must rise, and stops once the call answered.
      if (ended || progressValue <= lastValue) return;
      lastSent = performance.now();
      lastValue = progressValue;
      extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token as string | number, progress: progressValue, total, message },
        })
        .catch((err: unknown) => log.debug({ err }, 'progress notification not delivered'));
    };
    // At most one a second: the latest count goes out when the second is up.
    const progress = (progressValue: number, total: number | undefined, message: string) => {
      const wait = lastSent + PROGRESS_MIN_GAP_MS - performance.now();
      if (wait <= 0) return send(progressValue, total, message);
      clearTimeout(trailing);
      trailing = setTimeout(() => send(progressValue, total, message), wait);
      trailing.unref();
    };
    let done = 0;
    let total: number | undefined;
    let beats = 0;
    const onProgress =
      token === undefined
        ? undefined
        : (d: number, t: number, status: HostStatus) => {
            done = d;
            total = t;
            beats = 0;
            progress(d, t, `${status.host}: ${status.status}`);
          };
    // While hosts are still walking, progress keeps coming (clients that reset their timeout on
    // progress keep waiting): each beat rises, staying below the next host's count.
    const heartbeat =
      token === undefined
        ? undefined
        : setInterval(() => {
            if (total !== undefined && done >= total) return;
            beats++;
            const waiting = total === undefined ? 'hosts' : `${total - done} of ${total} hosts`;
            progress(done + 1 - 1 / (beats + 1), total, `waiting for ${waiting}`);
          }, deps.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
    heartbeat?.unref();
    // notifications/cancelled aborts the call's signal with the transport still up; a transport
    // going away aborts it while closing (it is gone a moment later): only the first cancels a scan.
    const cancel = new AbortController();
    const onAbort = () =>
      queueMicrotask(() => {
        if (server.server.transport !== undefined) cancel.abort(extra.signal.reason);
      });
    if (!run) extra.signal.addEventListener('abort', onAbort, { once: true });
    const ctx: ToolContext = {
      fleet: deps.fleet,
      options,
      signal: run?.signal ?? extra.signal,
      cancel: run?.signal ?? cancel.signal,
      onProgress: run?.onProgress ?? onProgress,
      // A task waits for its whole scan, which answers whole when it is done.
      deadlineAt: run ? performance.now() + options.scanDeadlineMs : undefined,
      pages,
      scans,
      principal,
      audit: { logger: deps.logger, caller: deps.caller ?? 'stdio' },
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
      return { isError: true, content: [{ type: 'text', text }] };
    } finally {
      ended = true;
      clearInterval(heartbeat);
      clearTimeout(trailing);
      extra.signal.removeEventListener('abort', onAbort);
    }
  };

  // Arguments are checked once, by runTool, for every face: the SDK's own check of the input
  // schema would answer a wrong type first, in its words ("MCP error -32602: Input validation
  // error … at depth"), beside ours for a value out of bounds. One style, a tool result the
  // model corrects from (SEP-1303): the schema is still advertised whole in tools/list.
  (server as unknown as { validateToolInput: (t: unknown, args: unknown) => Promise<unknown> }).validateToolInput =
    async (_tool, args) => args ?? {};
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
      (args: unknown, extra: Extra) => call(tool, args, extra),
    );
  }
  const scanned = new Map(TOOLS.filter((t) => t.scan !== undefined).map((t) => [t.name, t]));
  compactToolList(server, new Set(scanned.keys()));
  // A task-augmented call of a fan-out tool answers its task at once and runs on; any other
  // call (no `task`, or a tool that answers within its call) takes the ordinary route.
  const handlers = requestHandlers(server);
  const plain = handlers.get('tools/call');
  if (plain) {
    handlers.set('tools/call', async (request, extra) => {
      const params = (request as { params: { name: string; arguments?: unknown; task?: { ttl?: number | null } } })
        .params;
      const tool = scanned.get(params.name);
      if (!params.task || !tool) return plain(request, extra);
      const run = tasks.create(principal, params.task.ttl);
      void call(tool, params.arguments ?? {}, extra as Extra, run).then(run.finish);
      return { task: run.task };
    });
  }
  registerMcpApps(server);
  return server;
}

type Handler = (r: unknown, e: unknown) => Promise<unknown>;

function requestHandlers(server: McpServer): Map<string, Handler> {
  return (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
}

type Json = Record<string, unknown>;

/**
 * tools/list as a model pays for it, ≤ 10 KB whole (it is read into every conversation):
 * input schemas whole but for the `$schema` line; output schemas name each field of the
 * answer and its JSON type, not the fields of every row nor which are always there (the
 * descriptions and the text say those); `execution` only when it is not the spec's default
 * (`taskSupport: forbidden`). A looser output schema is still one every answer conforms to.
 */
function compactToolList(server: McpServer, taskTools: ReadonlySet<string>): void {
  const handlers = requestHandlers(server);
  const list = handlers.get('tools/list');
  if (!list) return;
  handlers.set('tools/list', async (request, extra) => {
    const r = (await list(request, extra)) as { tools: Json[] };
    return {
      ...r,
      tools: r.tools.map((t) => {
        const { $schema: _in, ...schema } = t.inputSchema as Json;
        const inputSchema = { ...schema, properties: leanProperties(schema.properties as Record<string, Json>) };
        const { execution, ...rest } = t;
        // A fan-out tool may run as an MCP task (mcp-tasks.ts); the SDK registered it as a plain tool.
        const lean = taskTools.has(t.name as string)
          ? { ...rest, execution: { taskSupport: 'optional' } }
          : (execution as Json | undefined)?.taskSupport === 'forbidden'
            ? rest
            : t;
        return t.outputSchema
          ? { ...lean, inputSchema, outputSchema: shallowSchema(t.outputSchema as Json) }
          : { ...lean, inputSchema };
      }),
    };
  });
}

/**
 * String length bounds (paths, selectors, cursors, filter texts: none a model comes near) stay
 * the gateway's to enforce and name; a choice of plain types is one `type` list, not an anyOf.
 */
function leanProperties(props: Record<string, Json> = {}): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(props)) {
    const { minLength: _min, maxLength: _max, anyOf, ...rest } = v;
    const types = (anyOf as Json[] | undefined)?.map((a) => a.type);
    out[k] =
      anyOf === undefined
        ? rest
        : types?.every((t) => typeof t === 'string')
          ? { ...rest, type: types }
          : { ...rest, anyOf };
  }
  return out;
}

function shallowSchema(schema: Json): Json {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const shallow: Record<string, Json> = {};
  for (const [k, v] of Object.entries(props)) {
    shallow[k] = v.const !== undefined ? { const: v.const } : v.type !== undefined ? { type: v.type } : {};
  }
  return { type: 'object', properties: shallow };
}
