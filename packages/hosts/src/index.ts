// @fleetls/hosts: every way the gateway reaches a host. The root holds what every fleet
// needs (the fallback between an agent and SSH); each transport is its own entry point
// (./agent, ./agent/nats, ./over-ssh, ./ssh) so a process loads ssh2 or NATS only when
// its inventory names a host that needs them.
export type { FallbackOptions, WithVia } from './fallback.js';
export { AGENT_RETRY_MS, createFallbackBackend, viaOf } from './fallback.js';
export type { SshHostConfig } from './ssh/types.js';
