// @fleetls/agent/embedded: what the gateway takes from the agent, the backend of `localhost`
// when no inventory names it (the gateway depends on the agent for this alone).
export { createLocalBackend } from './carriers/local-backend.js';
export { startSpareWorker } from './walk/pool.js';
