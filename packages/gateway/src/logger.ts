// The gateway logs through the one fleetls logger configuration (@fleetls/runtime).
export { createLogger, droppedLogLines, type Logger, SECRET_KEYS } from '@fleetls/runtime/logger';
