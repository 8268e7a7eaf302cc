// One SSH handshake: the host key checked against known_hosts (asking for a key type it
// holds, as OpenSSH does), the client's key or agent offered, every failure classified.
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { codeFromSshError, FleetError } from '@fleetls/core';
import type { Logger } from 'pino';
import ssh2 from 'ssh2';
import { fingerprint, hostKeyRefusal, knownKeyTypes, verifyHostKey } from './known-hosts.js';
import type { SshTarget } from './ssh-target.js';

const { Client } = ssh2;
export type Client = InstanceType<typeof ssh2.Client>;

/** known_hosts key type → the host key algorithms ssh2 can negotiate for it. */
const HOST_KEY_ALGOS: Record<string, ssh2.ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/** ssh2 / socket error → FleetError tagged with the host, by core's ssh2 table (errno, then `level`). */
export function classifySshError(err: unknown, label: string): FleetError {
  if (err instanceof FleetError) return err;
  const e = (err ?? {}) as { code?: unknown; level?: unknown; message?: unknown };
  const msg = `${label}: ${typeof e.message === 'string' ? e.message : String(err)}`;
  return new FleetError(codeFromSshError(e) ?? 'internal', msg, { cause: err });
}

/** What the connection owning the client hears of it: the handshake done, the client closed. */
export interface HandshakeEvents {
  opened(): void;
  closed(client: Client): void;
}

/** The host key check: true to go on; a refusal records why in `refuse`. */
function hostVerifier(t: SshTarget, knownHosts: string, logger: Logger, refuse: (err: FleetError) => void) {
  return (key: Buffer): boolean => {
    const verdict = verifyHostKey(knownHosts, t.host, t.port, key);
    if (verdict === 'ok') return true;
    const fp = fingerprint(key);
    if (!t.strictHostKeyChecking && verdict !== 'revoked') {
      logger.warn({ host: t.label, fingerprint: fp, verdict }, 'accepting an unverified SSH host key');
      return true;
    }
    refuse(new FleetError('unauthenticated', hostKeyRefusal(t.label, verdict, t, key)));
    return false;
  };
}

function connectConfig(t: SshTarget, knownHosts: string, sock: Duplex | undefined): ssh2.ConnectConfig {
  const preferred = knownKeyTypes(knownHosts, t.host, t.port).flatMap((k) => HOST_KEY_ALGOS[k] ?? []);
  return {
    host: t.host,
    port: t.port,
    username: t.user,
    privateKey: t.privateKey,
    passphrase: t.passphrase,
    agent: t.agent,
    sock,
    readyTimeout: t.connectTimeoutMs,
    keepaliveInterval: 15_000,
    keepaliveCountMax: 3,
    // Ask for a host key type known_hosts holds, as OpenSSH does, so a known host is not "unknown".
    ...(preferred.length > 0
      ? { algorithms: { serverHostKey: { prepend: preferred } } as ssh2.ConnectConfig['algorithms'] }
      : {}),
  };
}

/** A connected, authenticated client over `sock` (a jump host's forward) or a new TCP connection. */
export function handshake(
  target: SshTarget,
  sock: Duplex | undefined,
  logger: Logger,
  on: HandshakeEvents,
): Promise<Client> {
  let knownHosts = '';
  try {
    knownHosts = readFileSync(target.knownHostsFile, 'utf8');
  } catch {
    // A missing known_hosts makes every key unknown.
  }
  const c = new Client();
  let hostKeyError: FleetError | undefined;
  return new Promise<Client>((resolve, reject) => {
    let settled = false;
    // Permanent: ssh2 may emit 'error' more than once, and an unhandled one kills the process.
    c.on('error', (err) => {
      const fe = hostKeyError ?? classifySshError(err, target.label);
      if (!settled) {
        settled = true;
        reject(fe);
      } else {
        logger.warn({ host: target.label, err: fe.message }, 'SSH connection error');
      }
    });
    c.on('connect', () => c.setNoDelay(true));
    c.once('ready', () => {
      if (settled) return;
      settled = true;
      on.opened();
      resolve(c);
    });
    c.on('close', () => {
      on.closed(c);
      if (!settled) {
        settled = true;
        reject(hostKeyError ?? new FleetError('unavailable', `${target.label}: connection closed during handshake`));
      }
    });
    const refuse = (err: FleetError) => {
      hostKeyError = err;
    };
    try {
      c.connect({
        ...connectConfig(target, knownHosts, sock),
        hostVerifier: hostVerifier(target, knownHosts, logger, refuse),
      });
    } catch (err) {
      settled = true;
      reject(classifySshError(err, target.label));
    }
  });
}
