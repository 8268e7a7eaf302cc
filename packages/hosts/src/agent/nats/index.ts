// The agent client over NATS: loaded only when the inventory names a NATS fleet.
export { createNatsBackend } from './backend.js';
export { openRetried } from './open-retried.js';
export type { HostIdentity, NatsRegistry, RegisteredHost } from './registry.js';
export { boundHeartbeat, claimsBeyond, isFresh, openRegistryBucket, watchRegistry } from './registry.js';
