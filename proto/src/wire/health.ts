// grpc.health.v1's three messages by hand, for an agent's health service without proto-loader:
// grpc-health-check loads its .proto with protobufjs when imported. Requests are read by
// protobufjs' own rules (request-decoder.ts's Reader) into what its loader options made of
// them (keepCase, defaults); health.test.ts checks both directions against the package's definition.
import type * as grpc from '@grpc/grpc-js';
import { ProtoWriter } from './fast-encoder.js';
import { Reader, readMessage } from './request-decoder.js';

/** HealthCheckResponse.ServingStatus: name → number. */
export const SERVING_STATUS = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;
export type ServingStatus = keyof typeof SERVING_STATUS;

const HEALTH = 'grpc.health.v1.Health';

/** A HealthCheckRequest's bytes → `{ service }` (field 1), unknown fields skipped. */
function decodeCheckRequest(bytes: Buffer): { service: string } {
  const r = new Reader(bytes);
  const out = { service: '' };
  readMessage(r, undefined, 0, (tag) => {
    if (tag >>> 3 === 1) out.service = r.string();
    else r.skipType(tag & 7, 0);
  });
  return out;
}

/** A HealthListRequest's bytes: no fields; read only to refuse what protobufjs refused. */
function decodeListRequest(bytes: Buffer): Record<string, never> {
  const r = new Reader(bytes);
  readMessage(r, undefined, 0, (tag) => r.skipType(tag & 7, 0));
  return {};
}

function writeStatus(w: ProtoWriter, status: ServingStatus): void {
  w.uint(1, SERVING_STATUS[status]);
}

function encodeCheckResponse(res: { status: ServingStatus }): Buffer {
  const w = new ProtoWriter(16);
  writeStatus(w, res.status);
  return Buffer.from(w.buf.subarray(0, w.pos));
}

/** HealthListResponse: `map<string, HealthCheckResponse> statuses = 1`, one entry message per service. */
function encodeListResponse(res: { statuses: Record<string, { status: ServingStatus }> }): Buffer {
  const w = new ProtoWriter(256);
  const entry = new ProtoWriter(128);
  const value = new ProtoWriter(16);
  for (const [service, { status }] of Object.entries(res.statuses)) {
    entry.reset();
    value.reset();
    entry.bytes(1, Buffer.from(service, 'utf8'));
    writeStatus(value, status);
    entry.message(2, value);
    w.message(1, entry);
  }
  return Buffer.from(w.buf.subarray(0, w.pos));
}

const serverSide = (): never => {
  throw new Error("healthService() is a server's definition: a client takes grpc-health-check's");
};

function method<Req, Res>(
  name: string,
  responseStream: boolean,
  decode: (b: Buffer) => Req,
  encode: (v: Res) => Buffer,
): grpc.MethodDefinition<Req, Res> {
  return {
    path: `/${HEALTH}/${name}`,
    requestStream: false,
    responseStream,
    originalName: name.toLowerCase(),
    requestDeserialize: decode,
    responseSerialize: encode,
    requestSerialize: serverSide,
    responseDeserialize: serverSide,
  };
}

/**
 * grpc.health.v1.Health for a grpc-js server, keyed as grpc-health-check's definition
 * (Check, Watch, List): requests decoded as its loader decoded them, answers `{ status }`
 * and `{ statuses }` with the status by name.
 */
export function healthService(): grpc.ServiceDefinition {
  return {
    Check: method('Check', false, decodeCheckRequest, encodeCheckResponse),
    Watch: method('Watch', true, decodeCheckRequest, encodeCheckResponse),
    List: method('List', false, decodeListRequest, encodeListResponse),
  };
}
