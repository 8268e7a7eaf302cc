// The agent's Prometheus metrics: an Observer that bumps prom-client counters (fed by the
// Walk handler and a server interceptor), and the plain HTTP listener of `--metrics`.
// Labels are closed sets (outcomes, reasons, codes, method names), never paths or peers.
import { createServer, type Server } from 'node:http';
import type { CallObservation, Observer, WalkObservation } from '@fleetls/core';
import * as grpc from '@grpc/grpc-js';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { droppedLogLines } from './logger.js';

/** Seconds, from a millisecond walk to a minute-long one. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Log lines this process dropped because its log's reader did not take them (logger.ts),
 * read at each scrape. The gateway registers it under its own name too.
 */
export function logLinesDroppedCounter(name: string, registers: Registry[]): Counter {
  let counted = 0;
  return new Counter({
    name,
    help: "Log lines dropped because the log's reader (stderr) did not keep up.",
    registers,
    collect() {
      const n = droppedLogLines();
      this.inc(n - counted);
      counted = n;
    },
  });
}

export interface AgentMetrics {
  readonly registry: Registry;
  readonly observer: Observer;
}

export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const walks = new Counter({
    name: 'fleetls_agent_walks_total',
    help: 'Walk RPCs ended, by outcome (ok or the error code).',
    labelNames: ['outcome'],
    registers,
  });
  const entries = new Counter({ name: 'fleetls_agent_walk_entries_total', help: 'Entries sent by walks.', registers });
  const truncations = new Counter({
    name: 'fleetls_agent_walk_truncations_total',
    help: 'Limits that cut a walk, by reason.',
    labelNames: ['reason'],
    registers,
  });
  const entryErrors = new Counter({
    name: 'fleetls_agent_walk_entry_errors_total',
    help: 'Entries sent as error rows (unreadable), by code.',
    labelNames: ['code'],
    registers,
  });
  const walkSeconds = new Histogram({
    name: 'fleetls_agent_walk_duration_seconds',
    help: 'Wall time of a Walk RPC.',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const rpcs = new Counter({
    name: 'fleetls_agent_rpcs_total',
    help: 'gRPC calls ended, by method and status code.',
    labelNames: ['method', 'code'],
    registers,
  });
  logLinesDroppedCounter('fleetls_agent_log_lines_dropped_total', registers);
  const rpcSeconds = new Histogram({
    name: 'fleetls_agent_rpc_duration_seconds',
    help: 'Wall time of a gRPC call, by method.',
    labelNames: ['method'],
    buckets: LATENCY_BUCKETS,
    registers,
  });

  const observer: Observer = {
    walkEnded(w: WalkObservation) {
      walks.inc({ outcome: w.outcome });
      walkSeconds.observe(w.seconds);
      entries.inc(w.counts.entries);
      for (const [reason, n] of Object.entries(w.counts.truncations)) truncations.inc({ reason }, n);
      for (const [code, n] of Object.entries(w.counts.errors)) entryErrors.inc({ code }, n);
    },
    callEnded(c: CallObservation) {
      rpcs.inc({ method: c.name, code: c.outcome });
      rpcSeconds.observe({ method: c.name }, c.seconds);
    },
    hostDone() {},
    sshConnection() {},
  };
  return { registry, observer };
}

/** Reports every call's method, status and duration (auth refusals included: it runs first). */
export function metricsInterceptor(observer: Observer): grpc.ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    return new grpc.ServerInterceptingCall(
      call,
      new grpc.ResponderBuilder()
        .withSendStatus((status, next) => {
          observer.callEnded({
            kind: 'rpc',
            name: method.path,
            outcome: grpc.status[status.code] ?? String(status.code),
            seconds: (performance.now() - started) / 1000,
          });
          next(status);
        })
        .build(),
    );
  };
}

/** `--metrics HOST:PORT`: GET /metrics, nothing else. The registry is read on the event loop; walks run in workers. */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
