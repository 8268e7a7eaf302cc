// What a NATS fleet needs, made in one directory: an nkey user seed per host (HOST.nk) and one
// for the gateways (gateway.nk), the server's `accounts` block with each one's permissions
// (accounts.conf), a gateway inventory (fleet.yaml), and a node's configuration (NAME.conf)
// that includes the accounts. Seeds are made once and kept: issuing again adds hosts and
// rewrites accounts.conf from every seed in the directory.
//
// With --tls, tls/ holds a CA (ca.crt, ca.key), a client certificate per host
// (tls/hosts/HOST.crt, .key) and one for the gateways (tls/gateway.crt, .key), and each node
// gets a server certificate (tls/nodes/NAME.crt, .key) its configuration requires clients'
// certificates against: made with `fleetls pki`'s X.509 code (pki.ts), kept when there.
//
// Users are nkeys listed in the server's configuration (no operator JWTs): Debian's
// nats-server 2.9 needs no resolver for it, and the account is the configuration's
// `FLEETLS` block, which takes no key of its own in this mode.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { invalidArgument } from '@fleetls/core';
import { accountsConf, parseNatsServers } from '@fleetls/runtime/nats';
import { createUser, fromSeed } from '@nats-io/nkeys';
import { HOST_NAME_RE } from '../../inventory/hosts.js';
import { writeOwnFile } from './own-file.js';
import { initCa, issueClient, issueServer, type PkiFiles, pkiFiles } from './pki.js';

export const GATEWAY_KEY = 'gateway.nk';
const ACCOUNTS = 'accounts.conf';
const INVENTORY = 'fleet.yaml';
const TLS = 'tls';

/** Where the TLS material of `dir` is: the CA, and the hosts', nodes' and gateways' certificates. */
export function tlsFiles(dir: string) {
  const tls = join(dir, TLS);
  const ca = pkiFiles(tls);
  const under = (sub: string): PkiFiles => ({ ...ca, dir: join(tls, sub) });
  return {
    ca,
    hosts: under('hosts'),
    nodes: under('nodes'),
    host: (h: string) => ({ cert: join(tls, 'hosts', `${h}.crt`), key: join(tls, 'hosts', `${h}.key`) }),
    node: (n: string) => ({ cert: join(tls, 'nodes', `${n}.crt`), key: join(tls, 'nodes', `${n}.key`) }),
    gateway: { cert: join(tls, 'gateway.crt'), key: join(tls, 'gateway.key') },
  };
}

/**
 * `issue --tls`: the CA (made once), and a client certificate for each of `hosts` and for the
 * gateways, each made when absent: a host's certificate is what its agent shows the servers
 * (--nats-tls-cert, --nats-tls-key; --nats-tls-ca tls/ca.crt).
 */
export async function issueTls(dir: string, hosts: string[]): Promise<string[]> {
  for (const h of hosts) checkHost(h);
  const t = tlsFiles(dir);
  const said: string[] = [];
  if (existsSync(t.ca.caCert)) said.push(`kept ${t.ca.caCert}`);
  else {
    await initCa(t.ca.dir, { name: 'fleetls NATS CA' });
    said.push(`wrote ${t.ca.caCert} and ${t.ca.caKey} (the fleet's NATS CA; the key 0600)`);
  }
  if (!existsSync(t.gateway.cert)) {
    await issueClient(t.ca, 'fleetls-gateway');
    said.push(`wrote ${t.gateway.cert} (the gateways' client certificate)`);
  }
  mkdirSync(t.hosts.dir, { recursive: true, mode: 0o700 });
  for (const h of hosts) {
    if (existsSync(t.host(h).cert)) continue;
    await issueClient(t.hosts, h, undefined, h);
    said.push(`wrote ${t.host(h).cert} (${h}'s client certificate: --nats-tls-cert, --nats-tls-key)`);
  }
  return said;
}

/** `node --tls`: the node's server certificate (its names: `names`), made when absent. */
export async function nodeTls(
  dir: string,
  name: string,
  names: string[],
): Promise<{ cert: string; key: string; ca: string }> {
  const t = tlsFiles(dir);
  if (!existsSync(t.ca.caCert))
    throw invalidArgument(`--tls: no CA in ${t.ca.dir}: run fleetls nats issue --tls first`);
  const files = t.node(name);
  if (!existsSync(files.cert)) {
    mkdirSync(t.nodes.dir, { recursive: true, mode: 0o700 });
    // The NATS client names a loopback server `localhost` when it checks its certificate.
    const loopback = names.some((n) => n === 'localhost' || n === '::1' || /^127\./.test(n));
    await issueServer(t.nodes, name, loopback ? [...names, 'localhost'] : names, name);
  }
  // Absolute: nats-server reads a certificate's path from its working directory, not the file's.
  return { cert: resolve(files.cert), key: resolve(files.key), ca: resolve(t.ca.caCert) };
}

/** `file` written (mode) by descriptor, never through a planted link (own-file.ts); `fresh`: only if absent. */
function writeOwn(file: string, text: string, mode: number, fresh = false): void {
  writeOwnFile(file, text, { mode, fresh, refusal: (why) => `nats: refusing to write ${file}: ${why}` });
}

function readSeed(file: string): string {
  const seed = readFileSync(file, 'utf8').trim();
  if (!/^SU[A-Z2-7]{56}$/.test(seed)) throw invalidArgument(`nats: ${file} holds no nkey user seed (SU…)`);
  return seed;
}

const publicKey = (seed: string) => fromSeed(new TextEncoder().encode(seed)).getPublicKey();

