// The gateway's Prometheus metrics: an Observer that bumps prom-client counters, fed by the
// fleet's backends (walks), the fan-out (host outcomes), SSH connections, tool calls and
// RPCs. Labels are closed sets (transports, statuses, reasons, codes, tool and method
// names), never paths, hosts or selectors.

import type { CallObservation, HostStatus, Observer, WalkObservation } from '@fleetls/core';
import { createMetricsRegistry, logLinesDroppedCounter, metricsOn } from '@fleetls/runtime/metrics';
import { Gauge, type Registry } from 'prom-client';

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly observer: Observer;
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = createMetricsRegistry();
  return { registry, observer: gatewayObserver(gatewayMeters(registry)) };
}

/** The gateway's meters on `registry`, one entry each, in the order /metrics lists them. */
function gatewayMeters(registry: Registry) {
  const { counter, latency } = metricsOn(registry);
  // The walk meters are each by transport first.
  const via = ['via'] as const;
  return {
    walks: counter(
      'fleetls_gateway_walks_total',
      'Host walks ended, by transport and outcome (ok or the error code).',
      [...via, 'outcome'],
    ),
    entries: counter('fleetls_gateway_walk_entries_total', 'Entries received from host walks, by transport.', via),
    truncations: counter(
      'fleetls_gateway_walk_truncations_total',
      'Limits that cut a host walk, by transport and reason.',
      [...via, 'reason'],
    ),
    entryErrors: counter(
      'fleetls_gateway_walk_entry_errors_total',
      'Entries received as error rows (unreadable), by transport and code.',
      [...via, 'code'],
    ),
    walkSeconds: latency('fleetls_gateway_walk_duration_seconds', 'Wall time of one host walk, by transport.', via),
    hosts: counter('fleetls_gateway_fanout_hosts_total', 'Hosts answered in fan-outs, by host status and transport.', [
      'status',
      ...via,
    ]),
    sshOpened: counter(
      'fleetls_gateway_ssh_connections_opened_total',
      'SSH connections that completed their handshake.',
    ),
    sshReused: counter(
      'fleetls_gateway_ssh_connections_reused_total',
      'SSH operations served on an already open connection.',
    ),
    calls: counter(
      'fleetls_gateway_tool_calls_total',
      'Tool calls ended (any face), by tool and outcome (ok or the error code).',
      ['tool', 'outcome'],
    ),
    callSeconds: latency('fleetls_gateway_tool_call_duration_seconds', 'Wall time of a tool call, by tool.', ['tool']),
    rpcs: counter('fleetls_gateway_rpcs_total', 'Fleet API calls ended, by method and gRPC status code.', [
      'method',
      'code',
    ]),
    logLinesDropped: logLinesDroppedCounter('fleetls_gateway_log_lines_dropped_total', [registry]),
    rpcSeconds: latency('fleetls_gateway_rpc_duration_seconds', 'Wall time of a Fleet API call, by method.', [
      'method',
    ]),
    /** Each host's agent certificate notAfter (ms), as probes saw it. */
    certNotAfter: certExpiryGauge([registry]),
  };
}

/** The Observer that feeds the meters. */
function gatewayObserver(m: ReturnType<typeof gatewayMeters>): Observer {
  return {
    walkEnded(w: WalkObservation) {
      const via = w.via;
      m.walks.inc({ via, outcome: w.outcome });
      m.walkSeconds.observe({ via }, w.seconds);
      m.entries.inc({ via }, w.counts.entries);
      for (const [reason, n] of Object.entries(w.counts.truncations)) m.truncations.inc({ via, reason }, n);
      for (const [code, n] of Object.entries(w.counts.errors)) m.entryErrors.inc({ via, code }, n);
    },
    hostDone(s: HostStatus) {
      m.hosts.inc({ status: s.status, via: s.via });
    },
    callEnded(c: CallObservation) {
      if (c.kind === 'tool') {
        m.calls.inc({ tool: c.name, outcome: c.outcome });
        m.callSeconds.observe({ tool: c.name }, c.seconds);
      } else {
        m.rpcs.inc({ method: c.name, code: c.outcome });
        m.rpcSeconds.observe({ method: c.name }, c.seconds);
      }
    },
    sshConnection(event) {
      (event === 'opened' ? m.sshOpened : m.sshReused).inc();
    },
    agentCertificate(host, notAfter) {
      m.certNotAfter.set(host, notAfter.getTime());
    },
  };
}

/**
 * One gauge for the whole fleet (labels never name hosts): the soonest agent certificate
 * expiry any probe has seen; `fleetls hosts --check` names the host. Returns the map the
 * observer fills: host → notAfter (ms).
 */
function certExpiryGauge(registers: Registry[]): Map<string, number> {
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
  return certNotAfter;
}
