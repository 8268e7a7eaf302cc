// Which RPC of fleetls.v1.Fleet serves which tool of the registry, and how its result is
// presented. One line per tool; fleet-api.test.ts fails when a tool of the registry has none.
import { diffDirectoryTool } from '../tools/diff-directory.js';
import { diskUsageTool } from '../tools/disk-usage.js';
import { listDirectoriesTool } from '../tools/list-directories.js';
import { listDirectoryTool } from '../tools/list-directory.js';
import { listFilesTool } from '../tools/list-files.js';
import { listHostsTool } from '../tools/list-hosts.js';
import { scanStatusTool } from '../tools/scan-status.js';
import { statTool } from '../tools/stat.js';
import type { AnyTool, Tool, ToolResult } from '../tools/tool.js';
import {
  presentDiff,
  presentDirectories,
  presentDiskUsage,
  presentFiles,
  presentHosts,
  presentScanStatus,
  presentStat,
  presentTree,
} from './present.js';

export interface ToolRpc {
  /** The method of fleetls.v1.Fleet. */
  method: string;
  tool: AnyTool;
  present(result: ToolResult): object;
}

function rpc<A, P, R extends ToolResult>(method: string, tool: Tool<A, P, R>, present: (r: R) => object): ToolRpc {
  return { method, tool, present: present as (r: ToolResult) => object };
}

export const TOOL_RPCS: readonly ToolRpc[] = [
  rpc('ListHosts', listHostsTool, presentHosts),
  rpc('ListDirectory', listDirectoryTool, presentTree),
  rpc('ListFiles', listFilesTool, presentFiles),
  rpc('ListDirectories', listDirectoriesTool, presentDirectories),
  rpc('Stat', statTool, presentStat),
  rpc('DiffDirectory', diffDirectoryTool, presentDiff),
  rpc('DiskUsage', diskUsageTool, presentDiskUsage),
  rpc('ScanStatus', scanStatusTool, presentScanStatus),
];
