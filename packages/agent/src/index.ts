// @fleetls/agent: the fleetls-agent daemon's factories (main.ts is the only side-effecting file).
// The gateway's embedded backend is the subpath @fleetls/agent/embedded.

// Symbols below are the agent's parts, for the gateway's embedded backend, tests and bench.
export { auditRpc, type RpcAudit } from './audit.js';
export { type AgentConfig, parseAgentConfig, type UnixListen } from './config.js';
export { DEFAULT_CONFIG_FILE } from './config-file.js';
export { buildProgram, ConfigExit } from './config-flags.js';
export {
  ConfigError,
  DEFAULT_LISTEN,
  DEFAULT_SOCKET_GROUP,
  DEFAULT_SOCKET_MODE,
  formatMode,
  parseListen,
  parseSocketMode,
  parseUnixListen,
} from './config-values.js';
export { type AgentCredentials, loadCredentials } from './credentials.js';
export { duApparent } from './du-apparent.js';
export { createFsSource, type FsSource, type FsSourceOptions } from './fs-source.js';
export { statRoute } from './fsat.js';
export { createLocalBackend } from './local-backend.js';
export { type AgentMetrics, createAgentMetrics, startMetricsServer } from './metrics.js';
export { type NatsAgent, startNatsAgent } from './nats-agent.js';
export { type NatsResponder, startNatsResponder } from './nats-responder.js';
export { type AllowedRoots, resolveAllowedPath, resolveRoots } from './policy.js';
export { prepareWalk } from './prepare-walk.js';
export { type AgentServer, createAgentServer } from './server.js';
export {
  type AgentCallHandlers,
  type AgentServiceDeps,
  type AgentServiceHandle,
  addAgentService,
  createAgentHandlers,
} from './service.js';
export { groupName, statPath, userName } from './stat.js';
export { AGENT_VERSION } from './version.js';
export { DEFAULT_MAX_CONCURRENT_WALKS } from './walk-admission.js';
export type { CallStatus, WalkCall } from './walk-call.js';
export { WalkCancelled } from './walk-cancelled.js';
export { WalkPool } from './walk-pool.js';
export {
  type RunningWalk,
  startWalk,
  startWireWalk,
  type WalkerOptions,
  type WalkOutcome,
  type WireBatch,
} from './walker.js';
