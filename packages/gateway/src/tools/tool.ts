// What a tool is: its declaration (name, words, schemas) and its three steps. `plan` turns
// validated arguments into per-host requests, `collect` fans them out and merges the
// answers into a domain result (no MCP, CLI or gRPC types in it), and each face presents
// that result its own way. registry.ts lists the tools; run-tool.ts is where a call runs.
import type { HostStatus } from '@fleetls/core';
import type { Option } from 'commander';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Style } from '../cli/format.js';
import type { Fleet } from '../fleet-types.js';
import type { GatewayOptions } from '../options.js';
import type { PageStore } from './page-store.js';
import type { ScanFace, ScanInfo } from './scan-face.js';
import type { ScanRegistry } from './scan-registry.js';

/** Where a call's audit line goes (audit.ts), and who called. */
export interface ToolAudit {
  logger: Logger;
  caller: string;
}

export interface ToolContext {
  fleet: Fleet;
  options: GatewayOptions;
  signal: AbortSignal;
  /** When the call must be done (performance.now() time); runTool sets it from options.callDeadlineMs. */
  deadlineAt?: number;
  /** Rankings kept for the pages that follow (a serving face has one; a one-shot CLI run has none). */
  pages?: PageStore;
  /** Once per answered host. */
  onProgress?: (done: number, total: number, status: HostStatus) => void;
  /** Where the call's audit line goes, and who called (audit.ts). */
  audit?: ToolAudit;
  /**
   * The scans of this face (a serving face has them; a one-shot CLI run has none): a fan-out
   * that cannot finish in the call's deadline goes on as a scan its next_cursor continues.
   */
  scans?: ScanRegistry;
  /** Who owns the scans this call starts or continues: the HTTP token, the stdio session. */
  principal?: string;
  /**
   * Aborts when the caller cancels the call itself (MCP notifications/cancelled, Ctrl-C), not
   * when its connection merely goes: a scan stops with it, and outlives a dropped connection.
   */
  cancel?: AbortSignal;
}

/** What every domain result carries, so a face can report hosts without knowing the tool. */
export interface ToolResult {
  /** One status per host asked, in selector order. */
  hosts: HostStatus[];
  /** Set on a page of a scan (a call that outlived its deadline): where the scan stands. */
  scan?: ScanInfo;
}

/** The MCP face of a result: `structured` matches the tool's outputSchema, `text` is its compact rendering. */
export interface McpAnswer<S = Record<string, unknown>> {
  structured: S;
  text: string;
}

/** The CLI face: one subcommand whose positional argument and flags become the tool's arguments. */
export interface CliFace<R> {
  command: string;
  description: string;
  /** commander syntax, e.g. `<SELECTOR:PATH>` or `[SELECTOR]`. */
  argument: { syntax: string; description: string };
  options?: () => Option[];
  /** The tool's arguments from the positional argument and the parsed flags (undefined = the tool's default). */
  args(positional: string | undefined, flags: Record<string, unknown>): Record<string, unknown>;
  /** Lines for stdout, and notes (cuts, cursors) for stderr. */
  render(result: R, style: Style): { out: string[]; err: string[] };
}

/**
 * One tool. Declared with method syntax so a registry of differently typed tools is one
 * list; a face only ever hands a tool's result back to that same tool's presenters.
 */
export interface Tool<A = unknown, P = unknown, R extends ToolResult = ToolResult> {
  name: string;
  title: string;
  description: string;
  /** Arguments as zod shapes: the MCP inputSchema, and the one parser every face uses. */
  input: z.ZodRawShape;
  /** The MCP structuredContent's shape (the outputSchema). */
  output: z.ZodRawShape;
  plan(args: A, ctx: ToolContext): P;
  collect(plan: P, ctx: ToolContext): Promise<R>;
  mcp(result: R, ctx: ToolContext): McpAnswer;
  cli?: CliFace<R>;
  /** How a call of this tool goes on as a scan past its deadline (every fan-out tool has one). */
  scan?: ScanFace<P, unknown, R>;
}

/** A tool as the registry holds it: its own types checked where it is written, erased here. */
export type AnyTool = Tool<unknown, unknown, ToolResult>;

/** Checks a tool's types where it is written; the registry holds it as an AnyTool. */
export function defineTool<A, P, R extends ToolResult>(tool: Tool<A, P, R>): Tool<A, P, R> {
  return tool;
}
