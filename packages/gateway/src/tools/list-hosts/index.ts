// list_hosts: the inventory as the selector sees it; with check=true, every host probed in
// parallel for reachability and its agent's version.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { FILTER_FEATURES, type HostStatus, renderAligned, type TableRow } from '@fleetls/core';
import type { ListHostsResponseSchema } from '@fleetls/proto/fleet_pb';
import { z } from 'zod';
import { fanOut } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { fanOutOptions } from '../../scans/call.js';
import * as s from '../schemas.js';
import { type AnswerCut, fitAnswer, rowSize } from '../shared/answer-size.js';
import { formatHosts } from '../shared/cli-format.js';
import { hostStatusToWire } from '../shared/fleet-present.js';
import { defineTool, type McpAnswer, type ToolResult } from '../tool.js';
import { type HostRow, hostRowSchema } from './row.js';

export type { HostRow } from './row.js';

const input = {
  host: s.host('all'),
  check: z
    .boolean({ error: 'check must be true or false' })
    .default(false)
    .describe('Probe reachability and agent version'),
};

const output = {
  hosts: z.array(hostRowSchema),
  count: z.number(),
  checked: z.boolean(),
  truncated: z.boolean(),
};

export type ListHostsAnswer = s.Parsed<typeof output>;

interface Plan {
  hosts: FleetHost[];
  check: boolean;
}

export interface HostListing extends ToolResult {
  checked: boolean;
  /** The selected hosts, each with its probe when checked. */
  rows: {
    host: FleetHost;
    probe?: { status: HostStatus; version?: string; features?: string[]; certNotAfter?: Date };
  }[];
}

/** Whole days from now until `when` (negative once past). */
export function daysUntil(when: Date, now = Date.now()): number {
  return Math.floor((when.getTime() - now) / 86_400_000);
}

/** The version, and what an agent lacks of the request features: `0.0.9 (lacks perm)`. */
function versionText(r: HostRow): string | undefined {
  const lacks = r.features === undefined ? [] : FILTER_FEATURES.filter((f) => !r.features?.includes(f));
  return lacks.length > 0 && r.version !== undefined ? `${r.version} (lacks ${lacks.join(', ')})` : r.version;
}

/** One host as list_hosts' structured rows show it (the dashboard's host cache keeps these, uncut). */
export function hostRow(listed: HostListing['rows'][number]): HostRow {
  const h = listed.host;
  const row: HostRow = {
    host: h.name,
    transport: h.via,
    address: h.address,
    labels: { ...h.labels },
    groups: [...h.groups],
    ssh_fallback: h.sshFallback,
  };
  if (!listed.probe && h.unreachable) {
    // Known without a probe (its heartbeats stopped): said even when not checking.
    row.reachable = false;
    row.status = 'unreachable';
    row.message = h.unreachable;
  }
  if (listed.probe) {
    const st = listed.probe.status;
    row.reachable = st.status === 'ok';
    if (listed.probe.version !== undefined) row.version = listed.probe.version;
    if (listed.probe.features !== undefined) row.features = listed.probe.features;
    row.status = st.status;
    row.via = st.via;
    row.elapsed_ms = st.elapsedMs;
    if (st.message !== undefined) row.message = st.message;
    if (listed.probe.certNotAfter) row.cert_expires_in_days = daysUntil(listed.probe.certNotAfter);
  }
  return row;
}

