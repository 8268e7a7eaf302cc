// gRPC server reflection (v1 and v1alpha) for the agent's contract, loaded at the first
// reflection call: @grpc/reflection parses its own reflection.proto files with proto-loader
// and protobufjs when added to a server, and decodes the contract's descriptors when made,
// which an agent that is never asked held at rest for nothing (issue 39's idle RSS). The two
// methods are registered at start with bytes in and out; the first call imports the package
// and the contract, and every call is relayed to the package's own handler through its own codec.
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';

const VERSIONS = ['v1', 'v1alpha'] as const;
const METHOD = 'ServerReflectionInfo';

type Real = Map<string, { method: grpc.MethodDefinition<unknown, unknown>; handler: grpc.UntypedHandleCall }>;

/** The package's methods and handlers by path, over the agent contract's descriptors. */
async function loadReal(services: string[]): Promise<Real> {
  const [{ ReflectionService }, { loadContract }] = await Promise.all([
    import('@grpc/reflection'),
    import('@fleetls/proto'),
  ]);
  const real: Real = new Map();
  new ReflectionService(loadContract().packageDefinition, { services }).addToServer({
    addService: (definition, implementation) => {
      for (const [name, method] of Object.entries(definition))
        real.set(method.path, { method, handler: implementation[name] });
    },
  });
  return real;
}

/**
 * The call's messages decoded and the handler's answers encoded with the package's codec,
 * for a handler that uses the stream as @grpc/reflection's does: 'data', 'end', write, end.
 */
function relay(
  call: grpc.ServerDuplexStream<Buffer, Buffer>,
  method: grpc.MethodDefinition<unknown, unknown>,
  handler: grpc.handleBidiStreamingCall<unknown, unknown>,
): void {
  const inner = Object.assign(new EventEmitter(), {
    write: (message: unknown) => call.write(method.responseSerialize(message)),
    end: () => call.end(),
  });
  call.on('data', (bytes: Buffer) => {
    let message: unknown;
    try {
      message = method.requestDeserialize(bytes);
    } catch (err) {
      // What grpc-js answers a request its deserializer refuses.
      call.emit('error', {
        code: grpc.status.INTERNAL,
        details: `Error deserializing request: ${(err as Error).message}`,
      });
      return;
    }
    inner.emit('data', message);
  });
  call.on('end', () => inner.emit('end'));
  handler(inner as unknown as grpc.ServerDuplexStream<unknown, unknown>);
}

/** Reflection over `services` only (the agent's: the bundle's descriptors hold the gateway's too). */
export function addLazyReflection(server: Pick<grpc.Server, 'addService'>, services: string[]): void {
  let real: Promise<Real> | undefined;
  const identity = (bytes: Buffer): Buffer => bytes;
  for (const version of VERSIONS) {
    const path = `/grpc.reflection.${version}.ServerReflection/${METHOD}`;
    const definition: grpc.ServiceDefinition = {
      [METHOD]: {
        path,
        requestStream: true,
        responseStream: true,
        originalName: 'serverReflectionInfo',
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    };
    server.addService(definition, {
      // Messages that arrive before the package is loaded wait in the call's stream: no 'data' listener yet.
      [METHOD]: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        real ??= loadReal(services);
        real
          .then((loaded) => {
            const found = loaded.get(path);
            if (!found) throw new Error(`no handler for ${path}`);
            relay(call, found.method, found.handler as grpc.handleBidiStreamingCall<unknown, unknown>);
          })
          .catch((err: Error) =>
            call.emit('error', { code: grpc.status.INTERNAL, details: `reflection: ${err.message}` }),
          );
      },
    });
  }
}
