// The fleetls.v1.Agent service as an agent serves it, with no proto-loader or protobufjs in
// its imports: requests decoded by wire/request-decoder.ts (into what proto-loader made of
// them), answers written by the handlers as ready bytes (wire/fast-encoder.ts). Decoding the
// contract's descriptors with protobufjs at start was most of an idle agent's heap above the
// runtime's (issue 39's idle RSS); clients and test agents keep loadContract() (index.ts).
import type * as grpc from '@grpc/grpc-js';
import { decodeStatRequest, decodeWalkRequest } from './wire/request-decoder.js';

export const SERVICE_NAME = 'fleetls.v1.Agent';
/** Response metadata of every agent call: the agent's version. */
export const AGENT_VERSION_METADATA = 'fleetls-agent-version';
/**
 * Response metadata of every agent call: the request features it applies, comma-separated
 * (core's FILTER_FEATURES names). An agent that sends none applies none.
 */
export const AGENT_FEATURES_METADATA = 'fleetls-agent-features';

const identity = (bytes: Buffer): Buffer => bytes;
const serverSide = (): never => {
  throw new Error("agentService() is a server's definition: a client takes loadContract()'s");
};

/**
 * The Agent service's definition for a grpc-js server: Walk and Stat requests decoded by hand,
 * both answers written as already-encoded bytes (Walk's batches come from the walk worker,
 * its summary and Stat's answer from encodeWalkResponse and encodeStatResponse).
 */
export function agentService(): grpc.ServiceDefinition {
  return {
    Walk: {
      path: `/${SERVICE_NAME}/Walk`,
      requestStream: false,
      responseStream: true,
      originalName: 'walk',
      requestDeserialize: decodeWalkRequest,
      responseSerialize: identity,
      requestSerialize: serverSide,
      responseDeserialize: serverSide,
    },
    Stat: {
      path: `/${SERVICE_NAME}/Stat`,
      requestStream: false,
      responseStream: false,
      originalName: 'stat',
      requestDeserialize: decodeStatRequest,
      responseSerialize: identity,
      requestSerialize: serverSide,
      responseDeserialize: serverSide,
    },
  };
}

export { wireToRequestInput } from './codec.js';
export type { StatRequest__Output as WireStatRequestOut } from './gen/fleetls/v1/StatRequest.js';
export type { WalkRequest__Output as WireWalkRequestOut } from './gen/fleetls/v1/WalkRequest.js';
export { encodeStatResponse, encodeWalkProgress, encodeWalkResponse } from './wire/fast-encoder.js';
export { toStatus } from './wire/grpc-status.js';
export { decodeStatRequest, decodeWalkRequest } from './wire/request-decoder.js';
