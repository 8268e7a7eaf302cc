// The agent behind a host's sshd (`agent: "ssh:PATH"`): its gRPC spoken over a
// direct-streamlocal@openssh.com channel of the host's pooled, host-key-verified ssh2
// connection, the one the `find` fallback uses too.
//
// The agent client dials a socket itself (agent/http2/channel.ts, `unix:PATH`), so a per-host
// local forwarder is that socket: a Unix socket in a private 0700 directory, each accepted
// connection carried by one channel. The client keeps one HTTP/2 session per agent, so one
// SSH channel carries every call; the extra local hop is a kernel copy
// (bench/results/agent-ssh.md measures it). Plaintext gRPC inside SSH: the SSH
// connection is the encryption and the host-key check; the bearer token still applies.
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FleetError,
  type HostBackend,
  type Observer,
  type OnEntriesSeen,
  type Row,
  type StatInfo,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import type { Logger } from 'pino';
import { resolveTarget, SshConnection } from '../ssh/connection.js';
import { createSshBackend } from '../ssh/ssh-backend.js';
import type { SshHostConfig } from '../ssh/types.js';
import { createAgentBackend } from './client.js';

export interface AgentOverSshOptions {
  /** The host's connection, shared with its `find` backend; made on first use, closed by this backend. */
  connection: () => SshConnection;
  /** The agent's socket on the host (absolute; checked by the inventory). */
  socketPath: string;
  tokenFile?: string;
  connectTimeoutMs: number;
  logger: Logger;
}

/**
 * Asks the host, over an exec channel, why sshd would not connect the socket: sshd gives
 * every refusal the same "open failed". Prints the verdict, the socket's `ls -ld` line,
 * the login's user and groups.
 */
export function diagnoseCommand(socketPath: string): string {
  const p = `'${socketPath}'`;
  const listens = `command -v python3 >/dev/null 2>&1 && python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX)
try: s.connect(sys.argv[1])
except ConnectionRefusedError: print("stale"); sys.exit()
except OSError: sys.exit()
print("listening")' ${p}`;
  return [
    `if [ ! -e ${p} ]; then echo absent; elif [ ! -S ${p} ]; then echo notsocket;`,
    `elif [ ! -w ${p} ]; then echo denied; else echo usable; fi;`,
    `ls -ld -- ${p} 2>/dev/null || echo; id -un; id -Gn; ${listens} || true`,
  ].join(' ');
}

/** The diagnosis's output → what to tell the operator (pure). */
export function explainRefusal(socketPath: string, out: string): string {
  const [verdict = '', ls = '', user = '?', groups = '', listening = ''] = out.split('\n');
  const at = `agent socket ${socketPath}`;
  switch (verdict.trim()) {
    case 'absent':
      return `${at}: no such socket visible to SSH user ${user} (is fleetls-agent running with listen: unix:${socketPath}, and its directory searchable?)`;
    case 'notsocket':
      return `${at}: exists but is not a socket`;
    case 'denied': {
      const [mode, , owner, group] = ls.trim() === '' ? [] : ls.trim().split(/\s+/);
      const who = `SSH user ${user} (groups: ${groups.trim() || 'none'})`;
      if (!group) return `${at}: ${who} may not connect to it: add ${user} to the socket's group`;
      return `${at}: owned by ${owner}:${group} (${mode}), and ${who} may not connect to it: add ${user} to group ${group}`;
    }
    case 'usable':
      if (listening.trim() === 'stale')
        return `${at}: nothing listens on it (a stale socket: is fleetls-agent running?)`;
      if (listening.trim() === 'listening') {
        return `${at}: the agent listens, but sshd refuses stream forwarding: set AllowStreamLocalForwarding yes (or local) in sshd_config (DisableForwarding, and a key's restrict or no-port-forwarding, refuse it too)`;
      }
      return `${at}: SSH user ${user} may use it, yet sshd did not connect it: sshd refuses stream forwarding (AllowStreamLocalForwarding no, DisableForwarding, a key's restrict or no-port-forwarding), or nothing listens on the socket`;
    default:
      return `${at}: sshd did not open a stream to it (AllowStreamLocalForwarding no? no socket? no permission?)`;
  }
}

/** Why the last forwarded connection could not be carried: sshd refused the stream, or the SSH connection failed. */
type ForwardFailure = { refused: string } | { error: FleetError };

/**
 * A local Unix socket (in a private 0700 directory) whose every accepted connection is
 * carried by one direct-streamlocal channel to the agent's socket on the host; it keeps
 * why the last one could not be, until one is.
 */
class StreamForwarder {
  readonly dir = mkdtempSync(join(tmpdir(), 'fleetls-fwd-'));
  readonly localPath = join(this.dir, 'agent.sock');
  failure: ForwardFailure | undefined;
  private readonly server = net.createServer({ pauseOnConnect: true }, (local) => this.carry(local));
  private started: Promise<void> | undefined;

  constructor(
    private readonly connection: () => SshConnection,
    private readonly socketPath: string,
    /** Told when a connection was carried (the failure cleared). */
    private readonly onCarried: () => void,
  ) {}

  start(): Promise<void> {
    this.started ??= new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.localPath, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.started;
  }

