// The agent client over HTTP/2 (gRPC): what the gateway loads only when a host has an agent.
export type { AgentBackendOptions, AgentTlsFiles } from './client.js';
export { AGENT_VERSION_METADATA, createAgentBackend, fleetErrorFromGrpc } from './client.js';
export { createAgentChannel } from './http2/channel.js';
export { hostOfAddress } from './http2/tls.js';
