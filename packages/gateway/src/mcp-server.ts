// The gateway's MCP face: five read-only tools over the fleet. Each tool parses its
// arguments with the same zod shapes as the CLI, fans out through the queries, and answers
// structuredContent plus a compact text. Failures are results (isError) a model can read.
import { FleetError, type HostStatus } from '@fleetls/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Fleet } from './fleet-types.js';
import { type GatewayOptions, resolveGatewayOptions } from './options.js';
import type { QueryContext, QueryResult } from './queries/common.js';
import { listDirectories } from './queries/list-directories.js';
import { listDirectory } from './queries/list-directory.js';
import { listFiles } from './queries/list-files.js';
import { listHosts } from './queries/list-hosts.js';
import * as s from './queries/schemas.js';
import { statPaths } from './queries/stat.js';

export const SERVER_NAME = 'fleetls';
export const SERVER_VERSION = '0.1.0';

export interface McpServerDeps {
  fleet: Fleet;
  logger: Logger;
  options?: Partial<GatewayOptions>;
}

const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: true, destructiveHint: false } as const;

const INSTRUCTIONS =
  'fleetls lists directories across a fleet of Linux hosts. Every tool takes `host`: localhost, a name, ' +
  'a comma list, a glob like web-*, @group, label:key=value, or all (list_hosts shows the names). ' +
  'Answers from several hosts carry `host` on every row, are merged in the requested order, and have one ' +
  'status row per host in `hosts`; a failed host never fails the call. Long listings are cut at a size ' +
  'limit and say so; list_files and list_directory go on from next_cursor.';

type Query = (ctx: QueryContext, args: unknown) => Promise<QueryResult<object>>;

export function createMcpServer(deps: McpServerDeps): McpServer {
  const options = resolveGatewayOptions(deps.options);
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );

  const handler =
    (tool: string, query: Query) =>
    async (args: unknown, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
      const log = deps.logger.child({ tool, request: String(extra.requestId) });
      const token = extra._meta?.progressToken;
      const onProgress =
        token === undefined
          ? undefined
          : (done: number, total: number, status: HostStatus) => {
              extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress: done, total, message: `${status.host}: ${status.status}` },
                })
                .catch((err: unknown) => log.debug({ err }, 'progress notification not delivered'));
            };
      const started = performance.now();
      try {
        const r = await query({ fleet: deps.fleet, options, signal: extra.signal, onProgress }, args);
        const hosts = (r.structured as { hosts?: { status: string }[] }).hosts ?? [];
        log.info(
          {
            args,
            ms: Math.round(performance.now() - started),
            hosts: hosts.length,
            failed: hosts.filter((h) => h.status !== undefined && h.status !== 'ok').length,
            bytes: Buffer.byteLength(r.text),
          },
          'tool call',
        );
        return {
          structuredContent: r.structured as Record<string, unknown>,
          content: [{ type: 'text', text: r.text }],
        };
      } catch (err) {
        const fe = FleetError.from(err);
        if (fe.code === 'invalid_argument') log.info({ args, msg: fe.message }, 'bad arguments');
        else log.error({ err, args }, 'tool call failed');
        const text = fe.code === 'invalid_argument' ? `Invalid arguments: ${fe.message}` : `${fe.code}: ${fe.message}`;
        return { isError: true, content: [{ type: 'text', text }] };
      }
    };

  server.registerTool(
    'list_directory',
    {
      title: 'Directory tree on hosts',
      description:
        'Tree of path on each selected host, as DesktopCommander prints it: `[DIR] a/b`, `[FILE] a/b/c`, ' +
        '`[LINK] l -> target`, and `[WARNING] a/b: N items hidden (showing first K of M total)` where a nested ' +
        'directory has more than max_items_per_dir entries (the path itself is never capped). Unreadable ' +
        'entries show as `[DENIED]`/`[NOT_FOUND]`/`[ERROR]` lines, and a directory that did not answer in time (a hung mount) as `[TIMEOUT]`. With several hosts every line starts with `host: `. ' +
        'A tree cut at the size limit ends with next_cursor: pass it as cursor (same arguments) for the next page.',
      inputSchema: s.listDirectoryInput,
      outputSchema: s.listDirectoryOutput,
      annotations: { title: 'Directory tree on hosts', ...ANNOTATIONS },
    },
    handler('list_directory', listDirectory),
  );
  server.registerTool(
    'list_files',
    {
      title: 'Find and rank files on hosts',
      description:
        'One ranked table of the entries under path across the selected hosts (as Jupyter MCP list_files): ' +
        'max_depth levels below path (0 = its own entries), filtered by pattern (glob on the relative path) ' +
        'and type, ordered by name, size or modified, merged across hosts. Pages with start_index/limit or ' +
        'next_cursor; top_n keeps only the first N overall.',
      inputSchema: s.listFilesInput,
      outputSchema: s.listFilesOutput,
      annotations: { title: 'Find and rank files on hosts', ...ANNOTATIONS },
    },
    handler('list_files', listFiles),
  );
  server.registerTool(
    'list_directories',
    {
      title: 'Subdirectories on hosts',
      description:
        'The immediate subdirectories of path on the selected hosts (as Linux MCP Server list_directories), ' +
        'merged in the requested order. order_by=size gives each its recursive apparent size on one file ' +
        'system (du -b --one-file-system); top_n keeps the first N overall.',
      inputSchema: s.listDirectoriesInput,
      outputSchema: s.listDirectoriesOutput,
      annotations: { title: 'Subdirectories on hosts', ...ANNOTATIONS },
    },
    handler('list_directories', listDirectories),
  );
  server.registerTool(
    'stat',
    {
      title: 'File metadata on hosts',
      description:
        'Type, size, mode (octal and rwx), owner, group, uid, gid, modified/accessed/changed times (with the ' +
        'host’s UTC offset), inode, link count and symlink target of path on each selected host (not following a final symlink).',
      inputSchema: s.statInput,
      outputSchema: s.statOutput,
      annotations: { title: 'File metadata on hosts', ...ANNOTATIONS },
    },
    handler('stat', statPaths),
  );
  server.registerTool(
    'list_hosts',
    {
      title: 'Hosts of the fleet',
      description:
        'The inventory hosts a selector picks (default all): name, transport (agent, ssh, embedded), address, ' +
        'labels and groups. check=true probes each in parallel for reachability and agent version.',
      inputSchema: s.listHostsInput,
      outputSchema: s.listHostsOutput,
      annotations: { title: 'Hosts of the fleet', ...ANNOTATIONS },
    },
    handler('list_hosts', listHosts),
  );
  return server;
}
