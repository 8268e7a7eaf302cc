// The inventory's settings sections: `agent_tls`, `defaults` (bounded numbers) and `kubernetes`.

import { originProblem } from './origins.js';
import { describe, isObject, type Json, type Problems, unknownKeys } from './problems.js';
import type { AgentTls, InventoryDefaults, KubernetesAgents } from './types.js';

const KUBERNETES_KEYS = ['service', 'port'] as const;
const TLS_FILE_KEYS = ['ca', 'cert', 'key'] as const;
const TLS_KEYS = [...TLS_FILE_KEYS, 'server_name'] as const;
// A DNS name (letters, digits, hyphens, dots) or an IP address, as a certificate's SAN holds it.
const SERVER_NAME_RE =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$|^[0-9A-Fa-f:.]+$/;
const DEFAULT_BOUNDS: Record<string, { field: keyof InventoryDefaults; min: number; max: number }> = {
  concurrency: { field: 'concurrency', min: 1, max: 1024 },
  connect_timeout_ms: { field: 'connectTimeoutMs', min: 1, max: 600_000 },
  deadline_ms: { field: 'deadlineMs', min: 1, max: 3_600_000 },
  max_answer_bytes: { field: 'maxAnswerBytes', min: 1024, max: 10 * 1024 * 1024 },
  max_answer_tokens: { field: 'maxAnswerTokens', min: 256, max: 10_000_000 },
  // A call's whole budget: under the MCP client's 60 s request timeout (a scan goes on past it).
  call_deadline_ms: { field: 'callDeadlineMs', min: 1000, max: 55_000 },
  // Scans (a call gone on past its deadline): a host's share, the whole, hosts at once, TTL after the last page, caps.
  scan_host_deadline_ms: { field: 'scanHostDeadlineMs', min: 1, max: 3_600_000 },
  scan_deadline_ms: { field: 'scanDeadlineMs', min: 1000, max: 24 * 3_600_000 },
  scan_concurrency: { field: 'scanConcurrency', min: 1, max: 4096 },
  scan_ttl_ms: { field: 'scanTtlMs', min: 1000, max: 24 * 3_600_000 },
  scans_per_principal: { field: 'scansPerPrincipal', min: 1, max: 1000 },
  scans_total: { field: 'scansTotal', min: 1, max: 10_000 },
  // Rows of all scans held in memory; past it they spill to files under the state directory.
  scan_memory_rows: { field: 'scanMemoryRows', min: 100, max: 100_000_000 },
  // A host whose rows began and then stopped this long is ended (a stalling host holds no scan).
  host_stall_ms: { field: 'hostStallMs', min: 100, max: 3_600_000 },
};

/** `agent_tls`: "insecure", or { ca, cert, key, server_name } with the files resolved by `file`. */
export function parseAgentTls(problems: Problems, tls: Json, file: (s: string) => string): AgentTls | undefined {
  if (tls === 'insecure') return 'insecure';
  if (!isObject(tls)) {
    problems.add('agent_tls', `expected { ca, cert, key } or "insecure", got ${describe(tls)}`);
    return undefined;
  }
  unknownKeys(problems, 'agent_tls', tls, TLS_KEYS);
  const out: { ca: string; cert?: string; key?: string; serverName?: string } = { ca: '' };
  const name = tls.server_name;
  if (name !== undefined) {
    if (typeof name === 'string' && name.length <= 253 && SERVER_NAME_RE.test(name)) out.serverName = name;
    else {
      problems.add(
        'agent_tls.server_name',
        `expected the DNS name (or IP) the agents' certificates carry, got ${describe(name)}`,
      );
    }
  }
  for (const k of TLS_FILE_KEYS) {
    const v = tls[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') problems.add(`agent_tls.${k}`, `expected a file path, got ${describe(v)}`);
    else out[k] = file(v);
  }
  if (tls.ca === undefined) problems.add('agent_tls.ca', "required: the CA that signed the agents' certificates");
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    problems.add('agent_tls', "`cert` and `key` go together (the gateway's client certificate and its key)");
  }
  return out;
}

/** `cors_origins`: browser origins, each checked as the HTTP door checks --cors-origin. */
export function parseCorsOrigins(problems: Problems, value: Json): string[] | undefined {
  if (!Array.isArray(value)) {
    problems.add('cors_origins', `expected a list of origins, as [https://dash.example], got ${describe(value)}`);
    return undefined;
  }
  const out: string[] = [];
  value.forEach((o, i) => {
    const why = originProblem(o);
    if (why) problems.add(`cors_origins[${i}]`, why);
    else out.push(o as string);
  });
  return out;
}

/** `defaults`: each a bounded integer. */
export function parseDefaults(problems: Problems, defaults: Json): InventoryDefaults {
  const out: InventoryDefaults = {};
  if (!isObject(defaults)) {
    problems.add('defaults', `expected a mapping, got ${describe(defaults)}`);
    return out;
  }
  unknownKeys(problems, 'defaults', defaults, Object.keys(DEFAULT_BOUNDS));
  for (const [k, b] of Object.entries(DEFAULT_BOUNDS)) {
    const v = defaults[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < b.min || v > b.max) {
      problems.add(`defaults.${k}`, `expected an integer in ${b.min}..${b.max}, got ${describe(v)}`);
    } else out[b.field] = v;
  }
  return out;
}

export function parseKubernetes(problems: Problems, value: Json): KubernetesAgents | undefined {
  if (!isObject(value)) {
    problems.add('kubernetes', `expected { service, port }, got ${describe(value)}`);
    return undefined;
  }
  unknownKeys(problems, 'kubernetes', value, KUBERNETES_KEYS);
  const { service, port } = value;
  let ok = true;
  if (typeof service !== 'string' || !/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?$/.test(service)) {
    problems.add('kubernetes.service', `expected the headless Service's DNS name, got ${describe(service ?? null)}`);
    ok = false;
  }
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    problems.add('kubernetes.port', `expected an integer in 1..65535, got ${describe(port ?? null)}`);
    ok = false;
  }
  return ok ? { service: service as string, port: port as number } : undefined;
}
