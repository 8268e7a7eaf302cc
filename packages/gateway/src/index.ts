// @fleetls/gateway: the MCP server, CLI and Fleet API of fleetls, as factories (main.ts is the
// only side-effecting file). Symbols above are the gateway's product surface: its servers, the
// fleet, the inventory, options and the tool registry.

// Symbols below are the gateway's parts, for tests, the bench and other fleetls packages.
export {
  AGENT_VERSION_METADATA,
  type AgentBackendOptions,
  type AgentTlsFiles,
  createAgentBackend,
  fleetErrorFromGrpc,
} from './agent-client.js';
export {
  AGENT_RETRY_MS,
  createFallbackBackend,
  type FallbackOptions,
  viaOf,
  type WithVia,
} from './fallback-backend.js';
export {
  type FanOutOptions,
  fanOut,
  type HostResult,
  hostSignals,
  PartialFailure,
} from './fan-out.js';
export { type BackendFactories, createFleet, type LoadedFleet, type LoadFleetOptions, loadFleet } from './fleet.js';
export { type FleetGrpcServer, type FleetTlsFiles, startFleetGrpcServer } from './fleet-api/server.js';
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
} from './inventory.js';
export { type InventoryLocation, loadInventory, resolveInventoryPath } from './inventory-file.js';
export {
  createLogger,
  droppedLogLines,
  type Logger,
  SECRET_KEYS,
} from './logger.js';
export {
  createMcpServer,
  type McpServerDeps,
  SERVER_NAME,
  SERVER_VERSION,
} from './mcp-server.js';
export { createGatewayMetrics, type GatewayMetrics } from './metrics/metrics.js';
export {
  DEFAULT_GATEWAY_OPTIONS,
  type GatewayOptions,
  resolveGatewayOptions,
} from './options.js';
export {
  globToRegExp,
  selectHosts,
} from './selector.js';
export {
  FLEET_API_PREFIX,
  type HttpServerDeps,
  MCP_PATH,
  METRICS_PATH,
  startHttpServer,
} from './serve-http.js';
export { serveStdio } from './serve-stdio.js';
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
  type SshHostConfig,
  type SshTarget,
  type SshWalkSummary,
  verifyHostKey,
} from './ssh/index.js';
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
  type ToolFlag,
  type ToolResult,
  toolArgs,
  toolFlags,
} from './tools/index.js';
