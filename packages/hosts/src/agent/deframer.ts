// Reading gRPC's length-prefixed message framing (a flag byte, then a 4-byte big-endian length;
// runtime's grpc/frame.ts writes it), whichever carrier brought the bytes: HTTP/2 DATA frames or
// NATS slices split and join messages anywhere. Each byte is copied at most once, however a
// message was cut, and a message longer than the bound is refused from its prefix, before any
// of it is held.

/**
 * The largest message taken from an agent. An agent's batches are 32 KiB, plus the row that
 * passed it (a 4 KiB name at depth 64, its link target): 1 MiB is twenty times that, and what a
 * hostile host can make the gateway hold (and decode into rows) per message.
 */
export const MAX_MESSAGE_BYTES = 1 << 20;

const EMPTY = Buffer.alloc(0);

/** Why a stream's framing is refused. */
export type FrameProblem = { kind: 'compressed' } | { kind: 'oversized'; bytes: number; max: number };

export class Deframer {
  /**
   * Chunks not yet read, an array only while bytes wait (a chunk of whole messages is read at
   * once), so that it dies young: one kept for the whole call is allocated in the old generation
   * by V8's pretenuring once a fan-out's hosts all hold one, and pins the chunks pushed into it
   * until the next full collection (agent/http2/channel.ts, StartedCall).
   */
  private chunks: Buffer[] | undefined;
  private held = 0;
  /** The length of the message being read, once its prefix is in; -1 before. */
  private need = -1;

  constructor(private readonly maxMessageBytes = MAX_MESSAGE_BYTES) {}

  /** Calls `onMessage` for each whole message; a compressed or oversized one is the stream's end. */
  push(chunk: Uint8Array, onMessage: (msg: Buffer) => void): FrameProblem | undefined {
    if (chunk.length > 0) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      if (this.chunks) this.chunks.push(buf);
      else this.chunks = [buf];
      this.held += chunk.length;
    }
    for (;;) {
      if (this.need < 0) {
        if (this.held < 5) return undefined;
        const head = this.take(5);
        if (head[0] !== 0) return { kind: 'compressed' };
        const len = head.readUInt32BE(1);
        if (len > this.maxMessageBytes) return { kind: 'oversized', bytes: len, max: this.maxMessageBytes };
        this.need = len;
      }
      if (this.held < this.need) return undefined;
      const msg = this.take(this.need);
      this.need = -1;
      onMessage(msg);
    }
  }

  /** Bytes of a message that never completed. */
  get midMessage(): boolean {
    return this.need >= 0 || this.held > 0;
  }

  /** The next `n` held bytes (n ≤ held): a view of one chunk, or one copy across several. */
  private take(n: number): Buffer {
    // An empty message (a proto3 message of defaults only) takes nothing, and may be the last
    // of what is held: there may be no chunk to view.
    if (n === 0) return EMPTY;
    // 0 < n ≤ held: bytes wait, so chunks does too.
    const chunks = this.chunks!;
    this.held -= n;
    if (this.held === 0) this.chunks = undefined;
    const first = chunks[0];
    if (first.length >= n) {
      if (first.length === n) chunks.shift();
      else chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const c = chunks[0];
      const k = Math.min(c.length, n - at);
      c.copy(out, at, 0, k);
      at += k;
      if (k === c.length) chunks.shift();
      else chunks[0] = c.subarray(k);
    }
    return out;
  }
}
