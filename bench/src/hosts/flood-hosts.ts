// The hostile hosts of the bench's floods (hostile-floods.ts), run in a process of their own
// (flood-hosts-main.ts) so that the flood's own work is not the measuring process's: a fake
// agent (a grpc-js Agent server honouring backpressure) answering every Walk with MESSAGES
// messages of ROWS_PER_MESSAGE rows, and a NATS responder registered as web-1 answering with
// SLICES slices ignoring Acks.
import * as path from 'node:path';
import type { Row, WalkSummary } from '@fleetls/core';
import {
  AGENT_FEATURES_METADATA,
  AGENT_VERSION_METADATA,
  encodedWalkService,
  encodeWalkResponse,
} from '@fleetls/proto';
import { frame } from '@fleetls/runtime/grpc-frame';
import { agentSubjects, HDR, type Registration } from '@fleetls/runtime/nats';
import * as grpc from '@grpc/grpc-js';
import { connect, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { REPO_ROOT } from '../helpers/proc.js';

export const MESSAGES = 999;
export const ROWS_PER_MESSAGE = 8000;
export const SLICES = 600;

function entry(name: string, size: number): Row {
  return {
    kind: 'entry',
    entry: {
      path: Buffer.from(name),
      depth: 1,
      type: 'file',
      size,
      mtimeSec: 0,
      mtimeNsec: 0,
      utcOffsetMin: 0,
      mode: 0o644,
      uid: 0,
      gid: 0,
      inode: 1,
      nlink: 1,
    },
  };
}

function rows(tag: string, n: number): Row[] {
  return Array.from({ length: n }, (_, i) => entry(`${tag}-${i}`, i));
}

const SUMMARY: WalkSummary = {
  entriesSent: 0,
  entriesSeen: 0,
  entriesMatched: 0,
  truncations: [],
  elapsedMs: 0,
  depthLimitedDirs: 0,
};

export interface FloodSeen {
  written: number;
  cancelled: number;
}

/** The gRPC flood: every Walk answered with MESSAGES copies of one 8,000-row message, as fast as the gateway reads. */
export async function floodAgent(): Promise<{ address: string; seen: FloodSeen; close(): void }> {
  const seen: FloodSeen = { written: 0, cancelled: 0 };
  const message = encodeWalkResponse(rows('f', ROWS_PER_MESSAGE));
  const served = encodedWalkService();
  const server = new grpc.Server();
  server.addService(served, {
    Walk: (call: grpc.ServerWritableStream<unknown, Buffer>) => {
      call.on('cancelled', () => seen.cancelled++);
      const md = new grpc.Metadata();
      md.set(AGENT_VERSION_METADATA, 'flood-1');
      md.set(AGENT_FEATURES_METADATA, '');
      call.sendMetadata(md);
      void (async () => {
        for (let m = 0; m < MESSAGES && !call.cancelled; m++) {
          if (!call.write(message))
            await new Promise<void>((resolve) => {
              call.once('drain', resolve);
              call.once('cancelled', resolve);
            });
          if (!call.cancelled) seen.written++;
        }
        if (!call.cancelled) {
          call.write(encodeWalkResponse([], SUMMARY));
          call.end();
        }
      })();
    },
    Stat: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
      callback({ code: grpc.status.NOT_FOUND, details: 'nothing here' } as grpc.ServiceError),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, seen, close: () => server.forceShutdown() };
}

/** The NATS flood: web-1's walks answered with SLICES slices of `sliceBytes` each, Acks ignored. */
export async function natsFlood(
  url: string,
  sliceBytes: () => number,
): Promise<{ seen: FloodSeen; close(): Promise<void> }> {
  const seen: FloodSeen = { written: 0, cancelled: 0 };
  const message = frame(encodeWalkResponse(rows('n', 2000)));
  const nc: NatsConnection = await connect({ servers: [url] });
  const subjects = agentSubjects('web-1');
  nc.subscribe(subjects.walk, {
    callback: (err, msg) => {
      if (err || !msg.reply) return;
      const h0 = natsHeaders();
      h0.set(HDR.seq, '0');
      h0.set(HDR.version, 'flood-1');
      h0.set(HDR.features, '');
      nc.publish(msg.reply, undefined, { headers: h0 });
      // An endless stream of one framed message of rows, over and over, cut into slices of `bytes`.
      const bytes = sliceBytes();
      const repeat = Buffer.concat(Array.from({ length: Math.ceil(bytes / message.length) + 2 }, () => message));
      for (let seq = 1; seq <= SLICES; seq++) {
        const h = natsHeaders();
        h.set(HDR.seq, String(seq));
        const at = ((seq - 1) * bytes) % message.length;
        nc.publish(msg.reply, repeat.subarray(at, at + bytes), { headers: h });
        seen.written++;
      }
    },
  });
  nc.subscribe(subjects.ctlAll, {
    callback: (_err, msg) => {
      if (msg.headers?.get(HDR.cancel)) seen.cancelled++;
    },
  });
  nc.subscribe(subjects.stat, {
    callback: (_err, msg) => {
      const h = natsHeaders();
      h.set(HDR.status, String(grpc.status.NOT_FOUND));
      h.set(HDR.details, 'nothing here');
      msg.respond(undefined, { headers: h });
    },
  });
  await nc.flush();
  const { startPresence } = await import(path.join(REPO_ROOT, 'packages/agent/dist/carriers/nats-presence.js'));
  const { createLogger } = await import('@fleetls/gateway');
  const registration: Registration = {
    name: 'web-1',
    labels: {},
    groups: [],
    version: 'flood-1',
    capabilities: ['walk', 'stat'],
    heartbeatMs: 2000,
    startedAt: new Date().toISOString(),
  };
  const presence = startPresence({ nc, registration, logger: createLogger({ name: 'flood', level: 'silent' }) });
  await presence.beat();
  return {
    seen,
    async close() {
      presence.stop();
      await nc.close();
    },
  };
}
