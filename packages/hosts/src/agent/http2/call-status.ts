// How a gRPC call to an agent ended, read from what HTTP/2 gives: the status in the trailers
// (or trailers-only headers), else the HTTP status, the RST_STREAM code or the socket's error,
// each mapped by the gRPC spec's own tables (as grpc-js reads them).
import * as http2 from 'node:http2';
import { status } from '@grpc/grpc-js';

const {
  HTTP2_HEADER_STATUS,
  NGHTTP2_CANCEL,
  NGHTTP2_ENHANCE_YOUR_CALM,
  NGHTTP2_INADEQUATE_SECURITY,
  NGHTTP2_NO_ERROR,
} = http2.constants;
const { NGHTTP2_REFUSED_STREAM } = http2.constants;

/** A call that ended without status OK: the gRPC status and the agent's message. */
export class GrpcError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
    readonly headers?: http2.IncomingHttpHeaders,
  ) {
    super(`${status[code] ?? code}: ${details}`);
  }
}

/** An HTTP status that is not 200 → its gRPC status (the gRPC spec's HTTP-to-gRPC table). */
function statusOfHttp(code: number): status {
  switch (code) {
    case 400:
      return status.INTERNAL;
    case 401:
      return status.UNAUTHENTICATED;
    case 403:
      return status.PERMISSION_DENIED;
    case 404:
      return status.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return status.UNAVAILABLE;
    default:
      return status.UNKNOWN;
  }
}

/** A stream reset without a status → its gRPC status (as grpc-js reads RST_STREAM codes). */
function statusOfReset(rstCode: number): status {
  switch (rstCode) {
    case NGHTTP2_REFUSED_STREAM:
      return status.UNAVAILABLE;
    case NGHTTP2_CANCEL:
      return status.CANCELLED;
    case NGHTTP2_ENHANCE_YOUR_CALM:
      return status.RESOURCE_EXHAUSTED;
    case NGHTTP2_INADEQUATE_SECURITY:
      return status.PERMISSION_DENIED;
    default:
      return status.INTERNAL;
  }
}

function decodeMessage(raw: string | string[] | undefined): string {
  const s = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What a finished stream saw: its headers, trailers, reset code and error, and whether the session went. */
export interface StreamEnd {
  headers: http2.IncomingHttpHeaders | undefined;
  trailers: http2.IncomingHttpHeaders | undefined;
  rstCode: number | undefined;
  err: Error | undefined;
  sessionGone: boolean;
}

/** The status a finished stream carries: its trailers (or trailers-only headers), else how it closed. */
export function endStatus({ headers, trailers, rstCode, err, sessionGone }: StreamEnd): GrpcError | undefined {
  const from = trailers?.['grpc-status'] !== undefined ? trailers : headers;
  const raw = from?.['grpc-status'];
  if (raw !== undefined) {
    const code = Number(raw);
    if (code === status.OK) return undefined;
    return new GrpcError(Number.isInteger(code) ? code : status.UNKNOWN, decodeMessage(from?.['grpc-message']), from);
  }
  const http = headers?.[HTTP2_HEADER_STATUS];
  if (http !== undefined && Number(http) !== 200) {
    return new GrpcError(statusOfHttp(Number(http)), `Received HTTP status code ${http}`, headers);
  }
  if (rstCode !== undefined && rstCode !== NGHTTP2_NO_ERROR) {
    return new GrpcError(statusOfReset(rstCode), err?.message ?? `Received RST_STREAM with code ${rstCode}`);
  }
  if (err) return new GrpcError(status.UNAVAILABLE, err.message);
  // The agent died or the link broke: a clean close of the connection carries no status.
  if (sessionGone) return new GrpcError(status.UNAVAILABLE, 'the connection to the agent closed mid-call');
  return new GrpcError(status.UNKNOWN, 'the agent ended the call without a status');
}
