// @fleetls/gateway/testing: the in-memory fleet and the tools called as MCP presents them,
// for tests in this package and in test/. Not part of the product's surface.

// The agent client's channel alone, for the gRPC client bench (bench/src/sections/grpc-client.ts).
export { createAgentChannel } from '@fleetls/hosts/agent';
export { problemsOf } from './config-problems.js';
export { assertCliJson, assertConforms, assertConformsTo, declaredOutputSchema, withContract } from './contract.js';
export {
  DeadBackend,
  dir,
  FakeFleet,
  type FakeNode,
  file,
  HangingBackend,
  link,
  MemoryBackend,
  type MemoryBackendOptions,
} from './fake-fleet.js';
export {
  type AnswerCount,
  agentWalk,
  checkRankedAnswer,
  type RankedAnswer,
  silentLoss,
  type WalkOutcome,
} from './load.js';
export { connectMcp, type LinkedClient, linkClient } from './mcp-client.js';
export {
  type Answer,
  callTool,
  diffDirectory,
  diskUsage,
  fullTreeLines,
  listDirectories,
  listDirectory,
  listFiles,
  listHosts,
  statPaths,
  treeEntryPaths,
} from './tool-calls.js';
