// The tool registry and what a face needs to run and present a tool. Tools are reached
// through TOOLS (or findTool), never named here: the registry is the one list of them.

export { findTool, TOOLS } from './registry.js';
export { runTool } from './run-tool.js';
export { inputJsonSchema } from './schemas.js';
export type { AnyTool, CliFace, McpAnswer, Tool, ToolContext, ToolResult } from './tool.js';
export { defineTool } from './tool.js';
