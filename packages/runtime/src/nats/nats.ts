// @fleetls/runtime/nats: the NATS contract the gateway shares with the agent (subjects,
// headers, framing, the registration) and the connection settings; no responder, no gRPC.

export { frame } from '../grpc/frame.js';
export { type AgentNatsConfig, natsHostOf, parseAgentNats, parseNatsServers } from './config.js';
export {
  CONNECT_TIMEOUT_MS,
  type ConnectExtra,
  clusterReplicas,
  connectNats,
  type NatsSettings,
  natsAuthenticator,
  natsConnectOptions,
  natsProblem,
} from './connect.js';
export { accountsConf, agentPermissions, gatewayPermissions, NATS_ACCOUNT } from './permissions.js';
export {
  agentSubjects,
  CHUNK_BYTES,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_SUBJECT_PREFIX,
  DEFAULT_WINDOW,
  HDR,
  hostFromToken,
  hostToken,
  KEEPALIVE_MS,
  MAX_HEARTBEAT_MS,
  MIN_HEARTBEAT_MS,
  MISSED_HEARTBEATS,
  REGISTRY_BUCKET,
  REGISTRY_FORGET_MS,
  type Registration,
} from './protocol.js';
