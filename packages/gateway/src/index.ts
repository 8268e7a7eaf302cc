// @fleetls/gateway: the MCP server and CLI of fleetls. Other modules append their exports here.
export * from './fan-out.js';
export * from './options.js';
