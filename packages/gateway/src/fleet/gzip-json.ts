// The bodies gateways hand each other over NATS: a peer's shard and its per-host results
// (peers/protocol.ts), and a kept ranking in JetStream (jetstream-page-store.ts). Gzipped
// JSON, with Buffers (entry paths are bytes) as `{ $b: base64 }` so they come back as Buffers.
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

function replacer(_k: string, v: unknown): unknown {
  // Buffer.toJSON has already run: { type: 'Buffer', data: [...] }.
  const b = v as { type?: string; data?: number[] };
  if (b && b.type === 'Buffer' && Array.isArray(b.data)) return { $b: Buffer.from(b.data).toString('base64') };
  return v;
}

function reviver(_k: string, v: unknown): unknown {
  const b = v as { $b?: string };
  if (b && typeof b === 'object' && typeof b.$b === 'string' && Object.keys(b).length === 1)
    return Buffer.from(b.$b, 'base64');
  return v;
}

export function encodeBody(value: unknown): Promise<Buffer> {
  return zip(Buffer.from(JSON.stringify(value, replacer)));
}

export async function decodeBody<T>(bytes: Uint8Array): Promise<T> {
  return JSON.parse((await unzip(bytes)).toString('utf8'), reviver) as T;
}
