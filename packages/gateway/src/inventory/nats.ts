// The inventory's NATS keys: `hosts_from: nats` (the live registry's hosts beside the
// file's) and `nats: { servers, creds, tls: { ca, cert, key }, replicas }`, how the gateway
// reaches the cluster. Pure: problems go to the caller's list with their key path.
import type { NatsSettings } from '@fleetls/runtime/nats';

export interface GatewayNatsSettings extends NatsSettings {
  /** JetStream replicas of the registry and page store buckets (1, or the cluster's 3). */
  replicas?: number;
}

type Value = unknown;

const NATS_KEYS = ['servers', 'creds', 'tls', 'replicas'] as const;
const URL_RE = /^(nats|tls):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;

export function parseInventoryNats(
  v: Value,
  add: (path: string, message: string) => void,
  file: (p: string) => string,
): GatewayNatsSettings | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    add('nats', 'expected { servers: [nats://HOST:PORT, …], creds, tls: { ca, cert, key } }');
    return undefined;
  }
  const o = v as Record<string, Value>;
  for (const k of Object.keys(o)) {
    if (!(NATS_KEYS as readonly string[]).includes(k)) add(`nats.${k}`, `unknown key (known: ${NATS_KEYS.join(', ')})`);
  }
  const list = typeof o.servers === 'string' ? o.servers.split(',') : o.servers;
  const servers: string[] = [];
  if (!Array.isArray(list) || list.length === 0) add('nats.servers', 'required: a list of nats://HOST:PORT');
  else {
    for (const u of list) {
      if (typeof u === 'string' && URL_RE.test(u.trim()) && Number(URL_RE.exec(u.trim())?.[3] ?? 4222) <= 65535) {
        servers.push(u.trim());
      } else add('nats.servers', `expected nats://HOST:PORT or tls://HOST:PORT, got ${JSON.stringify(u)}`);
    }
  }
  const out: GatewayNatsSettings = { servers };
  if (o.creds !== undefined) {
    if (typeof o.creds !== 'string' || o.creds === '') add('nats.creds', 'expected a file (.creds or an nkey seed)');
    else out.creds = file(o.creds);
  }
  if (o.tls !== undefined) {
    const t = o.tls as Record<string, Value>;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) add('nats.tls', 'expected { ca, cert, key }');
    else {
      out.tls = {};
      for (const k of Object.keys(t)) {
        if (!['ca', 'cert', 'key'].includes(k)) add(`nats.tls.${k}`, 'unknown key (known: ca, cert, key)');
        else if (typeof t[k] !== 'string' || t[k] === '') add(`nats.tls.${k}`, 'expected a file');
        else out.tls[k as 'ca' | 'cert' | 'key'] = file(t[k] as string);
      }
    }
  }
  if (o.replicas !== undefined) {
    if (o.replicas !== 1 && o.replicas !== 3 && o.replicas !== 5)
      add('nats.replicas', `expected 1, 3 or 5, got ${JSON.stringify(o.replicas)}`);
    else out.replicas = o.replicas as number;
  }
  return out;
}
