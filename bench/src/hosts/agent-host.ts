#!/usr/bin/env node
// Many agents in one process, for the fan-out bench on a small machine.
//   node agent-host.js real COUNT ALLOW_DIR   COUNT real fleetls agent gRPC servers (createAgentServer),
//                                             each on its own 127.0.0.1 port, all allowed ALLOW_DIR
//   node agent-host.js stub COUNT             COUNT stub Agent servers: Walk answers a canned ranked
//                                             list of 160 files at once, touching no file system
// Prints one JSON line {"ports":[...]} on stderr when every server listens; exits on SIGTERM.
import { AGENT_VERSION, createAgentHandlers, createAgentServer, parseAgentConfig, WalkPool } from '@fleetls/agent';
import { loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { stubRows } from './stub-rows.js';

const [mode, countArg, allow] = process.argv.slice(2);
const count = Number(countArg);

async function startStub(): Promise<{ port: number; server: grpc.Server }> {
  const { proto } = loadContract();
  const all = stubRows(160, (i) => ({ path: `level-${1 + (i % 40)}/file-${i}.log`, depth: 1 + (i % 40) }));
  const server = new grpc.Server();
  server.addService(proto.fleetls.v1.Agent.service, {
    Walk(call: grpc.ServerWritableStream<{ topN?: number; direction?: string }, unknown>) {
      const n = Math.min(call.request.topN || 1000, all.length);
      const desc = call.request.direction === 'DIRECTION_DESCENDING';
      const rows = [...all]
        .sort((a, b) => (desc ? b.entry.size - a.entry.size : a.entry.size - b.entry.size))
        .slice(0, n);
      call.write({ rows });
      call.write({
        rows: [],
        summary: { entriesSent: n, entriesSeen: all.length, entriesMatched: all.length, truncations: [], elapsedMs: 0 },
      });
      call.end();
    },
    Stat(_call: unknown, cb: grpc.sendUnaryData<unknown>) {
      cb({ code: grpc.status.UNIMPLEMENTED, details: 'stub' });
    },
  } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { port, server };
}

async function main(): Promise<void> {
  const logger = pino({ level: 'warn', base: { svc: 'bench-agent-host' } }, pino.destination({ fd: 2, sync: true }));
  const ports: number[] = [];
  const stops: (() => Promise<void>)[] = [];
  // One pool for the process's servers: they share its cores as agents on one machine would,
  // so its ranked walks share its find slots (two on two cores). With a pool each, 10 servers
  // ran 10 find walks of four processes each, and 200 real agents ~800 processes on 2 cores.
  const pool = new WalkPool();
  for (let i = 0; i < count; i++) {
    if (mode === 'stub') {
      const { port, server } = await startStub();
      ports.push(port);
      stops.push(() => new Promise<void>((r) => server.tryShutdown(() => r())));
    } else {
      const config = parseAgentConfig(
        ['--config', '/dev/null', '--listen', '127.0.0.1:0', '--insecure-loopback', '--allow', allow],
        {},
      );
      const handlers = createAgentHandlers({ config, logger, version: AGENT_VERSION, pool });
      const server = createAgentServer(config, logger, undefined, handlers);
      const { port } = await server.start();
      ports.push(port);
      stops.push(() => server.shutdown(1000));
    }
  }
  process.stderr.write(`${JSON.stringify({ msg: 'listening', ports })}\n`);
  const stop = () => {
    Promise.allSettled(stops.map((s) => s())).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`agent-host: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
