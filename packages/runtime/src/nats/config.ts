// The agent's NATS settings (connect, nats_creds, nats_tls, name, labels, groups,
// heartbeat_ms), flags or agent.yaml keys. Only the settings: nothing here connects.
import * as os from 'node:os';
import { isLoopback } from '@fleetls/core';
import type { NatsSettings } from './connect.js';
import { DEFAULT_HEARTBEAT_MS, MAX_HEARTBEAT_MS, MIN_HEARTBEAT_MS } from './protocol.js';

// What a settings reader needs without the NATS client (inventory/nats.ts in every gateway).
export type { NatsSettings } from './connect.js';
export { MAX_HEARTBEAT_MS, MIN_HEARTBEAT_MS } from './protocol.js';

export interface AgentNatsConfig extends NatsSettings {
  /** The host's name in the fleet: its subjects and its registry key (default: the hostname). */
  name: string;
  labels: Record<string, string>;
  groups: string[];
  heartbeatMs: number;
}

type Fail = (message: string) => Error;

/** `nats://a:4222,tls://b:4222` (or a YAML list) → the URLs, each checked. */
export function parseNatsServers(raw: unknown, fail: Fail, key = 'connect'): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : undefined;
  if (!list || list.length === 0) throw fail(`${key}: expected nats://HOST:PORT[,nats://HOST:PORT…]`);
  return list.map((u) => {
    const s = typeof u === 'string' ? u.trim() : '';
    const m = /^(nats|tls):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(s);
    if (!m || Number(m[3] ?? 4222) > 65535) {
      throw fail(`${key}: expected nats://HOST:PORT or tls://HOST:PORT, got ${JSON.stringify(u)}`);
    }
    return s;
  });
}

export function natsHostOf(url: string): string {
  const m = /^[a-z]+:\/\/(\[[^\]]+\]|[^:/]+)/.exec(url);
  const h = m ? m[1] : url;
  return h.startsWith('[') ? h.slice(1, -1) : h;
}

function labelMap(raw: unknown, fail: Fail): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  const pairs: [string, unknown][] = Array.isArray(raw)
    ? raw.map((p) => {
        const s = String(p);
        const i = s.indexOf('=');
        if (i <= 0) throw fail(`labels: expected KEY=VALUE, got ${JSON.stringify(p)}`);
        return [s.slice(0, i), s.slice(i + 1)];
      })
    : typeof raw === 'object' && raw !== null
      ? Object.entries(raw)
      : [];
  if (!Array.isArray(raw) && (typeof raw !== 'object' || raw === null)) {
    throw fail('labels: expected a mapping of KEY: VALUE (or --label KEY=VALUE)');
  }
  for (const [k, v] of pairs) {
    if (!/^[A-Za-z0-9_./-]{1,63}$/.test(k))
      throw fail(`labels: key ${JSON.stringify(k)} must be 1-63 of A-Z a-z 0-9 _ . / -`);
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw fail(`labels: value of ${k} must be a string`);
    }
    out[k] = String(v);
  }
  return out;
}

export function parseAgentNats(
  input: {
    connect: unknown;
    creds?: string;
    tls?: unknown;
    name?: unknown;
    labels?: unknown;
    groups?: unknown;
    heartbeatMs?: number;
  },
  fail: Fail,
): AgentNatsConfig {
  const servers = parseNatsServers(input.connect, fail);
  let tls: AgentNatsConfig['tls'];
  if (input.tls !== undefined) {
    const t = input.tls as Record<string, unknown>;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) {
      throw fail('nats_tls: expected a mapping with ca, and cert and key for a client certificate');
    }
    for (const k of Object.keys(t))
      if (!['ca', 'cert', 'key'].includes(k)) throw fail(`nats_tls.${k}: unknown key (known: ca, cert, key)`);
    for (const k of ['ca', 'cert', 'key'] as const) {
      if (t[k] !== undefined && (typeof t[k] !== 'string' || t[k] === '')) throw fail(`nats_tls.${k}: expected a file`);
    }
    if ((t.cert === undefined) !== (t.key === undefined)) throw fail('nats_tls: cert and key go together');
    tls = { ca: t.ca as string | undefined, cert: t.cert as string | undefined, key: t.key as string | undefined };
  }
  // Credentials and answers cross the network in the clear without TLS: loopback only, as --insecure.
  const remote = servers.filter((u) => !u.startsWith('tls://') && !isLoopback(natsHostOf(u)));
  if (!tls && remote.length > 0) {
    throw fail(`nats_tls: TLS is required to reach ${remote.join(', ')} (give nats_tls.ca, or use loopback servers)`);
  }
  const name = input.name === undefined ? os.hostname() : input.name;
  if (typeof name !== 'string' || name === '' || name.length > 253 || /[\s\0]/.test(name)) {
    throw fail(`name: expected a host name without spaces, got ${JSON.stringify(input.name)}`);
  }
  let groups: string[] = [];
  if (input.groups !== undefined) {
    const g = typeof input.groups === 'string' ? [input.groups] : input.groups;
    if (!Array.isArray(g) || g.some((x) => typeof x !== 'string' || !/^[A-Za-z0-9_.-]{1,63}$/.test(x))) {
      throw fail('groups: expected a list of names of A-Z a-z 0-9 _ . -');
    }
    groups = g as string[];
  }
  const heartbeatMs = input.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  // Gateways hold a heartbeat to these bounds: one outside would read as a host gone stale.
  if (!Number.isInteger(heartbeatMs) || heartbeatMs < MIN_HEARTBEAT_MS || heartbeatMs > MAX_HEARTBEAT_MS) {
    throw fail(`heartbeat_ms: expected ${MIN_HEARTBEAT_MS}..${MAX_HEARTBEAT_MS} ms, got ${heartbeatMs}`);
  }
  const out: AgentNatsConfig = {
    servers,
    name,
    labels: labelMap(input.labels, fail),
    groups,
    heartbeatMs,
  };
  if (input.creds) out.creds = input.creds;
  if (tls) out.tls = tls;
  return out;
}
