// gRPC's length-prefixed message framing, for the two carriers that write it by hand: the
// gateway's HTTP/2 agent client and the NATS transport of the Agent service. A module of its
// own so that the agent client loads no NATS code at start.

/** One uncompressed message in its frame: a flag byte (0, no compression) and the length, big-endian. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}
