// One place that turns NATS settings (servers, credentials file, TLS files) into a
// connection, for the agent and the gateway alike. Reconnects forever: a cluster node going
// away is routine, and a client that gave up would drop its host from the fleet.
//
// The first connection tries the servers in a random order, each for at most
// CONNECT_TIMEOUT_MS: a node that is down (or whose packets are dropped) costs one short try,
// not nats.js's 20 s, so a one-shot CLI given three seeds with one of them down connects at
// once. An agent waits for a server forever (it starts before NATS at boot); a gateway or a
// CLI says, naming the servers, that none answered.
import { FleetError } from '@fleetls/core';
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

/** How long one server may take to accept a connection (TCP, TLS, INFO/CONNECT/PONG). */
export const CONNECT_TIMEOUT_MS = 2000;

export function natsAuthenticator(file: string, key = 'nats_creds'): Authenticator {
  const text = readSettingFile(file, key, 'utf8');
  if (text.includes('-----BEGIN NATS USER JWT-----')) return credsAuthenticator(new TextEncoder().encode(text));
  const seed = text.trim();
  if (/^SU[A-Z2-7]{56}$/.test(seed)) return nkeyAuthenticator(new TextEncoder().encode(seed));
  throw new Error(`${key}: ${file} holds neither a .creds file (user JWT and seed) nor an nkey user seed (SU…)`);
}

export function natsConnectOptions(settings: NatsSettings, extra: ConnectExtra): NodeConnectionOptions {
  const opts: NodeConnectionOptions = {
    servers: settings.servers,
    name: extra.name,
    noRandomize: false,
    timeout: CONNECT_TIMEOUT_MS,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    reconnectJitter: 100,
    waitOnFirstConnect: extra.waitForServers ?? true,
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

export interface ConnectExtra {
  /** The client's name, as the server's monitoring shows it. */
  name: string;
  inboxPrefix?: string;
  /** The setting the credentials file came from, named in its errors. */
  key?: string;
  /** true (default): keep trying until a server answers; false: fail once each was tried. */
  waitForServers?: boolean;
}

export async function connectNats(settings: NatsSettings, extra: ConnectExtra): Promise<NatsConnection> {
  const opts = natsConnectOptions(settings, extra);
  try {
    return await connect(opts);
  } catch (err) {
    const why = (err as Error).message || String(err);
    throw new FleetError(
      'unavailable',
      `NATS connect: no server of ${settings.servers.join(', ')} accepted a connection within ${CONNECT_TIMEOUT_MS} ms each (${why})`,
      { cause: err },
    );
  }
}

/**
 * The JetStream replicas a fleet's buckets are made with when the operator gives none: 3 in a
 * cluster of 3 or more nodes (the servers the client was given, or the cluster's nodes the
 * server announces, whichever is more), so one node down loses neither the registry nor the
 * pages; 1 on a single server.
 */
export function clusterReplicas(nc: NatsConnection, seeds: string[]): 1 | 3 {
  const announced = nc.info?.connect_urls?.length ?? 0;
  return Math.max(announced, new Set(seeds).size) >= 3 ? 3 : 1;
}

/**
 * A denied subject as the permission that would allow it: a reply inbox of this connection
 * (`_INBOX.<nuid>…`, any prefix) is `_INBOX.>`, not the one-off id the server named (issue 40:
 * messages ended in inbox ids an operator cannot act on).
 */
export function permissionSubject(subject: string): string {
  const inbox = /^(.+?)\.[0-9A-Za-z]{22}(?:\.|$)/.exec(subject);
  return inbox ? `${inbox[1]}.>` : subject;
}

/**
 * What a NATS or JetStream failure means for the operator: which permission the server
 * denied, or that JetStream does not answer. nats.js reports a subject no stream stores,
 * and JetStream off, both as "jetstream is not enabled", and a denied `$JS.API.INFO` as a
 * request error: neither says what to change.
 */
export function natsProblem(err: unknown): string {
  const e = err as { name?: string; message?: string };
  const m = e?.message ?? String(err);
  const denied = /Permissions Violation for (Publish|Subscription) to "([^"]+)"/i.exec(m);
  if (denied) {
    const what = denied[1].toLowerCase() === 'publish' ? 'publish to' : 'subscribe to';
    return `the server's permissions deny these credentials to ${what} ${permissionSubject(denied[2])} (\`fleetls nats issue\` writes the permissions each user needs)`;
  }
  if (e?.name === 'JetStreamNotEnabled' || /jetstream is not enabled/i.test(m)) {
    return 'JetStream does not answer: it is not enabled on the server (`jetstream {}`) or for this account (`jetstream: enabled`), or no stream stores the subject';
  }
  return m;
}
