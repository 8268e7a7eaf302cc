// A client of a gRPC service that knows it only through server reflection, as grpcurl does:
// it asks grpc.reflection.v1 for the services and for the file declaring one (with its
// dependencies), builds a package definition from those descriptors, and makes a stub.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const require = createRequire(import.meta.url);
/** The reflection service's own contract, as the @grpc/reflection package ships it. */
const REFLECTION_PROTO = path.join(
  path.dirname(require.resolve('@grpc/reflection/package.json')),
  'build/proto/grpc/reflection/v1/reflection.proto',
);

interface ReflectionResponse {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** Sends each request on one ServerReflectionInfo stream and collects the answers in order. */
async function ask(address: string, metadata: grpc.Metadata, requests: object[]): Promise<ReflectionResponse[]> {
  const def = protoLoader.loadSync(REFLECTION_PROTO, { keepCase: false, longs: Number, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
  };
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  try {
    const call = (
      client as unknown as {
        serverReflectionInfo(md: grpc.Metadata): grpc.ClientDuplexStream<object, ReflectionResponse>;
      }
    ).serverReflectionInfo(metadata);
    const answers: ReflectionResponse[] = [];
    const done = new Promise<ReflectionResponse[]>((resolve, reject) => {
      call.on('data', (r: ReflectionResponse) => {
        answers.push(r);
        if (answers.length === requests.length) call.end();
      });
      call.on('error', reject);
      call.on('end', () => resolve(answers));
    });
    for (const r of requests) call.write(r);
    return await done;
  } finally {
    client.close();
  }
}

export interface Reflected {
  services: string[];
  /** The stub constructor of `service`, built from the reflected descriptors only. */
  Service: grpc.ServiceClientConstructor;
}

export async function reflect(address: string, metadata: grpc.Metadata, service: string): Promise<Reflected> {
  const [list, files] = await ask(address, metadata, [{ listServices: '' }, { fileContainingSymbol: service }]);
  if (files.errorResponse) throw new Error(`reflection: ${files.errorResponse.errorMessage}`);
  const protos = files.fileDescriptorResponse?.fileDescriptorProto ?? [];
  // A FileDescriptorSet is `repeated FileDescriptorProto file = 1`: each file as field 1.
  const set = Buffer.concat(protos.flatMap((p) => [Buffer.from([0x0a, ...varint(p.length)]), p]));
  const def = protoLoader.loadFileDescriptorSetFromBuffer(set, {
    longs: Number,
    enums: String,
    bytes: Buffer,
    defaults: true,
    oneofs: true,
  });
  let node: unknown = grpc.loadPackageDefinition(def);
  for (const part of service.split('.')) node = (node as Record<string, unknown>)[part];
  return {
    services: (list.listServicesResponse?.service ?? []).map((s) => s.name),
    Service: node as grpc.ServiceClientConstructor,
  };
}
