// The agent's gRPC server: the Agent service, grpc.health.v1, reflection, bearer-token
// auth (health exempt), mTLS or loopback plaintext, and a graceful shutdown.
import { createHash, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import { NOOP_OBSERVER, type Observer } from '@fleetls/core';
import { loadContract, SERVICE_NAME } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import type { AgentConfig } from './config.js';
import { metricsInterceptor } from './metrics.js';
import { resolveRoots } from './policy.js';
import { addAgentService } from './service.js';
import { clearStaleSocket, removeSocket, resolveGroup, secureSocket } from './unix-socket.js';
import { AGENT_VERSION } from './version.js';
import { warmWalker } from './walker.js';

export interface AgentServer {
  /** Binds; `port` is 0 on a Unix socket. */
  start(): Promise<{ port: number }>;
  /** NOT_SERVING, let in-flight calls finish, force after `graceMs`. */
  shutdown(graceMs?: number): Promise<void>;
}

const HEALTH_PREFIX = '/grpc.health.v1.Health/';

function digest(s: string | Buffer): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Bearer-token check in constant time (the digests have equal length whatever the input). */
export function tokenInterceptor(token: string): grpc.ServerInterceptor {
  const expected = digest(`Bearer ${token}`);
  return (method, call) =>
    new grpc.ServerInterceptingCall(
      call,
      new grpc.ResponderBuilder()
        .withStart((next) => {
          next(
            new grpc.ServerListenerBuilder()
              .withOnReceiveMetadata((md, nextMd) => {
                if (method.path.startsWith(HEALTH_PREFIX)) {
                  nextMd(md);
                  return;
                }
                const got = md.get('authorization')[0];
                if (got !== undefined && timingSafeEqual(digest(String(got)), expected)) {
                  nextMd(md);
                } else {
                  call.sendStatus({
                    code: grpc.status.UNAUTHENTICATED,
                    details: got === undefined ? 'missing bearer token' : 'bad bearer token',
                    metadata: new grpc.Metadata(),
                  });
                }
              })
              .build(),
          );
        })
        .build(),
    );
}

function readFile(path: string, key: string): Buffer {
  try {
    return fs.readFileSync(path);
  } catch (err) {
    throw new Error(`${key}: cannot read ${path}: ${(err as Error).message}`);
  }
}

export function readToken(path: string): string {
  const token = readFile(path, 'token_file').toString('utf8').trim();
  if (token === '') throw new Error(`token_file: ${path} is empty`);
  return token;
}

export function createAgentServer(
  config: AgentConfig,
  logger: Logger,
  observer: Observer = NOOP_OBSERVER,
): AgentServer {
  // Metrics first, so that a call the token check refuses is counted too.
  const interceptors: grpc.ServerInterceptor[] = observer === NOOP_OBSERVER ? [] : [metricsInterceptor(observer)];
  if (config.tokenFile) interceptors.push(tokenInterceptor(readToken(config.tokenFile)));
  let credentials: grpc.ServerCredentials;
  if (config.tls) {
    credentials = grpc.ServerCredentials.createSsl(
      readFile(config.tls.ca, 'tls_ca'),
      [{ cert_chain: readFile(config.tls.cert, 'tls_cert'), private_key: readFile(config.tls.key, 'tls_key') }],
      true,
    );
  } else {
    credentials = grpc.ServerCredentials.createInsecure();
  }

  const server = new grpc.Server({
    interceptors,
    'grpc.max_send_message_length': 4 << 20,
    'grpc.max_receive_message_length': 1 << 20,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_connection_idle_ms': 600_000,
  });
  const roots = resolveRoots(config.allow);
  addAgentService(server, { config, logger, version: AGENT_VERSION, roots, observer });
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  new ReflectionService(loadContract().packageDefinition).addToServer(server);
  let socket: { ino: number } | undefined;

  const bind = (address: string): Promise<number> =>
    new Promise((resolve, reject) => {
      server.bindAsync(address, credentials, (err, port) => {
        if (err) reject(new Error(`listen: cannot bind ${address}: ${err.message}`));
        else resolve(port);
      });
    });

  return {
    async start(): Promise<{ port: number }> {
      warmWalker();
      if (config.unix) {
        const unix = config.unix;
        const gid = resolveGroup(unix.group);
        await clearStaleSocket(unix.path);
        // Created owner-only, then opened to the group: no moment where others may connect.
        const umask = process.umask(0o177);
        try {
          await bind(`unix:${unix.path}`);
        } finally {
          process.umask(umask);
        }
        try {
          socket = secureSocket(unix, gid);
        } catch (err) {
          server.forceShutdown(); // closing the listener unlinks its socket
          throw err;
        }
        return { port: 0 };
      }
      const address = config.host.includes(':') ? `[${config.host}]:${config.port}` : `${config.host}:${config.port}`;
      return { port: await bind(address) };
    },

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
