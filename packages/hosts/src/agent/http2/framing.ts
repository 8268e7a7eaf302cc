// gRPC over HTTP/2's own parts of a call: its grpc-timeout header, and a refused framing
// (agent/deframer.ts reads it for every carrier) as the call's status.
import { status } from '@grpc/grpc-js';
import type { FrameProblem } from '../deframer.js';
import { GrpcError } from './call-status.js';

export { MAX_MESSAGE_BYTES } from '../deframer.js';

/** grpc-timeout: at most 8 digits, so long deadlines are sent in seconds. */
export function grpcTimeout(ms: number): string {
  const m = Math.max(1, Math.ceil(ms));
  return m < 1e8 ? `${m}m` : `${Math.min(99_999_999, Math.ceil(m / 1000))}S`;
}

/** A refused framing as the call's status, in grpc-js's words. */
export function framingError(problem: FrameProblem): GrpcError {
  return problem.kind === 'compressed'
    ? new GrpcError(status.INTERNAL, 'the agent sent a compressed message')
    : new GrpcError(status.RESOURCE_EXHAUSTED, `Received message larger than max (${problem.bytes} vs ${problem.max})`);
}
