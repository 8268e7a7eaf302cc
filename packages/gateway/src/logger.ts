// The gateway logs through the one fleetls logger configuration (agent/src/logger.ts).
export { createLogger, droppedLogLines, type Logger, REDACT_PATHS } from '@fleetls/agent';