/** The seed at `file`, made when absent. */
function ensureSeed(file: string): { made: boolean; nkey: string } {
  try {
    return { made: false, nkey: publicKey(readSeed(file)) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const u = createUser();
  writeOwn(file, `${new TextDecoder().decode(u.getSeed())}\n`, 0o600, true);
  return { made: true, nkey: u.getPublicKey() };
}

export function checkHost(host: string): void {
  if (!HOST_NAME_RE.test(host) || host.length > 253 || `${host}.nk` === GATEWAY_KEY)
    throw invalidArgument(
      `host: expected a host name of letters, digits, ".", "_", "-" (not "gateway"), got ${JSON.stringify(host)}`,
    );
}

/** Seeds for `hosts` and the gateways (kept when there), accounts.conf from every seed, fleet.yaml when asked. */
export function issue(dir: string, hosts: string[], servers?: string, tls = false): string[] {
  for (const h of hosts) checkHost(h);
  const urls = servers === undefined ? undefined : parseNatsServers(servers, (m) => invalidArgument(m), '--servers');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const said: string[] = [];
  const gw = ensureSeed(join(dir, GATEWAY_KEY));
  if (gw.made) said.push(`wrote ${join(dir, GATEWAY_KEY)} (the gateways' nkey seed, 0600)`);
  for (const host of hosts) {
    const k = ensureSeed(join(dir, `${host}.nk`));
    said.push(
      k.made ? `wrote ${join(dir, `${host}.nk`)} (${host}'s nkey seed, 0600)` : `kept ${join(dir, `${host}.nk`)}`,
    );
  }
  const agents = readdirSync(dir)
    .filter((f) => f.endsWith('.nk') && f !== GATEWAY_KEY)
    .sort()
    .map((f) => ({ host: f.slice(0, -3), nkey: publicKey(readSeed(join(dir, f))) }));
  writeOwn(join(dir, ACCOUNTS), accountsConf({ agents, gateways: [gw.nkey] }), 0o644);
  said.push(`wrote ${join(dir, ACCOUNTS)} (${agents.length} agents and the gateways, each with its permissions)`);
  if (urls) {
    const yaml = [
      "# The gateways' inventory: the registered hosts, and what the operator says of them.",
      'hosts_from: nats',
      'nats:',
      `  servers: [${urls.map((u) => JSON.stringify(u)).join(', ')}]`,
      `  creds: ${GATEWAY_KEY}`,
      ...(tls ? [`  tls: { ca: ${TLS}/ca.crt, cert: ${TLS}/gateway.crt, key: ${TLS}/gateway.key }`] : []),
      '  hosts:',
      ...agents.map((a) => `    ${JSON.stringify(a.host)}: { labels: {}, groups: [] }`),
      '',
    ].join('\n');
    try {
      // Made once: the operator's labels and groups in it are not overwritten.
      writeOwn(join(dir, INVENTORY), yaml, 0o644, true);
      said.push(
        `wrote ${join(dir, INVENTORY)} (the gateways' inventory: fleetls --inventory ${join(dir, INVENTORY)} …)`,
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      said.push(`kept ${join(dir, INVENTORY)} (add new hosts' labels and groups under nats.hosts)`);
    }
  }
  return said;
}

const ADDRESS_RE = /^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/;

function checkAddress(flag: string, v: string): string {
  const m = ADDRESS_RE.exec(v);
  if (!m || Number(m[2]) > 65535) throw invalidArgument(`${flag}: expected HOST:PORT, got ${JSON.stringify(v)}`);
  return v;
}

export interface NodeSpec {
  name: string;
  listen: string;
  clusterListen?: string;
  routes: string[];
  store: string;
  tls?: { cert: string; key: string; ca?: string };
}

/** The host of HOST:PORT ([v6]:PORT: the address without its brackets). */
export function hostOf(address: string): string {
  const host = address.slice(0, address.lastIndexOf(':'));
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/** Refuses a node's bad name or addresses (before anything is written for it). */
export function checkNode(spec: NodeSpec): void {
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(spec.name))
    throw invalidArgument(`name: expected letters, digits, "_", "-", got ${JSON.stringify(spec.name)}`);
  checkAddress('--listen', spec.listen);
  if (spec.clusterListen) checkAddress('--cluster-listen', spec.clusterListen);
  for (const r of spec.routes) checkAddress('--route', r);
  if (spec.routes.length > 0 && !spec.clusterListen) throw invalidArgument('--route: only with --cluster-listen');
}

/** NAME.conf: one node of the cluster, including accounts.conf. */
export function node(dir: string, spec: NodeSpec): string {
  checkNode(spec);
  readFileSync(join(dir, ACCOUNTS)); // made by `fleetls nats issue` first
  const q = JSON.stringify;
  const lines = [
    `# nats-server -c ${join(dir, `${spec.name}.conf`)}`,
    `server_name: ${spec.name}`,
    `listen: ${spec.listen}`,
    `jetstream { store_dir: ${q(spec.store)} }`,
  ];
  if (spec.clusterListen) {
    lines.push(
      `cluster { name: fleetls, listen: ${spec.clusterListen}, routes: [${spec.routes.map((r) => q(`nats-route://${r}`)).join(', ')}] }`,
    );
  }
  if (spec.tls) {
    // With a CA, every client must show a certificate it signed (agents: nats_tls cert and key).
    lines.push(
      `tls { cert_file: ${q(spec.tls.cert)}, key_file: ${q(spec.tls.key)}${spec.tls.ca ? `, ca_file: ${q(spec.tls.ca)}, verify: true` : ''} }`,
    );
  }
  lines.push(`include ${q(ACCOUNTS)}`, '');
  const file = join(dir, `${spec.name}.conf`);
  writeOwn(file, lines.join('\n'), 0o644);
  return file;
}
