// `fleetls serve --grpc HOST:PORT`: the Fleet API on its own gRPC server, with
// grpc.health.v1 (per service) and server reflection, so grpcurl-style clients need no
// .proto. Authentication as on the HTTP port: the bearer token and/or client certificates
// from a CA (mTLS); loopback unless told, and a non-loopback bind refused without either.
import { readFileSync } from 'node:fs';
import { FleetError, invalidArgument, isLoopback, NOOP_OBSERVER } from '@fleetls/core';
import { FLEET_SERVICE_NAME, loadFleetContract } from '@fleetls/proto';
import { metricsInterceptor, tokenDigest, tokenInterceptor } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { addFleetService, type FleetServiceDeps } from './service.js';

export interface FleetTlsFiles {
  cert: string;
  key: string;
  /** Clients must present a certificate this CA signed (mTLS). */
  ca?: string;
}

export interface FleetGrpcServerOptions extends FleetServiceDeps {
  host: string;
  port: number;
  token?: string;
  tls?: FleetTlsFiles;
}

export interface FleetGrpcServer {
  /** host:port as bound (port 0 resolved). */
  address: string;
  close(): Promise<void>;
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw invalidArgument(`${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
}

function credentials(tls: FleetTlsFiles | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  const pair = { cert_chain: readPem(tls.cert, '--grpc-tls-cert'), private_key: readPem(tls.key, '--grpc-tls-key') };
  const ca = tls.ca ? readPem(tls.ca, '--grpc-tls-ca') : null;
  return grpc.ServerCredentials.createSsl(ca, [pair], ca !== null);
}

export async function startFleetGrpcServer(opts: FleetGrpcServerOptions): Promise<FleetGrpcServer> {
  const token = opts.token === '' ? undefined : opts.token;
  if (!token && !opts.grants && !opts.tls?.ca && !isLoopback(opts.host)) {
    throw invalidArgument(
      `--grpc: refusing to serve the Fleet API on ${opts.host} without authentication: give a bearer token (--token-file or FLEETLS_TOKEN) or client certificates (--grpc-tls-ca), or bind 127.0.0.1`,
    );
  }
  const observer = opts.fleet.observer ?? NOOP_OBSERVER;
  // Metrics first, so that calls the token check refuses are counted too.
  const interceptors = [metricsInterceptor(observer)];
  if (token && !opts.grants) {
    // The agent's check: the SHA-256 of the whole header, compared in constant time.
    const expected = tokenDigest(`Bearer ${token}`);
    interceptors.push(tokenInterceptor(() => expected));
  }
  const server = new grpc.Server({ interceptors, 'grpc.max_receive_message_length': 1 << 20 });
  addFleetService(server, opts);
  const health = new HealthImplementation({ '': 'SERVING', [FLEET_SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  // Only the service served here: the agent contract it imports declares fleetls.v1.Agent too.
  // Reflection serves proto-loader's descriptors, loaded once at start and off every call's
  // path: they name fields in lowerCamelCase, which reflection clients built on proto-loader
  // read (protoc's snake_case names, as the generated code carries them, would rename every
  // field for those clients).
  new ReflectionService(loadFleetContract().packageDefinition, { services: [FLEET_SERVICE_NAME] }).addToServer(server);

  const bind = opts.host.includes(':') ? `[${opts.host}]:${opts.port}` : `${opts.host}:${opts.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(bind, credentials(opts.tls), (err, p) =>
      err ? reject(new FleetError('unavailable', `--grpc: cannot bind ${bind}: ${err.message}`)) : resolve(p),
    ),
  );
  const address = opts.host.includes(':') ? `[${opts.host}]:${port}` : `${opts.host}:${port}`;
  opts.logger.info(
    { address, auth: [opts.grants ? 'grants' : token && 'bearer', opts.tls?.ca && 'mtls'].filter(Boolean) },
    'Fleet API listening',
  );
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        health.setStatus(FLEET_SERVICE_NAME, 'NOT_SERVING');
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
