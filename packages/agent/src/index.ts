// @fleetls/agent: the fleetls-agent daemon's factories (main.ts is the only side-effecting file).
// The gateway's embedded backend is the subpath @fleetls/agent/embedded.

export { type AgentServer, createAgentServer } from './carriers/grpc.js';
export { createLocalBackend } from './carriers/local-backend.js';
export { type NatsAgent, startNatsAgent } from './carriers/nats-agent.js';
export { type NatsResponder, startNatsResponder } from './carriers/nats-responder.js';
export { type AgentConfig, parseAgentConfig, type UnixListen } from './config/config.js';
export { type AgentCredentials, loadCredentials } from './config/credentials.js';
export { DEFAULT_CONFIG_FILE } from './config/file.js';
export { buildProgram, ConfigExit } from './config/flags.js';
export {
  ConfigError,
  DEFAULT_LISTEN,
  DEFAULT_SOCKET_GROUP,
  DEFAULT_SOCKET_MODE,
  formatMode,
  parseListen,
  parseSocketMode,
  parseUnixListen,
} from './config/values.js';
export { duApparent } from './du/apparent.js';
export { statRoute } from './fs/fsat.js';
export { createFsSource, type FsSource, type FsSourceOptions } from './fs/source.js';
// Symbols below are the agent's parts, for the gateway's embedded backend, tests and bench.
export { auditRpc, type RpcAudit } from './service/audit.js';
export { type AgentMetrics, createAgentMetrics, startMetricsServer } from './service/metrics.js';
export { type AllowedRoots, resolveAllowedPath, resolveRoots } from './service/policy.js';
export { prepareWalk } from './service/prepare-walk.js';
export {
  type AgentCallHandlers,
  type AgentServiceDeps,
  type AgentServiceHandle,
  addAgentService,
  createAgentHandlers,
} from './service/service.js';
export { groupName, statPath, userName } from './service/stat.js';
export { DEFAULT_MAX_CONCURRENT_WALKS } from './service/walk-admission.js';
export type { CallStatus, WalkCall } from './service/walk-call.js';
export { AGENT_VERSION } from './version.js';
export { WalkCancelled } from './walk/cancelled.js';
export { WalkPool } from './walk/pool.js';
export {
  type RunningWalk,
  startWalk,
  startWireWalk,
  type WalkerOptions,
  type WalkOutcome,
  type WireBatch,
} from './walk/walker.js';
