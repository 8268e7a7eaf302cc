// @fleetls/gateway: the MCP server and CLI of fleetls. Other modules append their exports here.

export * from './agent-client.js';
export * from './fan-out.js';
export * from './fleet.js';
export { fleetServiceDescriptor } from './fleet-api/connect-descriptor.js';
export { type FleetGrpcServer, type FleetTlsFiles, startFleetGrpcServer } from './fleet-api/server.js';
export * from './inventory.js';
export * from './logger.js';
export * from './mcp-server.js';
export { createGatewayMetrics, type GatewayMetrics } from './metrics/metrics.js';
export * from './options.js';
export * from './selector.js';
export * from './serve-http.js';
export * from './serve-stdio.js';
export * from './ssh/index.js';
export * from './tools/index.js';
