// The agent on NATS: one connection (reconnecting forever), the responder on its own
// subjects and its presence in the registry. Built from the agent's configuration and the
// same handlers as the gRPC listener.

import type { AgentNatsConfig } from '@fleetls/runtime/nats';
import { connectNats, hostToken, type Registration } from '@fleetls/runtime/nats';
import type { Logger } from 'pino';
import type { AgentCallHandlers } from '../service/service.js';
import { startPresence } from './nats-presence.js';
import { startNatsResponder } from './nats-responder.js';

export interface NatsAgent {
  /** The server the connection is on now. */
  server(): string;
  close(): Promise<void>;
}

export async function startNatsAgent(deps: {
  nats: AgentNatsConfig;
  handlers: AgentCallHandlers;
  logger: Logger;
  keepaliveMs?: number;
}): Promise<NatsAgent> {
  const { nats, handlers } = deps;
  const logger = deps.logger.child({ nats: nats.name });
  // Its own inbox prefix, so that the server can let it subscribe to its inboxes and no others'.
  const nc = await connectNats(nats, {
    name: `fleetls-agent ${nats.name}`,
    inboxPrefix: `_INBOX_${hostToken(nats.name)}`,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect')
        logger.info({ event: s.type, server: nc.getServer() }, `nats ${s.type}`);
      else if (s.type === 'error') logger.warn({ err: String((s as { error?: unknown }).error) }, 'nats error');
    }
  })().catch(() => undefined);
  const responder = startNatsResponder({ nc, name: nats.name, handlers, logger, keepaliveMs: deps.keepaliveMs });
  const registration: Registration = {
    name: nats.name,
    labels: nats.labels,
    groups: nats.groups,
    version: handlers.version,
    capabilities: ['walk', 'stat', ...handlers.features],
    heartbeatMs: nats.heartbeatMs,
    startedAt: new Date().toISOString(),
  };
  // Subscriptions reach the server before the registration says the host is there.
  await nc.flush();
  const presence = startPresence({ nc, registration, logger, servers: nats.servers });
  await presence.beat();
  logger.info({ server: nc.getServer(), servers: nats.servers }, 'serving on NATS');
  return {
    server: () => nc.getServer(),
    async close() {
      presence.stop();
      await responder.close();
      await nc.drain().catch(() => nc.close());
    },
  };
}
