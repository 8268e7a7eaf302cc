// What a tool is: its declaration (name, words, schemas) and its three steps. `plan` turns
// validated arguments into per-host requests, `collect` fans them out and merges the
// answers into a domain result (no MCP, CLI or gRPC types in it), and each face presents
// that result its own way. registry.ts lists the tools; run-tool.ts is where a call runs.
import type { z } from 'zod';
import type { ScanFace, ToolContext, ToolResult } from '../scans/call.js';
import type { Parsed } from './schemas.js';
import type { Style } from './shared/cli-format.js';

// The call's context and result, and the scan face, are declared below tools/ (scans/call.ts),
// where a scan takes them; a tool's author finds the whole contract here.
export type {
  HostTask,
  ScanFace,
  ScanInfo,
  ScanKeeper,
  ScanPage,
  ToolAudit,
  ToolContext,
  ToolResult,
} from '../scans/call.js';

/** The MCP face of a result: `structured` matches the tool's outputSchema, `text` is its compact rendering. */
export interface McpAnswer<S = Record<string, unknown>> {
  structured: S;
  text: string;
}

/**
 * The CLI face: one subcommand. Its flags are derived from the tool's input (faces/cli/tool-flags.ts);
 * the face says only what the schema cannot.
 */
export interface CliFace<R> {
  command: string;
  description: string;
  /** commander syntax, e.g. `<SELECTOR:PATH>` (`hostPathArgument`) or `[SELECTOR]`: the tool's host and path. */
  argument: CliArgument;
  /** Defaults of the CLI that differ from the tool's (ls lists every type, as ls does). */
  defaults?: Record<string, unknown>;
  /** Arguments the CLI has no flag for (a scan's cursor: a one-shot CLI run keeps no scans). */
  omits?: string[];
  /** Switches that set arguments, e.g. `--desc` for sort=descending. */
  switches?: CliSwitch[];
  /**
   * The CLI shows every row, following the result's pages (`cursorAfter`), unless a page is
   * asked for (--limit, --cursor, --start-index): `ls`, as ls and kubectl get list everything.
   */
  follows?: boolean;
  /** Lines for stdout, and notes (cuts, cursors) for stderr; `failed`: a path could not be listed (exit 1). */
  render(result: R, style: Style): { out: string[]; err: string[]; failed?: boolean };
}

/**
 * The Fleet API face: the tool's RPC of fleetls.v1.Fleet (in fleet.proto, its request fields
 * named as the tool's arguments) and its response of a result, as the init shape of the
 * generated protobuf-es message (MessageInitShape<typeof XResponseSchema>); the Fleet adapter
 * makes the message. No byte budget here: a gRPC client gets the whole page.
 */
export interface FleetFace<R> {
  method: string;
  present(result: R): object;
  /**
   * Request fields the public proto keeps for wire compatibility that the tool no longer takes,
   * each with why: a request that sets one is refused with that, not silently ignored.
   */
  retired?: Record<string, string>;
}

/** A subcommand's positional argument: commander's syntax and its help. */
export interface CliArgument {
  syntax: string;
  description: string;
}

/**
 * The positional argument of a tool that looks at one path on the selected hosts (its input
 * `...s.hostPath`): `SELECTOR:PATH`, split by faces/cli/target.ts; `examples` as the help shows them.
 */
export function hostPathArgument(examples: string): CliArgument {
  return { syntax: '<SELECTOR:PATH>', description: `hosts and absolute path, e.g. ${examples}` };
}

/** A switch of a tool's subcommand that stands for argument values. */
export interface CliSwitch {
  flag: string;
  help: string;
  sets: Record<string, unknown>;
}

/**
 * One tool. Declared with method syntax so a registry of differently typed tools is one
 * list; a face only ever hands a tool's result back to that same tool's presenters. `plan`
 * takes what `input` parses to, so a tool names no type for its arguments.
 */
export interface Tool<I extends z.ZodRawShape = z.ZodRawShape, P = unknown, R extends ToolResult = ToolResult> {
  name: string;
  title: string;
  description: string;
  /** Arguments as zod shapes: the MCP inputSchema, and the one parser every face uses. */
  input: I;
  /** The MCP structuredContent's shape (the outputSchema). */
  output: z.ZodRawShape;
  plan(args: Parsed<I>, ctx: ToolContext): P;
  collect(plan: P, ctx: ToolContext): Promise<R>;
  mcp(result: R, ctx: ToolContext): McpAnswer;
  cli?: CliFace<R>;
  /** The Fleet API face: every tool of the registry has one (fleet-api.test.ts checks it). */
  fleet?: FleetFace<R>;
  /** How a call of this tool goes on as a scan past its deadline (every fan-out listing has one; stat answers whole). */
  scan?: ScanFace<P, unknown, R>;
  /** The tool a grant must allow for a call of this one (the Fleet API's Walk is list_directory's); default its name. */
  grantedAs?: string;
}

/** A tool as the registry holds it: its own types checked where it is written, erased here. */
export type AnyTool = Tool<z.ZodRawShape, unknown, ToolResult>;

/** Checks a tool's types where it is written; the registry holds it as an AnyTool. */
export function defineTool<I extends z.ZodRawShape, P, R extends ToolResult>(tool: Tool<I, P, R>): Tool<I, P, R> {
  return tool;
}
