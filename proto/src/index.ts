// The fleetls wire contract: the .proto, its generated types and the one set of
// loader options that the generator flags mirror (see package.json "generate").
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from './gen/agent.js';

export const PROTO_DIR = fileURLToPath(new URL('..', import.meta.url));
export const PROTO_FILE = 'fleetls/v1/agent.proto';

/** Must match the flags of `npm run generate`, or the generated types lie. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

export const SERVICE_NAME = 'fleetls.v1.Agent';

let cached: { packageDefinition: protoLoader.PackageDefinition; proto: ProtoGrpcType } | undefined;

/** Loads the contract once per process. */
export function loadContract(): { packageDefinition: protoLoader.PackageDefinition; proto: ProtoGrpcType } {
  if (!cached) {
    const packageDefinition = protoLoader.loadSync(PROTO_FILE, LOADER_OPTIONS);
    const proto = grpc.loadPackageDefinition(packageDefinition) as unknown as ProtoGrpcType;
    cached = { packageDefinition, proto };
  }
  return cached;
}

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
