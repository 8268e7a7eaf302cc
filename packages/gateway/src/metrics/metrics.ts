// The gateway's Prometheus metrics: an Observer that bumps prom-client counters, fed by the
// fleet's backends (walks), the fan-out (host outcomes), SSH connections, tool calls and
// RPCs. Labels are closed sets (transports, statuses, reasons, codes, tool and method
// names), never paths, hosts or selectors.

import type { CallObservation, HostStatus, Observer, WalkObservation } from '@fleetls/core';
import { createMetricsRegistry, LATENCY_BUCKETS, logLinesDroppedCounter } from '@fleetls/runtime';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly observer: Observer;
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = createMetricsRegistry();
  const registers = [registry];
  const walks = new Counter({
    name: 'fleetls_gateway_walks_total',
    help: 'Host walks ended, by transport and outcome (ok or the error code).',
    labelNames: ['via', 'outcome'],
    registers,
  });
  const entries = new Counter({
    name: 'fleetls_gateway_walk_entries_total',
    help: 'Entries received from host walks, by transport.',
    labelNames: ['via'],
    registers,
  });
  const truncations = new Counter({
    name: 'fleetls_gateway_walk_truncations_total',
    help: 'Limits that cut a host walk, by transport and reason.',
    labelNames: ['via', 'reason'],
    registers,
  });
  const entryErrors = new Counter({
    name: 'fleetls_gateway_walk_entry_errors_total',
    help: 'Entries received as error rows (unreadable), by transport and code.',
    labelNames: ['via', 'code'],
    registers,
  });
  const walkSeconds = new Histogram({
    name: 'fleetls_gateway_walk_duration_seconds',
    help: 'Wall time of one host walk, by transport.',
    labelNames: ['via'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const hosts = new Counter({
    name: 'fleetls_gateway_fanout_hosts_total',
    help: 'Hosts answered in fan-outs, by host status and transport.',
    labelNames: ['status', 'via'],
    registers,
  });
  const sshOpened = new Counter({
    name: 'fleetls_gateway_ssh_connections_opened_total',
    help: 'SSH connections that completed their handshake.',
    registers,
  });
  const sshReused = new Counter({
    name: 'fleetls_gateway_ssh_connections_reused_total',
    help: 'SSH operations served on an already open connection.',
    registers,
  });
  const calls = new Counter({
    name: 'fleetls_gateway_tool_calls_total',
    help: 'Tool calls ended (any face), by tool and outcome (ok or the error code).',
    labelNames: ['tool', 'outcome'],
    registers,
  });
  const callSeconds = new Histogram({
    name: 'fleetls_gateway_tool_call_duration_seconds',
    help: 'Wall time of a tool call, by tool.',
    labelNames: ['tool'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const rpcs = new Counter({
    name: 'fleetls_gateway_rpcs_total',
    help: 'Fleet API calls ended, by method and gRPC status code.',
    labelNames: ['method', 'code'],
    registers,
  });
  logLinesDroppedCounter('fleetls_gateway_log_lines_dropped_total', registers);
  const rpcSeconds = new Histogram({
    name: 'fleetls_gateway_rpc_duration_seconds',
    help: 'Wall time of a Fleet API call, by method.',
    labelNames: ['method'],
    buckets: LATENCY_BUCKETS,
    registers,
  });

  // One gauge for the whole fleet (labels never name hosts): the soonest agent certificate
  // expiry any probe has seen; `fleetls hosts --check` names the host.
  const certNotAfter = new Map<string, number>();
  // The one label value is fixed: a labelled gauge has no sample until a probe saw a certificate.
  new Gauge({
    name: 'fleetls_gateway_agent_cert_min_days_to_expiry',
    help: 'Days until the soonest-expiring agent TLS certificate seen by a probe expires (hosts --check, list_hosts check=true).',
    labelNames: ['scope'],
    registers,
    collect() {
      if (certNotAfter.size > 0)
        this.set({ scope: 'fleet' }, (Math.min(...certNotAfter.values()) - Date.now()) / 86_400_000);
    },
  });

  const observer: Observer = {
    walkEnded(w: WalkObservation) {
      const via = w.via;
      walks.inc({ via, outcome: w.outcome });
      walkSeconds.observe({ via }, w.seconds);
      entries.inc({ via }, w.counts.entries);
      for (const [reason, n] of Object.entries(w.counts.truncations)) truncations.inc({ via, reason }, n);
      for (const [code, n] of Object.entries(w.counts.errors)) entryErrors.inc({ via, code }, n);
    },
    hostDone(s: HostStatus) {
      hosts.inc({ status: s.status, via: s.via });
    },
    callEnded(c: CallObservation) {
      if (c.kind === 'tool') {
        calls.inc({ tool: c.name, outcome: c.outcome });
        callSeconds.observe({ tool: c.name }, c.seconds);
      } else {
        rpcs.inc({ method: c.name, code: c.outcome });
        rpcSeconds.observe({ method: c.name }, c.seconds);
      }
    },
    sshConnection(event) {
      (event === 'opened' ? sshOpened : sshReused).inc();
    },
    agentCertificate(host, notAfter) {
      certNotAfter.set(host, notAfter.getTime());
    },
  };
  return { registry, observer };
}
