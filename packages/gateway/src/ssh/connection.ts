// One long-lived ssh2 connection per host, reused by every call: connected lazily, never
// caching a failed connect, reconnected after a close. At most `maxChannels` channels at
// once (sshd's MaxSessions is 10 and frees slots late), "Channel open failure" retried
// with backoff. Errors are classified once, here, into core's codes.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { codeFromSshError, FleetError, NOOP_OBSERVER, type Observer, sshCallFailure } from '@fleetls/core';
import type { Logger } from 'pino';
import ssh2 from 'ssh2';
import { fingerprint, hostKeyRefusal, knownKeyTypes, verifyHostKey } from './known-hosts.js';
import { parseJump, readUserSshConfig, resolveSshConfig } from './ssh-config.js';
import type { SshHostConfig } from './types.js';

const { Client } = ssh2;
type Client = InstanceType<typeof ssh2.Client>;

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_MAX_CHANNELS = 4;
const OPEN_RETRIES = 5;
/** known_hosts key type → the host key algorithms ssh2 can negotiate for it. */
const HOST_KEY_ALGOS: Record<string, ssh2.ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};
const STDERR_LIMIT = 64 * 1024;

/** Where and how to connect, after ~/.ssh/config and the inventory are merged. */
export interface SshTarget {
  /** The inventory's name for it (messages). */
  label: string;
  host: string;
  port: number;
  user: string;
  privateKey?: Buffer;
  passphrase?: string;
  agent?: string;
  knownHostsFile: string;
  strictHostKeyChecking: boolean;
  connectTimeoutMs: number;
  jump?: SshTarget;
}

