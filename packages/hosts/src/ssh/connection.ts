// One long-lived ssh2 connection per host, reused by every call: connected lazily, never
// caching a failed connect, reconnected after a close. At most `maxChannels` channels at
// once (sshd's MaxSessions is 10 and frees slots late), "Channel open failure" retried
// with backoff. Errors are classified once (ssh-handshake.ts), into core's codes.
import type { Duplex } from 'node:stream';
import { FleetError, NOOP_OBSERVER, type Observer, sshCallFailure } from '@fleetls/core';
import type { Logger } from 'pino';
import type ssh2 from 'ssh2';
import { Semaphore, sleep } from './abortable.js';
import { type ExecResult, execOnChannel } from './ssh-exec.js';
import { type Client, classifySshError, handshake } from './ssh-handshake.js';
import type { SshTarget } from './ssh-target.js';

export type { ExecResult } from './ssh-exec.js';
export { classifySshError } from './ssh-handshake.js';
export { DEFAULT_CONNECT_TIMEOUT_MS, resolveTarget, type SshTarget } from './ssh-target.js';

export const DEFAULT_MAX_CHANNELS = 4;
const OPEN_RETRIES = 5;

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
    return handshake(t, sock, this.logger, {
      opened: () => {
        this.opened++;
        this.observer.sshConnection('opened');
      },
      closed: (c) => {
        if (this.client === c) {
          this.client = undefined;
          this.connecting = undefined;
        }
      },
    });
  }

  /**
   * Runs one command on its own channel. `onStdout` consumes output as it streams (then
   * `stdout` is empty); `stdin`, when given, is written and closed. Aborting closes the channel; the remote `timeout` bounds the
   * process, since sshd refuses signals for root logins.
   */
  async exec(
    cmd: string,
    signal: AbortSignal,
    onStdout?: (chunk: Buffer) => void,
    stdin?: Buffer | Promise<Buffer>,
  ): Promise<ExecResult> {
    await this.sem.acquire(signal);
    try {
      for (let attempt = 0; ; attempt++) {
        if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
        const client = await this.client_();
        try {
          return await execOnChannel(client, cmd, signal, this.target.label, onStdout, stdin);
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
