// A process of many slow agents (run by slow-agents.ts): one gRPC server bound to one loopback
// port per host, serving the real agent's Walk and Stat handlers over one allowed root, each
// host answering only after its own delay (or never: the call stays open until the caller
// cancels it). The host is told by the port the caller dialled (the call's :authority).
// stdout carries JSON lines: {"ports":[…]} once every port listens, then a {"ev":"start"} and a
// {"ev":"end","how":…} line per call with its time, so a test sees when walks begin and end.
import { readFileSync } from 'node:fs';
import { AGENT_VERSION, type CallStatus, createAgentHandlers, parseAgentConfig, type WalkCall } from '@fleetls/agent';
import { createLogger } from '@fleetls/gateway';
import {
  AGENT_FEATURES_METADATA,
  AGENT_VERSION_METADATA,
  agentService,
  toStatus,
  type WireStatRequestOut,
  type WireWalkRequestOut,
} from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';

interface Spec {
  root: string;
  /** Per host, ms before it answers; null: never. */
  delays: (number | null)[];
}

// `node --test` (Node 20's default patterns) runs every .js under test/ as a test file, this
// one too: without its spec argument it has nothing to serve, and is no failed test.
if (process.argv[2] === undefined) {
  console.error('usage: slow-agents-main SPEC.json (started by helpers/slow-agents.ts)');
  process.exit(process.env.NODE_TEST_CONTEXT ? 0 : 2);
}
const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Spec;
const logger = createLogger({ name: 'slow-agents', level: 'silent' });
const config = parseAgentConfig(
  [
    '--config',
    '/dev/null',
    '--listen',
    '127.0.0.1:0',
    '--insecure-loopback',
    '--allow',
    spec.root,
    '--max-concurrent-walks',
    '1000',
  ],
  {},
);

// The real agent's handlers. One process walking for hundreds of hosts at once is not what an
// agent does (each host has its own): a host's answer is the real handler's answer to the
// same request, walked once and replayed, so every host sends the agent's own bytes.
const handlers = createAgentHandlers({ config, logger, version: AGENT_VERSION });

interface Recorded {
  version: string;
  features: readonly string[];
  messages: Buffer[];
  status?: CallStatus;
}
const recorded = new Map<string, Promise<Recorded>>();

function record(request: WireWalkRequestOut): Promise<Recorded> {
  const key = JSON.stringify(request);
  let r = recorded.get(key);
  if (!r) {
    r = new Promise<Recorded>((resolve) => {
      const out: Recorded = { version: '', features: [], messages: [] };
      const call: WalkCall = {
        request,
        caller: 'slow-agents',
        peer: 'slow-agents',
        cancelled: false,
        deadline: () => undefined,
        onCancel: () => () => {},
        sendHeaders(version, features) {
          out.version = version;
          out.features = features;
        },
        write(message) {
          out.messages.push(Buffer.from(message));
          return true;
        },
        drained: async () => true,
        end: () => resolve(out),
        fail(status) {
          out.status = status;
          resolve(out);
        },
      };
      void handlers.walk(call);
    });
    recorded.set(key, r);
  }
  return r;
}

async function replay(call: grpc.ServerWritableStream<WireWalkRequestOut, Buffer>): Promise<void> {
  const r = await record(call.request);
  if (call.cancelled) return;
  const md = new grpc.Metadata();
  md.set(AGENT_VERSION_METADATA, r.version);
  md.set(AGENT_FEATURES_METADATA, r.features.join(','));
  call.sendMetadata(md);
  for (const m of r.messages) {
    if (!call.write(m)) await new Promise((resolve) => call.once('drain', resolve));
    if (call.cancelled) return;
  }
  if (r.status) call.emit('error', r.status);
  else call.end();
}

const delayOf = new Map<number, number | null>();
const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ t: Date.now(), ...line })}\n`);

/** Each call: its start and (once) its end, whether it was answered or cancelled. */
function track(
  call: (grpc.ServerWritableStream<unknown, unknown> | grpc.ServerUnaryCall<unknown, unknown>) & NodeJS.EventEmitter,
  rpc: string,
): { port: number; onEnd: (fn: () => void) => void } {
  const port = Number(call.getHost().split(':').pop());
  emit({ ev: 'start', rpc, port });
  let ended = false;
  const fns: (() => void)[] = [];
  const end = (how: string) => {
    if (ended) return;
    ended = true;
    for (const fn of fns) fn();
    emit({ ev: 'end', rpc, port, how });
  };
  call.on('cancelled', () => end('cancelled'));
  call.on('finish', () => end('answered'));
  call.on('close', () => end('closed'));
  call.on('error', () => end('error'));
  return { port, onEnd: (fn) => fns.push(fn) };
}

// The agent's own service definition: Walk's messages are already encoded (the agent's own
// bytes, replayed) and the handlers' Stat answers bytes, so both serializers are the identity.
const served = agentService();
const server = new grpc.Server();
server.addService(served, {
  Walk: (call: grpc.ServerWritableStream<WireWalkRequestOut, Buffer>) => {
    const { port, onEnd } = track(call, 'Walk');
    const delay = delayOf.get(port);
    if (delay === null || delay === undefined) return; // never answers: open until cancelled
    const timer = setTimeout(() => {
      if (!call.cancelled) void replay(call);
    }, delay);
    onEnd(() => clearTimeout(timer));
  },
  Stat: (call: grpc.ServerUnaryCall<WireStatRequestOut, unknown>, callback: grpc.sendUnaryData<unknown>) => {
    const { port, onEnd } = track(call, 'Stat');
    const delay = delayOf.get(port);
    if (delay === null || delay === undefined) return;
    const timer = setTimeout(() => {
      if (call.cancelled) return;
      const md = new grpc.Metadata();
      md.set(AGENT_VERSION_METADATA, handlers.version);
      md.set(AGENT_FEATURES_METADATA, handlers.features.join(','));
      call.sendMetadata(md);
      handlers.stat(call.request, 'slow-agents').then(
        (answer) => callback(null, answer),
        (err) => callback(toStatus(err) as grpc.ServiceError),
      );
    }, delay);
    onEnd(() => clearTimeout(timer));
  },
});

const ports: number[] = [];
for (const delay of spec.delays) {
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  delayOf.set(port, delay);
  ports.push(port);
}
emit({ ports });
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
// The test's process going away ends this one too (stdin is its pipe).
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
