// @fleetls/runtime: the Node-side plumbing every fleetls process shares (the agent and the
// gateway): the logger, the metrics registry, the gRPC server interceptors, token files and
// versions. No domain logic: that is @fleetls/core.

export { readSettingFile } from './credentials/setting-file.js';
export { readToken } from './credentials/token.js';
export { callerOf } from './grpc/caller.js';
export { metricsInterceptor, tokenDigest, tokenInterceptor } from './grpc/interceptors.js';
// Symbols below are for tests and the other fleetls packages' internals. The metrics
// registry is @fleetls/runtime/metrics: prom-client loads only where metrics are served.
export { createLogger, droppedLogLines, LOG_BUFFER_BYTES, type Logger, SECRET_KEYS } from './logger.js';
export { packageVersion } from './version.js';
