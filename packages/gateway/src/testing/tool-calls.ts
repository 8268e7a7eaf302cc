// The tools called as the MCP face calls them (runTool, then the MCP presenter), typed by
// their answers, for tests that check answers without an MCP client in between.
import assert from 'node:assert/strict';
import { DEFAULT_GATEWAY_OPTIONS, type GatewayOptions } from '../fleet/options.js';

import type { DiffDirectoryAnswer } from '../tools/diff-directory/index.js';
import type { DiskUsageAnswer } from '../tools/disk-usage/index.js';
import type { ListDirectoriesAnswer } from '../tools/list-directories/index.js';
import { type ListDirectoryAnswer, treeEntryPaths } from '../tools/list-directory/index.js';
import type { ListFilesAnswer } from '../tools/list-files/index.js';
import type { ListHostsAnswer } from '../tools/list-hosts/index.js';
import { findTool } from '../tools/registry.js';
import { runTool } from '../tools/run-tool.js';
import type { StatAnswer } from '../tools/stat/index.js';
import type { ToolContext } from '../tools/tool.js';
import { assertConforms } from './contract.js';

export interface Answer<S> {
  structured: S;
  text: string;
}

/** Runs the named tool of the registry and presents it for MCP. */
export async function callTool<S>(name: string, ctx: ToolContext, args: unknown): Promise<Answer<S>> {
  const tool = findTool(name);
  if (!tool) throw new Error(`no tool ${name} in the registry`);
  const answer = tool.mcp(await runTool(tool, args, ctx), ctx);
  assertConforms(name, answer.structured);
  return { structured: answer.structured as S, text: answer.text };
}

export const listDirectory = (ctx: ToolContext, args: unknown) =>
  callTool<ListDirectoryAnswer>('list_directory', ctx, args);
export const listFiles = (ctx: ToolContext, args: unknown) => callTool<ListFilesAnswer>('list_files', ctx, args);
export const listDirectories = (ctx: ToolContext, args: unknown) =>
  callTool<ListDirectoriesAnswer>('list_directories', ctx, args);
export const statPaths = (ctx: ToolContext, args: unknown) => callTool<StatAnswer>('stat', ctx, args);
export const listHosts = (ctx: ToolContext, args: unknown) => callTool<ListHostsAnswer>('list_hosts', ctx, args);
export const diffDirectory = (ctx: ToolContext, args: unknown) =>
  callTool<DiffDirectoryAnswer>('diff_directory', ctx, args);
export const diskUsage = (ctx: ToolContext, args: unknown) => callTool<DiskUsageAnswer>('disk_usage', ctx, args);

/** A call's context: the default options but for `options`, a signal never aborted, then `extra`. */
export function toolContext(
  fleet: ToolContext['fleet'],
  options: Partial<GatewayOptions> = {},
  extra: Partial<ToolContext> = {},
): ToolContext {
  return { fleet, options: { ...DEFAULT_GATEWAY_OPTIONS, ...options }, signal: new AbortController().signal, ...extra };
}

/** list_files followed cursor by cursor to its last page: every page, and its rows as `host:path`. */
export async function listFilesPages(
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<{ rows: string[]; pages: ListFilesAnswer[] }> {
  const rows: string[] = [];
  const pages: ListFilesAnswer[] = [];
  let cursor: string | undefined;
  do {
    const { structured } = await listFiles(ctx, { ...args, ...(cursor ? { cursor } : {}) });
    pages.push(structured);
    for (const it of structured.items) rows.push(`${it.host ?? ''}:${it.path}`);
    cursor = structured.next_cursor;
    assert.ok(pages.length < 5000, 'paging ends');
  } while (cursor !== undefined);
  return { rows, pages };
}

/** list_directory's rows with their paths put back (`dirs[dir]/name`): what tests compare. */
export { treeEntryPaths };

/**
 * list_directory's text lines with each sibling's whole path put back (`  [FILE] c` after
 * `[FILE] a/b` is `[FILE] a/c`): the lines as they read whatever row a page starts at.
 */
export function fullTreeLines(lines: readonly string[]): string[] {
  const dirs = new Map<string, string>();
  return lines.map((line) => {
    const m = /^((?:\S+: )?)( {2})?\[(\w+)\] (.*)$/.exec(line);
    if (!m) return line;
    const [, prefix, indent, tag, rest] = m;
    if (indent) return `${prefix}[${tag}] ${dirs.get(prefix)}/${rest}`;
    const path = rest.split(/ — | -> /)[0];
    dirs.set(prefix, path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
    return line;
  });
}
