// The fleetls wire contract: the .proto files, their generated types, the loader options,
// and the codec between them and the domain (@fleetls/core). The Fleet API's protobuf-es
// code is apart (./fleet_pb, ./agent_pb), so the agent side never loads it; the agent itself
// imports ./agent-service, which serves the contract without proto-loader.
import * as grpc from '@grpc/grpc-js';
import { fleetPackageDefinition, packageDefinition } from './contract.js';
import type { ProtoGrpcType } from './gen/agent.js';

export {
  AGENT_FEATURES_METADATA,
  AGENT_VERSION_METADATA,
  agentService,
  SERVICE_NAME,
} from './agent-service.js';
export { LOADER_OPTIONS, PROTO_DIR, PROTO_FILES } from './contract.js';
export const FLEET_SERVICE_NAME = 'fleetls.v1.Fleet';

let proto: ProtoGrpcType | undefined;

/** Loads the contract once per process. */
export function loadContract(): { packageDefinition: ReturnType<typeof packageDefinition>; proto: ProtoGrpcType } {
  proto ??= grpc.loadPackageDefinition(packageDefinition()) as unknown as ProtoGrpcType;
  return { packageDefinition: packageDefinition(), proto };
}

/**
 * The Agent service to serve with Walk's responses written as already-encoded bytes (the
 * agent's worker encodes its batches; test and bench agents send what they made): Walk's
 * serializer is the identity, every other method the contract's own.
 */
export function encodedWalkService(): grpc.ServiceDefinition {
  const definition = loadContract().proto.fleetls.v1.Agent.service;
  return { ...definition, Walk: { ...definition.Walk, responseSerialize: (bytes: Buffer) => bytes } };
}

/** A unary call's callback: its error, or the answer as proto-loader decodes it. */
export type FleetCallback = (err: grpc.ServiceError | null, res?: unknown) => void;

/** A method of FleetClient, in grpc-js's call shapes: unary with a callback, or Walk's stream. */
export interface FleetMethod {
  (request: object, callback: FleetCallback): grpc.ClientUnaryCall;
  (request: object, metadata: grpc.Metadata | grpc.CallOptions, callback: FleetCallback): grpc.ClientUnaryCall;
  (request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: FleetCallback): grpc.ClientUnaryCall;
  (request: object, metadata?: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<unknown>;
}

/**
 * A grpc-js client of the Fleet API as proto-loader loads fleet.proto, for tests and scripts
 * that read the wire through a runtime other than the server's. Its answers are unknown
 * (plain objects: numbers, enum names): the Fleet API's types are the generated protobuf-es
 * ones (./fleet_pb), and typing this client too took a second generated copy of every message.
 */
export type FleetClient = grpc.Client & Record<string, FleetMethod>;

type FleetProto = { fleetls: { v1: { Fleet: grpc.ServiceClientConstructor } } };
let fleetProto: FleetProto | undefined;

/**
 * Loads the gateway's Fleet API contract through proto-loader once per process: for server
 * reflection (its descriptors, loaded off the call path) and for grpc-js clients. The Fleet
 * face itself decodes and encodes with the generated protobuf-es code (./fleet_pb).
 */
export function loadFleetContract(): {
  packageDefinition: ReturnType<typeof fleetPackageDefinition>;
  proto: FleetProto;
} {
  fleetProto ??= grpc.loadPackageDefinition(fleetPackageDefinition()) as unknown as FleetProto;
  return { packageDefinition: fleetPackageDefinition(), proto: fleetProto };
}

export {
  entryFromWire,
  filterFromWire,
  filterToWire,
  requestToWire,
  rowFromWire,
  rowToWire,
  statFromWire,
  statToWire,
  summaryFromWire,
  summaryToWire,
  toBuffer,
  truncationFromWire,
  wireToRequestInput,
} from './codec.js';
export {
  DIRECTION,
  ENTRY_TYPE,
  type EnumCodec,
  ERROR_CODE,
  ORDER,
  RESUME_ROW,
  SHAPE,
  TRUNCATION_REASON,
} from './enums.js';
export type { ProtoGrpcType } from './gen/agent.js';
export type { AgentClient, AgentHandlers } from './gen/fleetls/v1/Agent.js';
export type { Entry as WireEntry, Entry__Output as WireEntryOut } from './gen/fleetls/v1/Entry.js';
export type { EntryType as WireEntryType } from './gen/fleetls/v1/EntryType.js';
export type { ErrorCode as WireErrorCode } from './gen/fleetls/v1/ErrorCode.js';
export type { ResumeRow as WireResumeRow } from './gen/fleetls/v1/ResumeRow.js';
export type { Row as WireRow, Row__Output as WireRowOut } from './gen/fleetls/v1/Row.js';
export type {
  StatRequest as WireStatRequest,
  StatRequest__Output as WireStatRequestOut,
} from './gen/fleetls/v1/StatRequest.js';
export type {
  StatResponse as WireStatResponse,
  StatResponse__Output as WireStatResponseOut,
} from './gen/fleetls/v1/StatResponse.js';
export type { Summary as WireSummary, Summary__Output as WireSummaryOut } from './gen/fleetls/v1/Summary.js';
export type {
  Truncation as WireTruncation,
  Truncation__Output as WireTruncationOut,
} from './gen/fleetls/v1/Truncation.js';
export type { TruncationReason as WireTruncationReason } from './gen/fleetls/v1/TruncationReason.js';
export type {
  WalkRequest as WireWalkRequest,
  WalkRequest__Output as WireWalkRequestOut,
} from './gen/fleetls/v1/WalkRequest.js';
export type {
  WalkResponse as WireWalkResponse,
  WalkResponse__Output as WireWalkResponseOut,
} from './gen/fleetls/v1/WalkResponse.js';
export { decodeWalkResponse } from './wire/fast-decoder.js';
export {
  encodeStatResponse,
  encodeWalkProgress,
  encodeWalkResponse,
  ProtoWriter,
  WalkResponseEncoder,
} from './wire/fast-encoder.js';
export { codeFromStatus, GRPC_STATUS, toStatus } from './wire/grpc-status.js';
export { decodeStatRequest, decodeWalkRequest } from './wire/request-decoder.js';