function readKey(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Merges the inventory entry with ~/.ssh/config (the inventory wins, as ssh's command line does). */
export function resolveTarget(
  cfg: SshHostConfig,
  opts: { connectTimeoutMs?: number; configText?: string } = {},
): SshTarget {
  const home = homedir();
  const text = opts.configText ?? readUserSshConfig(home);
  const conf = resolveSshConfig(cfg.host, text, home);
  const user = cfg.user ?? conf.user ?? process.env.USER ?? 'root';
  const identityFiles = cfg.identityFile
    ? [cfg.identityFile]
    : conf.identityFiles.length > 0
      ? conf.identityFiles
      : ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((n) => join(home, '.ssh', n));
  let privateKey: Buffer | undefined;
  for (const f of identityFiles) {
    privateKey = readKey(f);
    if (privateKey) break;
  }
  if (cfg.identityFile && !privateKey) {
    throw new FleetError('unauthenticated', `identity_file ${cfg.identityFile} cannot be read`);
  }
  let passphrase: string | undefined;
  if (cfg.passphraseFile) passphrase = readFileSync(cfg.passphraseFile, 'utf8').replace(/\r?\n$/, '');
  else if (cfg.passphraseEnv) passphrase = process.env[cfg.passphraseEnv];
  const connectTimeoutMs = cfg.connectTimeoutMs ?? opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const knownHostsFile = cfg.knownHosts ?? join(home, '.ssh', 'known_hosts');
  const target: SshTarget = {
    label: cfg.host,
    host: conf.hostName,
    port: cfg.port ?? conf.port ?? 22,
    user,
    privateKey,
    passphrase,
    agent: process.env.SSH_AUTH_SOCK || undefined,
    knownHostsFile,
    strictHostKeyChecking: cfg.strictHostKeyChecking !== false,
    connectTimeoutMs,
  };
  const jumpSpec = cfg.proxyJump ?? conf.proxyJump;
  if (jumpSpec) {
    const j = parseJump(jumpSpec);
    target.jump = resolveTarget(
      { host: j.host, port: j.port, user: j.user, knownHosts: cfg.knownHosts, connectTimeoutMs },
      { configText: text },
    );
  }
  return target;
}

/** ssh2 / socket error → FleetError tagged with the host, by core's ssh2 table (errno, then `level`). */
export function classifySshError(err: unknown, label: string): FleetError {
  if (err instanceof FleetError) return err;
  const e = (err ?? {}) as { code?: unknown; level?: unknown; message?: unknown };
  const msg = `${label}: ${typeof e.message === 'string' ? e.message : String(err)}`;
  return new FleetError(codeFromSshError(e) ?? 'internal', msg, { cause: err });
}

export interface ExecResult {
  /** Collected stdout, unless a stdout handler consumed it. */
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal?: string;
}

/** A counting semaphore whose waits can be aborted. */
class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        this.waiting = this.waiting.filter((w) => w !== go);
        reject(new FleetError('cancelled', 'cancelled while waiting for an SSH channel'));
      };
      this.waiting.push(go);
      signal.addEventListener('abort', abort, { once: true });
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(t);
      reject(new FleetError('cancelled', 'cancelled'));
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

export class SshConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  private readonly sem: Semaphore;
  private opened = 0;
  private closed = false;
  private jumpConn?: SshConnection;

  constructor(
    readonly target: SshTarget,
    private readonly logger: Logger,
    maxChannels = DEFAULT_MAX_CHANNELS,
    private readonly observer: Observer = NOOP_OBSERVER,
  ) {
    this.sem = new Semaphore(maxChannels);
    if (!target.strictHostKeyChecking) {
      logger.warn(
        { host: target.label },
        'strict_host_key_checking is off for this host: its host key is not verified',
      );
    }
  }

  /** TCP connections that completed the SSH handshake so far. */
  connectionsOpened(): number {
    return this.opened;
  }

  /** The connected client, connecting if needed; a failed connect is never cached. */
  client_(): Promise<Client> {
    if (this.closed) return Promise.reject(new FleetError('cancelled', `${this.target.label}: backend closed`));
    if (this.client) {
      this.observer.sshConnection('reused');
      return Promise.resolve(this.client);
    }
    if (!this.connecting) {
      const p = this.connect().then(
        (c) => {
          this.client = c;
          return c;
        },
        (err) => {
          if (this.connecting === p) this.connecting = undefined;
          throw err;
        },
      );
      this.connecting = p;
    }
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const t = this.target;
    let sock: Duplex | undefined;
    if (t.jump) {
      this.jumpConn ??= new SshConnection(t.jump, this.logger, 2, this.observer);
      const bastion = await this.jumpConn.client_();
      sock = await new Promise<Duplex>((resolve, reject) =>
        bastion.forwardOut('127.0.0.1', 0, t.host, t.port, (err, stream) =>
          err ? reject(classifySshError(err, `${t.label} via ${t.jump!.label}`)) : resolve(stream),
        ),
      );
    }
    let knownHosts = '';
    try {
      knownHosts = readFileSync(t.knownHostsFile, 'utf8');
    } catch {
      // A missing known_hosts makes every key unknown.
    }
    const c = new Client();
    let hostKeyError: FleetError | undefined;
    return new Promise<Client>((resolve, reject) => {
      let settled = false;
      // Permanent: ssh2 may emit 'error' more than once, and an unhandled one kills the process.
      c.on('error', (err) => {
        const fe = hostKeyError ?? classifySshError(err, t.label);
        if (!settled) {
          settled = true;
          reject(fe);
        } else {
          this.logger.warn({ host: t.label, err: fe.message }, 'SSH connection error');
        }
      });
      c.on('connect', () => c.setNoDelay(true));
      c.once('ready', () => {
        if (settled) return;
        settled = true;
        this.opened++;
        this.observer.sshConnection('opened');
        resolve(c);
      });
      c.on('close', () => {
        if (this.client === c) {
          this.client = undefined;
          this.connecting = undefined;
        }
        if (!settled) {
          settled = true;
          reject(hostKeyError ?? new FleetError('unavailable', `${t.label}: connection closed during handshake`));
        }
      });
      const preferred = knownKeyTypes(knownHosts, t.host, t.port).flatMap((k) => HOST_KEY_ALGOS[k] ?? []);
      try {
        c.connect({
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
          hostVerifier: (key: Buffer): boolean => {
            const verdict = verifyHostKey(knownHosts, t.host, t.port, key);
            if (verdict === 'ok') return true;
            const fp = fingerprint(key);
            if (!t.strictHostKeyChecking && verdict !== 'revoked') {
              this.logger.warn({ host: t.label, fingerprint: fp, verdict }, 'accepting an unverified SSH host key');
              return true;
            }
            hostKeyError = new FleetError('unauthenticated', hostKeyRefusal(t.label, verdict, t, key));
            return false;
          },
        });
      } catch (err) {
        settled = true;
        reject(classifySshError(err, t.label));
      }
    });
  }

  /**
   * Runs one command on its own channel. `onStdout` consumes output as it streams (then
   * `stdout` is empty). Aborting closes the channel; the remote `timeout` bounds the
   * process, since sshd refuses signals for root logins.
   */
  async exec(cmd: string, signal: AbortSignal, onStdout?: (chunk: Buffer) => void): Promise<ExecResult> {
    await this.sem.acquire(signal);
    try {
      for (let attempt = 0; ; attempt++) {
        if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
        const client = await this.client_();
        try {
          return await this.execOnce(client, cmd, signal, onStdout);
        } catch (err) {
          const failure = sshCallFailure(err);
          if (failure === 'refused' && attempt < OPEN_RETRIES) {
            await sleep(10 * 2 ** attempt, signal);
            continue;
          }
          if (failure === 'gone' && attempt === 0) {
            if (this.client === client) {
              this.client = undefined;
              this.connecting = undefined;
            }
            continue;
          }
          throw classifySshError(err, this.target.label);
        }
      }
    } finally {
      this.sem.release();
    }
  }

  private execOnce(
    client: Client,
    cmd: string,
    signal: AbortSignal,
    onStdout?: (chunk: Buffer) => void,
  ): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      client.exec(cmd, (err, ch) => {
        if (err) return reject(err);
        let done = false;
        const out: Buffer[] = [];
        const errs: Buffer[] = [];
        let errLen = 0;
        let code: number | null = null;
        let sig: string | undefined;
        const abort = () => {
          if (done) return;
          done = true;
          try {
            ch.signal('KILL');
          } catch {
            // refused for root logins; `timeout` bounds the command
          }
          ch.close();
          reject(new FleetError('cancelled', `${this.target.label}: cancelled`));
        };
        signal.addEventListener('abort', abort, { once: true });
        ch.on('data', (d: Buffer) => {
          if (done) return;
          if (onStdout) {
            try {
              onStdout(d);
            } catch (e) {
              done = true;
              ch.close();
              signal.removeEventListener('abort', abort);
              reject(e);
            }
          } else out.push(d);
        });
        ch.stderr.on('data', (d: Buffer) => {
          if (errLen < STDERR_LIMIT) {
            errs.push(d);
            errLen += d.length;
          }
        });
        ch.on('exit', (c: number | null, s?: string) => {
          code = c;
          sig = s;
        });
        ch.on('close', () => {
          signal.removeEventListener('abort', abort);
          if (done) return;
          done = true;
          resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(errs).toString('utf8'), code, signal: sig });
        });
      });
    });
  }

  /**
   * A `direct-streamlocal@openssh.com` channel to the Unix socket at `socketPath` on the
   * host (ssh -L's local-to-remote-socket form). Not a session, so it takes no
   * MaxSessions slot. A refusal on a working connection is a value, not an error: the host
   * is reachable over SSH, only its socket is not. sshd gives every refusal the same
   * answer ("open failed": forwarding disabled, no socket, no permission, nothing listening).
   * A failed connection throws, classified.
   */
  async openStreamLocal(socketPath: string): Promise<ssh2.ClientChannel | { refused: string }> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.client_();
      try {
        return await new Promise<ssh2.ClientChannel>((resolve, reject) => {
          client.openssh_forwardOutStreamLocal(socketPath, (err, ch) => (err ? reject(err) : resolve(ch)));
        });
      } catch (err) {
        const failure = sshCallFailure(err);
        if (failure === 'gone' && attempt === 0) {
          if (this.client === client) {
            this.client = undefined;
            this.connecting = undefined;
          }
          continue;
        }
        if (failure === 'refused') return { refused: (err as Error).message };
        throw classifySshError(err, this.target.label);
      }
    }
  }

  /** An SFTP session (it holds a MaxSessions slot until ended; the caller ends it). */
  async sftp(signal: AbortSignal): Promise<{ sftp: ssh2.SFTPWrapper; release: () => void }> {
    await this.sem.acquire(signal);
    try {
      const client = await this.client_();
      const sftp = await new Promise<ssh2.SFTPWrapper>((resolve, reject) =>
        client.sftp((err, s) => (err ? reject(classifySshError(err, this.target.label)) : resolve(s))),
      );
      let released = false;
      return {
        sftp,
        release: () => {
          if (released) return;
          released = true;
          sftp.end();
          this.sem.release();
        },
      };
    } catch (err) {
      this.sem.release();
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    this.client?.end();
    this.client = undefined;
    this.connecting = undefined;
    this.jumpConn?.close();
  }
}
