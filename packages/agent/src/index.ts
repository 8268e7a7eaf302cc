// @fleetls/agent: the fleetls-agent daemon's factories (main.ts is the only side-effecting file).

export { auditRpc, callerOf, type RpcAudit } from './audit.js';
export * from './config.js';
export { type AgentCredentials, loadCredentials, readToken, tokenInterceptor } from './credentials.js';
export { createFsSource, duApparent, type FsSourceOptions, WalkCancelled } from './fs-source.js';
export { createLocalBackend } from './local-backend.js';
export { createLogger, droppedLogLines, type Logger, REDACT_PATHS } from './logger.js';
export {
  type AgentMetrics,
  createAgentMetrics,
  logLinesDroppedCounter,
  metricsInterceptor,
  startMetricsServer,
} from './metrics.js';
export { type AllowedRoots, resolveAllowedPath, resolveRoots } from './policy.js';
export { type AgentServer, createAgentServer } from './server.js';
export { type AgentServiceHandle, addAgentService, prepareWalk } from './service.js';
export { groupName, statPath, userName } from './stat.js';
export { AGENT_VERSION } from './version.js';
export {
  type RunningWalk,
  startWalk,
  startWireWalk,
  type WalkerOptions,
  type WalkOutcome,
  type WireBatch,
} from './walker.js';
