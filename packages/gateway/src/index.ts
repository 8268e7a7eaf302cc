// @fleetls/gateway: the MCP server, CLI and Fleet API of fleetls, as factories (main.ts is the
// only side-effecting file). Symbols above are the gateway's product surface: its servers, the
// fleet, the inventory, options and the tool registry.

export {
  AGENT_RETRY_MS,
  createFallbackBackend,
  type FallbackOptions,
  type SshHostConfig,
  viaOf,
  type WithVia,
} from '@fleetls/hosts';
// Symbols below are the gateway's parts, for tests, the bench and other fleetls packages.
export {
  AGENT_VERSION_METADATA,
  type AgentBackendOptions,
  type AgentTlsFiles,
  createAgentBackend,
  fleetErrorFromGrpc,
} from '@fleetls/hosts/agent';
export {
  classifySshError,
  createSshBackend,
  fingerprint,
  type HostKeyVerdict,
  resolveSshConfig,
  resolveTarget,
  SFTP_NOTE,
  SFTP_STAT_NOTE,
  type SshBackend,
  type SshBackendOptions,
  type SshConfigEntry,
  SshConnection,
  type SshTarget,
  type SshWalkSummary,
  verifyHostKey,
} from '@fleetls/hosts/ssh';
// A tool's CLI flags are the CLI face's (faces/cli/tool-flags.ts): exported here, not by tools/.
export { type ToolFlag, toolArgs, toolFlags } from './faces/cli/tool-flags.js';
export { type FleetGrpcServer, type FleetTlsFiles, startFleetGrpcServer } from './faces/fleet-api/server.js';
export {
  FLEET_API_PREFIX,
  type HttpServerDeps,
  MCP_PATH,
  METRICS_PATH,
  startHttpServer,
} from './faces/mcp/http.js';
export {
  createMcpServer,
  type McpServerDeps,
  SERVER_NAME,
  SERVER_VERSION,
} from './faces/mcp/server.js';
export { serveStdio } from './faces/mcp/stdio.js';
export {
  type FanOutOptions,
  fanOut,
  type HostResult,
  hostSignals,
  PartialFailure,
} from './fleet/fan-out.js';
export {
  createFleet,
  type LoadedFleet,
  type LoadFleetOptions,
  loadFleet,
  type TransportFactories,
} from './fleet/fleet.js';
export {
  DEFAULT_GATEWAY_OPTIONS,
  type GatewayOptions,
  resolveGatewayOptions,
} from './fleet/options.js';
export {
  globToRegExp,
  selectHosts,
} from './fleet/selector.js';
export {
  type AgentTls,
  agentSocketProblem,
  DEFAULT_INVENTORY_FILE,
  fail,
  HOST_NAME_RE,
  type Inventory,
  type InventoryDefaults,
  type InventoryHost,
  isAgentAddress,
  LOCALHOST,
  Problems,
  parseInventory,
  resolveFilePath,
} from './inventory/inventory.js';
export { type InventoryLocation, loadInventory, resolveInventoryPath } from './inventory/inventory-file.js';
export {
  createLogger,
  droppedLogLines,
  type Logger,
  SECRET_KEYS,
} from './logger.js';
export { createGatewayMetrics, type GatewayMetrics } from './metrics/metrics.js';
export {
  type AnyTool,
  type CliFace,
  defineTool,
  findTool,
  inputJsonSchema,
  type McpAnswer,
  runTool,
  TOOLS,
  type Tool,
  type ToolContext,
  type ToolResult,
} from './tools/index.js';
