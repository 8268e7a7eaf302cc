// Timing MCP tool calls and writing gateway inventories, shared by the sections that drive
// `fleetls serve` and the peer servers.
import * as fs from 'node:fs';
import type { BenchContext } from '../context.js';
import { type CallOutcome, type McpServerProc, STOCK_CLIENT_LIMIT } from './mcp.js';
import { fmtBytes, fmtInt, fmtMs, fmtRate, sampled } from './stats.js';

/** Rows of each answer shape, counted the same way for every tool. */
function countEntries(tool: string, o: CallOutcome): number {
  if (o.isError) return 0;
  const s = o.structured as Record<string, unknown> | undefined;
  if (tool === 'fleetls:list_directory' && Array.isArray(s?.entries))
    return (s.entries as { hidden?: unknown }[]).filter((e) => e.hidden === undefined).length;
  if (tool === 'fleetls:list_files' && Array.isArray(s?.items)) return (s.items as unknown[]).length;
  if (tool === 'server-filesystem:directory_tree') {
    try {
      const walkNodes = (ns: { children?: unknown[] }[]): number =>
        ns.reduce((n, c) => n + 1 + (Array.isArray(c.children) ? walkNodes(c.children as never) : 0), 0);
      return walkNodes(JSON.parse(o.text));
    } catch {
      return 0;
    }
  }
  return o.text.split('\n').filter((l) => /^\[(DIR|FILE)\]/.test(l)).length;
}

export interface ToolRun {
  server: string;
  tool: string;
  args: string;
  ms: number;
  runs: number;
  entries: number;
  textBytes: number;
  jsonBytes: number;
  error?: string;
}

export function failedRun(server: string, tool: string, args: string, error: string): ToolRun {
  return {
    server,
    tool,
    args,
    ms: Number.NaN,
    runs: 0,
    entries: 0,
    textBytes: Number.NaN,
    jsonBytes: Number.NaN,
    error,
  };
}

export async function timeTool(
  ctx: BenchContext,
  srv: McpServerProc,
  tool: string,
  args: Record<string, unknown>,
  label: string,
  timeoutMs = 150_000,
): Promise<ToolRun> {
  const key = `${srv.name}:${tool}`;
  try {
    const s = await sampled(async () => {
      const o = await srv.call(tool, args, timeoutMs);
      if (o.isError) throw new Error(`${key} returned an error: ${o.text.slice(0, 300)}`);
      return o;
    }, ctx.args.runs);
    const r = {
      server: srv.name,
      tool,
      args: label,
      ms: s.ms,
      runs: s.runs,
      entries: countEntries(key, s.sample),
      textBytes: s.sample.textBytes,
      jsonBytes: s.sample.jsonBytes,
    };
    ctx.log(`${key} ${label}: ${fmtMs(r.ms)}, ${r.entries} entries, ${fmtBytes(r.textBytes)} text`);
    return r;
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0].slice(0, 200);
    ctx.log(`${key} ${label}: FAILED ${msg}`);
    return failedRun(srv.name, tool, label, msg);
  }
}

export function toolRow(tree: string, r: ToolRun): string[] {
  if (r.error) return [tree, r.server, `${r.tool} ${r.args}`, `failed: ${r.error}`, '', '', '', '', ''];
  return [
    tree,
    r.server,
    `${r.tool} ${r.args}`,
    `${fmtMs(r.ms)} (n=${r.runs})`,
    fmtInt(r.entries),
    fmtRate(r.entries / (r.ms / 1000)),
    fmtBytes(r.textBytes),
    r.entries > 0 ? (r.textBytes / r.entries).toFixed(1) : '–',
    `${fmtBytes(r.jsonBytes)}${r.jsonBytes > STOCK_CLIENT_LIMIT ? ' ⚠ over the stock client’s 10 MiB: it drops the connection' : ''}`,
  ];
}

export function writeInventory(file: string, hosts: Record<string, string>, extra = ''): void {
  const lines = ['agent_tls: insecure', 'hosts:'];
  for (const [name, spec] of Object.entries(hosts)) lines.push(`  ${name}:`, `    ${spec}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n${extra}`);
}
