// The tool registry and what a face needs to run and present a tool.

export { cliWording, type ToolFlag, toolArgs, toolFlags } from './cli-face.js';
export { type DiffDirectoryAnswer, type DirectoryDiff, diffDirectoryTool } from './diff-directory.js';
export { type DiskUsage, type DiskUsageAnswer, diskUsageTool } from './disk-usage.js';
export { type DirectoryListing, type ListDirectoriesAnswer, listDirectoriesTool } from './list-directories.js';
export { type ListDirectoryAnswer, listDirectoryTool, type TreeListing } from './list-directory.js';
export { type FileListing, type ListFilesAnswer, listFilesTool } from './list-files.js';
export { type HostListing, type ListHostsAnswer, listHostsTool } from './list-hosts.js';
export { findTool, TOOLS } from './registry.js';
export { runTool } from './run-tool.js';
export { inputJsonSchema } from './schemas.js';
export { type StatAnswer, type StatListing, statTool } from './stat.js';
export type { AnyTool, CliFace, McpAnswer, Tool, ToolContext, ToolResult } from './tool.js';
export { defineTool } from './tool.js';