/** A host row as list_hosts' text table shows it. */
function tableRowOf(r: HostRow): TableRow {
  return {
    host: r.host,
    // `|ssh`: falls back to find over SSH (`agent+ssh` is the agent reached through SSH).
    transport: r.transport + (r.ssh_fallback ? '|ssh' : ''),
    address: r.address,
    labels: Object.entries(r.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    groups: r.groups.join(','),
    status: r.status === undefined ? undefined : r.status === 'ok' ? `ok (${r.via}, ${r.elapsed_ms} ms)` : r.status,
    version: versionText(r),
    cert: r.cert_expires_in_days === undefined ? undefined : `${r.cert_expires_in_days} days`,
    message: r.message,
  };
}

function hostsToFleet(l: HostListing): MessageInitShape<typeof ListHostsResponseSchema> {
  return {
    checked: l.checked,
    hosts: l.rows.map(({ host: h, probe }) => ({
      host: h.name,
      transport: h.via,
      address: h.address,
      labels: Object.entries(h.labels).map(([key, value]) => ({ key, value })),
      groups: [...h.groups],
      sshFallback: h.sshFallback,
      ...(probe
        ? {
            reachable: probe.status.status === 'ok',
            version: probe.version ?? '',
            features: probe.features ?? [],
            probe: hostStatusToWire(probe.status),
          }
        : {}),
    })),
  };
}

export const listHostsTool = defineTool({
  name: 'list_hosts',
  title: 'Hosts of the fleet',
  description:
    'Which hosts can I ask? Those a selector picks, with transport, address, labels, groups; check=true probes them.',
  input,
  output,

  plan(a, ctx): Plan {
    return { hosts: ctx.fleet.select(a.host), check: a.check };
  },

  async collect(p: Plan, ctx): Promise<HostListing> {
    if (!p.check) return { checked: false, rows: p.hosts.map((host) => ({ host })), hosts: [] };
    const results = await fanOut(ctx.fleet, p.hosts, (b, _h, signal) => b.probe(signal), fanOutOptions(ctx));
    return {
      checked: true,
      rows: results.map((r) => ({
        host: r.host,
        probe: {
          status: r.status,
          ...(r.value ? { version: r.value.version } : {}),
          ...(r.value?.features ? { features: r.value.features } : {}),
          ...(r.value?.certNotAfter ? { certNotAfter: r.value.certNotAfter } : {}),
        },
      })),
      hosts: results.map((r) => r.status),
    };
  },

  mcp(l: HostListing, ctx) {
    if (l.rows.length === 0)
      return { structured: { hosts: [], count: 0, checked: l.checked, truncated: false }, text: 'No hosts match.' };
    // Rows are made as the answer's fit asks for them: it measures only up to where a budget
    // is passed, so `all` over 100,000 NATS hosts makes a few hundred rows, not 100,000 (each
    // with its own copy of the labels and groups, and a table row of joined strings).
    const count = l.rows.length;
    const made: HostRow[] = [];
    const row = (i: number) => {
      made[i] ??= hostRow(l.rows[i]);
      return made[i];
    };
    const tabled: TableRow[] = [];
    const tableRow = (i: number) => {
      tabled[i] ??= tableRowOf(row(i));
      return tabled[i];
    };
    const first = <T>(n: number, of: (i: number) => T) => Array.from({ length: n }, (_, i) => of(i));
    const columns = [
      'host',
      'transport',
      'address',
      'labels',
      'groups',
      ...(l.checked ? ['status', 'version', 'cert', 'message'] : []),
    ];
    const headers = Object.fromEntries(columns.map((c) => [c, c.toUpperCase()]));
    const build = (kept: number, cut: AnswerCut): McpAnswer => {
      const shown = renderAligned(columns, first(kept, tableRow), { headers });
      if (kept < count) {
        shown.push(`[WARNING] answer cut at ${cut.words}: ${kept} of ${count} hosts shown; narrow the selector`);
      }
      const structured: ListHostsAnswer = {
        hosts: first(kept, row),
        count: kept,
        checked: l.checked,
        truncated: kept < count,
      };
      return { structured, text: shown.join('\n') };
    };
    return fitAnswer({
      rows: count,
      rowCost: (i) => rowSize(Object.values(tableRow(i)).join('    '), row(i)),
      build,
      options: ctx.options,
    }).answer;
  },

  cli: {
    command: 'hosts',
    description: 'list the hosts of the inventory (with --check: reachability and agent version)',
    argument: { syntax: '[SELECTOR]', description: 'which hosts (default all)' },
    render(l, style) {
      const rows = l.rows.map(hostRow).map((r) => ({ ...r, version: versionText(r) }));
      return { out: formatHosts(rows, { checked: l.checked, style }), err: [] };
    },
  },

  fleet: { method: 'ListHosts', present: hostsToFleet },
});
