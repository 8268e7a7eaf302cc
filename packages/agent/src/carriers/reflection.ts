// gRPC server reflection (v1 and v1alpha) about the agent's contract, answered by
// @fleetls/proto/reflection from constants generated at build time: @grpc/reflection parsed
// its reflection.proto files and decoded the contract's descriptors with proto-loader and
// protobufjs, which an agent asked once by grpcurl then held for the rest of its life
// (+17 MiB of idle RSS, issue 39). Only the agent's own service is there: the contract's file.
import { answerReflection, type ReflectionRequest, reflectionService } from '@fleetls/proto/reflection';
import type * as grpc from '@grpc/grpc-js';

/** Each request answered in turn, the stream ended when the client ends it (as @grpc/reflection does). */
function serverReflectionInfo(call: grpc.ServerDuplexStream<ReflectionRequest, Buffer>): void {
  call.on('end', () => call.end());
  call.on('data', (request: ReflectionRequest) => call.write(answerReflection(request)));
}

export function addReflection(server: Pick<grpc.Server, 'addService'>): void {
  for (const version of ['v1', 'v1alpha'] as const)
    server.addService(reflectionService(version), { ServerReflectionInfo: serverReflectionInfo });
}
