// The gateway logs through the one fleetls logger configuration (@fleetls/runtime).
export { createLogger, droppedLogLines, type Logger, REDACT_PATHS } from '@fleetls/runtime/logger';
