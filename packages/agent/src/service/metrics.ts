// The agent's Prometheus metrics: an Observer that bumps prom-client counters (fed by the
// Walk handler and the runtime's server interceptor), and the plain HTTP listener of `--metrics`.
// Labels are closed sets (outcomes, reasons, codes, method names), never paths or peers.
import { createServer, type Server } from 'node:http';
import { type CallObservation, hostHeaderAllowed, type Observer, type WalkObservation } from '@fleetls/core';
import { createMetricsRegistry, logLinesDroppedCounter, metricsOn } from '@fleetls/runtime/metrics';
import type { Registry } from 'prom-client';

export interface AgentMetrics {
  readonly registry: Registry;
  readonly observer: Observer;
}

export function createAgentMetrics(): AgentMetrics {
  const registry = createMetricsRegistry();
  const { counter, latency } = metricsOn(registry);
  const walks = counter('fleetls_agent_walks_total', 'Walk RPCs ended, by outcome (ok or the error code).', [
    'outcome',
  ]);
  const entries = counter('fleetls_agent_walk_entries_total', 'Entries sent by walks.');
  const truncations = counter('fleetls_agent_walk_truncations_total', 'Limits that cut a walk, by reason.', ['reason']);
  const entryErrors = counter(
    'fleetls_agent_walk_entry_errors_total',
    'Entries sent as error rows (unreadable), by code.',
    ['code'],
  );
  const walkSeconds = latency('fleetls_agent_walk_duration_seconds', 'Wall time of a Walk RPC.');
  const rpcs = counter('fleetls_agent_rpcs_total', 'gRPC calls ended, by method and status code.', ['method', 'code']);
  logLinesDroppedCounter('fleetls_agent_log_lines_dropped_total', [registry]);
  const rpcSeconds = latency('fleetls_agent_rpc_duration_seconds', 'Wall time of a gRPC call, by method.', ['method']);

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

/**
 * `--metrics HOST:PORT`: GET /metrics, nothing else. The registry is read on the event loop;
 * walks run in workers. As the gateway's HTTP face: on loopback, only to loopback Host names
 * (a DNS-rebound page names its own host), and never to a browser page (a scraper sends no Origin).
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (!hostHeaderAllowed(host, req.headers.host)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden: Host header must name a loopback address\n');
      return;
    }
    if (req.headers.origin !== undefined) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden: metrics are not served to browser pages\n');
      return;
    }
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
