// A client of a Fleet gRPC server that sends the bearer token, and the server on port 0 over
// a fleet with that client: what the Fleet API's unit tests each wrote by hand.
import { type FleetClient, loadFleetContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import { type FleetGrpcServer, type FleetGrpcServerOptions, startFleetGrpcServer } from '../faces/fleet-api/server.js';

export interface FleetGrpcClient {
  /** A unary RPC by method name; `metadata` replaces the token's (e.g. none, to test the refusal). */
  call<T>(method: string, req: object, metadata?: grpc.Metadata): Promise<T>;
  /** A server-streaming RPC (Walk) by method name. */
  stream<T>(method: string, req: object): grpc.ClientReadableStream<T>;
  close(): void;
}

type Unary = (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v: unknown) => void) => void;
type Streaming = (r: object, m: grpc.Metadata) => grpc.ClientReadableStream<unknown>;

export function fleetGrpcClient(address: string, token: string): FleetGrpcClient {
  const Fleet = loadFleetContract().proto.fleetls.v1.Fleet;
  const client = new Fleet(address, grpc.credentials.createInsecure()) as unknown as FleetClient;
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${token}`);
  // The generated client is typed per method; tests name methods as strings.
  const method = (name: string) => (client as unknown as Record<string, Unary & Streaming>)[name].bind(client);
  return {
    call: <T>(name: string, req: object, metadata = md) =>
      new Promise<T>((resolve, reject) =>
        method(name)(req, metadata, (err, res) => (err ? reject(err) : resolve(res as T))),
      ),
    stream: <T>(name: string, req: object) => method(name)(req, md) as grpc.ClientReadableStream<T>,
    close: () => client.close(),
  };
}

export interface FleetGrpcTest extends FleetGrpcClient {
  server: FleetGrpcServer;
  /** Closes the client, then the server. */
  stop(): Promise<void>;
}

/** A Fleet gRPC server on 127.0.0.1, port 0, with `token`, and a client of it. */
export async function startFleetGrpcTest(
  options: Omit<FleetGrpcServerOptions, 'host' | 'port' | 'token'> & { token: string },
): Promise<FleetGrpcTest> {
  const server = await startFleetGrpcServer({ ...options, host: '127.0.0.1', port: 0 });
  const client = fleetGrpcClient(server.address, options.token);
  return {
    ...client,
    server,
    stop: async () => {
      client.close();
      await server.close();
    },
  };
}
