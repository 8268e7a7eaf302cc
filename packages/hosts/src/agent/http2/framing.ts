// Reading gRPC's length-prefixed message framing (a flag byte, then a 4-byte big-endian length;
// runtime's grpc/frame.ts writes it) and its grpc-timeout header: only what the agent's
// uncompressed calls use.
import { status } from '@grpc/grpc-js';
import { GrpcError } from './call-status.js';

/** The largest message accepted from an agent (grpc-js's max_receive_message_length before). */
export const MAX_MESSAGE_BYTES = 16 << 20;

/** grpc-timeout: at most 8 digits, so long deadlines are sent in seconds. */
export function grpcTimeout(ms: number): string {
  const m = Math.max(1, Math.ceil(ms));
  return m < 1e8 ? `${m}m` : `${Math.min(99_999_999, Math.ceil(m / 1000))}S`;
}

/** Reassembles messages from a stream's chunks, which split and join frames anywhere. */
export class Deframer {
  private pending: Buffer | undefined;

  /** Calls `onMessage` for each whole message; a compressed or oversized frame is the call's failure. */
  push(chunk: Buffer, onMessage: (msg: Buffer) => void): GrpcError | undefined {
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buf.length >= 5) {
      const len = buf.readUInt32BE(1);
      if (buf[0] !== 0) return new GrpcError(status.INTERNAL, 'the agent sent a compressed message');
      if (len > MAX_MESSAGE_BYTES) {
        return new GrpcError(
          status.RESOURCE_EXHAUSTED,
          `Received message larger than max (${len} vs ${MAX_MESSAGE_BYTES})`,
        );
      }
      if (buf.length < 5 + len) break;
      onMessage(buf.subarray(5, 5 + len));
      buf = buf.subarray(5 + len);
    }
    this.pending = buf.length > 0 ? buf : undefined;
    return undefined;
  }

  /** Bytes of a message that never completed. */
  get midMessage(): boolean {
    return this.pending !== undefined;
  }
}