  close(): void {
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private carry(local: net.Socket): void {
    local.on('error', () => {});
    Promise.resolve()
      .then(() => this.connection().openStreamLocal(this.socketPath))
      .then(
        (ch) => {
          if ('refused' in ch) {
            this.failure = ch;
            local.destroy();
            return;
          }
          this.failure = undefined;
          this.onCarried();
          ch.on('error', () => local.destroy());
          ch.on('close', () => local.destroy());
          local.on('close', () => ch.close());
          local.pipe(ch).pipe(local);
          local.resume();
        },
        (err) => {
          this.failure = { error: FleetError.from(err, 'unavailable') };
          local.destroy();
        },
      );
  }
}

export function createAgentOverSshBackend(opts: AgentOverSshOptions): HostBackend {
  const { socketPath } = opts;
  let conn: SshConnection | undefined;
  const connection = (): SshConnection => {
    conn ??= opts.connection();
    return conn;
  };
  const log = opts.logger.child({ agentSocket: socketPath });
  let explained: Promise<FleetError> | undefined;
  const forwarder = new StreamForwarder(connection, socketPath, () => {
    explained = undefined;
  });
  // Made anew after the forwarder could not carry a connection: a failed grpc-js channel
  // keeps redialling in the background (every 5 s at most), each dial an SSH channel open.
  let client: HostBackend | undefined;
  let closed = false;
  const agent = (): HostBackend => {
    if (closed) throw new FleetError('unavailable', `agent socket ${socketPath}: backend closed`);
    client ??= createAgentBackend(`unix:${forwarder.localPath}`, {
      tls: 'insecure',
      tokenFile: opts.tokenFile,
      // The SSH connect (its own connect timeout) comes first, inside the gRPC connect.
      connectTimeoutMs: 2 * opts.connectTimeoutMs + 1000,
      logger: log,
    });
    return client;
  };

  /** The agent's failure, explained when the forwarder knows why the stream was not carried. */
  const translate = async (err: unknown, signal: AbortSignal): Promise<FleetError> => {
    const fe = FleetError.from(err);
    const failure = forwarder.failure;
    if (fe.code !== 'unavailable' || !failure || signal.aborted) return fe;
    client?.close();
    client = undefined;
    if ('error' in failure) return failure.error;
    explained ??= explainedRefusal(connection(), socketPath, signal, () => {
      // Not kept: the next refusal asks the host again (this call may have been cut short).
      explained = undefined;
    }).then((msg) => {
      log.warn({ refused: failure.refused, reason: msg }, 'agent socket not reachable through SSH');
      return new FleetError('unavailable', `${connection().target.label}: ${msg}`, { cause: err });
    });
    return explained;
  };

  async function* walk(
    req: WalkRequest,
    signal: AbortSignal,
    onEntriesSeen?: OnEntriesSeen,
  ): AsyncGenerator<Row[], WalkSummary, void> {
    await forwarder.start();
    try {
      return yield* agent().walk(req, signal, onEntriesSeen);
    } catch (err) {
      throw await translate(err, signal);
    }
  }

  const unary = async <T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> => {
    await forwarder.start();
    try {
      return await run();
    } catch (err) {
      throw await translate(err, signal);
    }
  };

  return {
    via: 'agent+ssh',
    walk,
    stat: (path: string, follow: boolean, signal: AbortSignal): Promise<StatInfo> =>
      unary(() => agent().stat(path, follow, signal), signal),
    probe: (signal: AbortSignal) => unary(() => agent().probe(signal), signal),
    close() {
      if (closed) return;
      closed = true;
      client?.close();
      forwarder.close();
      conn?.close();
    },
  };
}

/** Why sshd refused the stream, asked of the host over an exec channel (the generic reason when that fails). */
function explainedRefusal(
  conn: SshConnection,
  socketPath: string,
  signal: AbortSignal,
  onFailed: () => void,
): Promise<string> {
  return conn.exec(diagnoseCommand(socketPath), signal).then(
    (r) => explainRefusal(socketPath, r.stdout.toString('utf8')),
    () => {
      onFailed();
      return explainRefusal(socketPath, '');
    },
  );
}

/**
 * A host's agent+ssh backend and its `find` backend over one lazily made SSH connection
 * (a bad identity file is then this host's auth status, not a gateway crash).
 */
export function createAgentSshPair(
  cfg: SshHostConfig,
  socketPath: string,
  opts: { tokenFile?: string; connectTimeoutMs: number; logger: Logger; observer?: Observer },
): { agent: HostBackend; find: HostBackend } {
  let conn: SshConnection | undefined;
  const connection = (): SshConnection => {
    conn ??= new SshConnection(
      resolveTarget({ ...cfg, connectTimeoutMs: cfg.connectTimeoutMs ?? opts.connectTimeoutMs }),
      opts.logger.child({ host: cfg.host, via: 'agent+ssh' }),
      undefined,
      opts.observer,
    );
    return conn;
  };
  return {
    agent: createAgentOverSshBackend({ ...opts, connection, socketPath }),
    find: createSshBackend(cfg, {
      logger: opts.logger,
      connectTimeoutMs: opts.connectTimeoutMs,
      observer: opts.observer,
      connection,
    }),
  };
}
