// The agent's gRPC server: the Agent service, grpc.health.v1, reflection, bearer-token
// auth (health exempt), mTLS or loopback plaintext, credentials reloaded on demand, and a
// graceful shutdown.
import { NOOP_OBSERVER, type Observer } from '@fleetls/core';
import { SERVICE_NAME } from '@fleetls/proto/agent-service';
import { callerOf, metricsInterceptor } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/config.js';
import { loadCredentials } from '../config/credentials.js';
import { auditRpc } from '../service/audit.js';
import { resolveRoots } from '../service/policy.js';
import { type AgentCallHandlers, addAgentService } from '../service/service.js';
import { AGENT_VERSION } from '../version.js';
import { AgentHealth } from './health.js';
import { addReflection } from './reflection.js';
import { logTlsRefusals } from './tls-refusals.js';
import { clearStaleSocket, removeSocket, resolveGroup, secureSocket } from './unix-socket.js';

export interface AgentServer {
  /** Binds; `port` is 0 on a Unix socket. */
  start(): Promise<{ port: number }>;
  /** NOT_SERVING, let in-flight calls finish, force after `graceMs`. */
  shutdown(graceMs?: number): Promise<void>;
  /** Re-reads certificate, key, CA and token (SIGHUP); throws, keeping the old ones, if any is bad. */
  reload(): void;
}

/** The audit line of a call the token check refused, but for its caller and RPC. */
const REFUSED = { path: undefined, rows: 0, bytes: 0, ms: 0, outcome: 'unauthenticated' } as const;

export function createAgentServer(
  config: AgentConfig,
  logger: Logger,
  observer: Observer = NOOP_OBSERVER,
  handlers?: AgentCallHandlers,
): AgentServer {
  // Metrics first, so that a call the token check refuses is counted too.
  const interceptors: grpc.ServerInterceptor[] = observer === NOOP_OBSERVER ? [] : [metricsInterceptor(observer)];
  // A call the token check refuses never reaches the service: its audit line is written here.
  const credentials = loadCredentials(config, (rpc, call) =>
    auditRpc(logger, { ...REFUSED, caller: callerOf(call), rpc }),
  );
  if (credentials.interceptor) interceptors.push(credentials.interceptor);

  const server = new grpc.Server({
    interceptors,
    'grpc.max_send_message_length': 4 << 20,
    'grpc.max_receive_message_length': 1 << 20,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_connection_idle_ms': 600_000,
  });
  const roots = resolveRoots(config.allow, config.pathRootfs);
  addAgentService(server, { config, logger, version: AGENT_VERSION, roots, observer, handlers });
  const health = new AgentHealth({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  addReflection(server);
  let socket: { ino: number } | undefined;

  const bind = (address: string): Promise<number> =>
    new Promise((resolve, reject) => {
      server.bindAsync(address, credentials.server, (err, port) => {
        if (err) reject(new Error(`listen: cannot bind ${address}: ${err.message}`));
        else resolve(port);
      });
    });

  return {
    async start(): Promise<{ port: number }> {
      if (config.unix) {
        socket = await listenUnix(config.unix, server, bind);
        return { port: 0 };
      }
      const address = config.host.includes(':') ? `[${config.host}]:${config.port}` : `${config.host}:${config.port}`;
      const port = await bind(address);
      if (config.tls) logTlsRefusals(server, logger, config.tls.ca);
      return { port };
    },

    reload: () => credentials.reload(),

    shutdown(graceMs = 10_000): Promise<void> {
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(SERVICE_NAME, 'NOT_SERVING');
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger.warn({ graceMs }, 'grace period over: cancelling in-flight calls');
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }).then(() => {
        // Closing the listener unlinks the socket, but forceShutdown does not wait for that
        // and the process exits next.
        if (config.unix && socket) removeSocket(config.unix.path, socket.ino);
      });
    },
  };
}

/** Binds the Unix socket owner-only, then opens it to its group: no moment where others may connect. */
async function listenUnix(
  unix: NonNullable<AgentConfig['unix']>,
  server: grpc.Server,
  bind: (address: string) => Promise<number>,
): Promise<{ ino: number }> {
  const gid = resolveGroup(unix.group);
  await clearStaleSocket(unix.path);
  const umask = process.umask(0o177);
  try {
    await bind(`unix:${unix.path}`);
  } finally {
    process.umask(umask);
  }
  try {
    return secureSocket(unix, gid);
  } catch (err) {
    server.forceShutdown(); // closing the listener unlinks its socket
    throw err;
  }
}
