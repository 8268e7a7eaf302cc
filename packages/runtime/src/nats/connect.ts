// One place that turns NATS settings (servers, credentials file, TLS files) into a
// connection, for the agent and the gateway alike. Reconnects forever: a cluster node going
// away is routine, and a client that gave up would drop its host from the fleet.
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  type NatsConnection,
  type NodeConnectionOptions,
  nkeyAuthenticator,
} from '@nats-io/transport-node';
import { readSettingFile } from '../credentials/setting-file.js';

export interface NatsSettings {
  /** nats://HOST:PORT or tls://HOST:PORT, one or more (a cluster's seeds). */
  servers: string[];
  /**
   * A credentials file: a `.creds` (user JWT and nkey seed, for operator-mode servers) or a
   * file holding only an nkey user seed (`SU…`), for servers listing users by nkey.
   */
  creds?: string;
  /** TLS to the server: the CA that signs it, and a client certificate when it asks for one. */
  tls?: { ca?: string; cert?: string; key?: string };
}

export function natsAuthenticator(file: string, key = 'nats_creds'): Authenticator {
  const text = readSettingFile(file, key, 'utf8');
  if (text.includes('-----BEGIN NATS USER JWT-----')) return credsAuthenticator(new TextEncoder().encode(text));
  const seed = text.trim();
  if (/^SU[A-Z2-7]{56}$/.test(seed)) return nkeyAuthenticator(new TextEncoder().encode(seed));
  throw new Error(`${key}: ${file} holds neither a .creds file (user JWT and seed) nor an nkey user seed (SU…)`);
}

export function natsConnectOptions(
  settings: NatsSettings,
  extra: { name: string; inboxPrefix?: string; key?: string },
): NodeConnectionOptions {
  const opts: NodeConnectionOptions = {
    servers: settings.servers,
    name: extra.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    reconnectJitter: 100,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
    maxPingOut: 2,
  };
  if (extra.inboxPrefix) opts.inboxPrefix = extra.inboxPrefix;
  if (settings.creds) opts.authenticator = natsAuthenticator(settings.creds, extra.key);
  if (settings.tls) {
    opts.tls = {};
    if (settings.tls.ca) opts.tls.caFile = settings.tls.ca;
    if (settings.tls.cert) opts.tls.certFile = settings.tls.cert;
    if (settings.tls.key) opts.tls.keyFile = settings.tls.key;
  }
  return opts;
}

export function connectNats(
  settings: NatsSettings,
  extra: { name: string; inboxPrefix?: string; key?: string },
): Promise<NatsConnection> {
  return connect(natsConnectOptions(settings, extra));
}
