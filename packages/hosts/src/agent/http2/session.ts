// One HTTP/2 session to an agent: the socket (ours, so TLS failures are seen), the wait for the
// agent's SETTINGS that tells a stalled agent from an unreachable one, and the keepalive.
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { status } from '@grpc/grpc-js';
import { GrpcError } from './call-status.js';
import { type AgentTlsMaterial, checkIdentity, hostOfAddress, tlsIdentity } from './tls.js';

const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;

export interface AgentChannelOptions {
  /** "host:port", "[v6]:port" or "unix:PATH". */
  address: string;
  /** mTLS to the agent; plaintext when undefined. */
  tls?: AgentTlsMaterial;
  /** Sent as `authorization` on every call. */
  authorization?: string;
  connectTimeoutMs: number;
}

export interface Session {
  session: http2.ClientHttp2Session;
  /** Settles once the agent has spoken (resolves) or the connection failed (rejects with a GrpcError). */
  ready: Promise<void>;
  /** The agent has spoken: calls go straight on. */
  spoken: boolean;
  /** Calls in flight: the session keeps the process alive and pings only while there are some. */
  active: number;
}

/**
 * Opens a socket to HOST:PORT (IPv6 in brackets) with `open` and settles within `ms` on what
 * `listen` says of it, the socket then destroyed; false for a unix: address or past `ms`.
 */
function probeSocket(
  address: string,
  ms: number,
  open: (host: string, port: number) => net.Socket,
  listen: (socket: net.Socket, done: (yes: boolean) => void) => void,
): Promise<boolean> {
  const parts = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(address);
  if (!parts) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = open(parts[1] ?? parts[2], Number(parts[3]));
    const done = (yes: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), ms);
    listen(socket, done);
  });
}

/** Does HOST:PORT (IPv6 in brackets) accept a TCP connection within `ms`? A unix: address is not asked. */
export function acceptsTcp(address: string, ms: number): Promise<boolean> {
  return probeSocket(
    address,
    ms,
    (host, port) => net.connect({ host, port }),
    (socket, done) => {
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    },
  );
}

/**
 * Does HOST:PORT answer a TLS handshake within `ms`? Asked only after a plaintext connection
 * closed before the agent spoke: a TLS agent drops a client that does not speak TLS, and the
 * operator should read that, not a bare closed connection (issue 40, item 8). Nothing is
 * verified: whether it speaks TLS at all is the question.
 */
export function speaksTls(address: string, ms: number): Promise<boolean> {
  return probeSocket(
    address,
    ms,
    (host, port) => tls.connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'] }),
    (socket, done) => {
      socket.once('secureConnect', () => done(true));
      // A TLS alert (a client certificate required, say) is a TLS peer too; a reset is not.
      socket.once('error', (err: NodeJS.ErrnoException) => done(/SSL|TLS/.test(err.code ?? '')));
    },
  );
}

/**
 * The socket is ours, not http2's: a peer that fails the TLS handshake after it completed (a
 * TLS 1.3 agent refusing our certificate) errors the socket and the session never says so.
 */
function connectSocket(options: AgentChannelOptions): net.Socket {
  if (options.address.startsWith('unix:'))
    return net.connect(options.address.slice('unix:'.length).replace(/^\/\/(?=\/)/, ''));
  const { host, port } = hostOfAddress(options.address);
  if (!options.tls) return net.connect({ host, port });
  const { name, sni } = tlsIdentity(options.address, options.tls);
  return tls.connect({
    host,
    port,
    ca: options.tls.ca,
    cert: options.tls.cert,
    key: options.tls.key,
    // An IP is never sent as SNI (RFC 6066); the certificate is checked against the name itself.
    servername: sni,
    checkServerIdentity: checkIdentity(name),
    ALPNProtocols: ['h2'],
  });
}

/**
 * A new session; `forget` is called once whatever ends it (goaway, close, error, a failed
 * start), so the channel's next call makes a new one.
 */
export function openSession(options: AgentChannelOptions, forget: (entry: Session) => void): Session {
  const socket = connectSocket(options);
  const authority = options.address.startsWith('unix:')
    ? 'http://localhost'
    : `${options.tls ? 'https' : 'http'}://${options.address}`;
  const session = http2.connect(authority, {
    createConnection: () => socket,
    // Node's default (10 MiB) is reached by a few hundred concurrent calls, and then it
    // resets the session (ENHANCE_YOUR_CALM); grpc-js turns the limit off for the same reason.
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
  });
  const entry: Session = { session, ready: Promise.resolve(), spoken: false, active: 0 };
  const gone = () => forget(entry);
  session.once('goaway', gone);
  session.once('close', gone);
  // Streams carry the session's error; a session error must never be unhandled.
  session.on('error', gone);
  const lost = (err?: Error) => {
    gone();
    if (!session.destroyed) session.destroy(err);
  };
  socket.on('error', lost);
  socket.once('close', () => lost());
  entry.ready = untilSpoken(options, entry, socket, gone);
  keepAlive(entry);
  // An idle session does not keep the process alive (a CLI call exits when it is done).
  session.unref();
  return entry;
}

/** Resolves at the agent's SETTINGS; rejects with UNAVAILABLE, or DEADLINE_EXCEEDED for a port that stays silent. */
function untilSpoken(
  options: AgentChannelOptions,
  entry: Session,
  socket: net.Socket,
  gone: () => void,
): Promise<void> {
  const { session } = entry;
  return new Promise<void>((resolve, reject) => {
    const done = (err?: GrpcError) => {
      clearTimeout(timer);
      session.off('remoteSettings', onSettings);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (err) {
        gone();
        session.destroy();
        reject(err);
      } else resolve();
    };
    const onSettings = () => {
      entry.spoken = true;
      done();
    };
    const onError = (err: Error) => done(new GrpcError(status.UNAVAILABLE, err.message));
    const onClose = () => {
      const closed = new GrpcError(status.UNAVAILABLE, 'the connection closed before the agent spoke');
      if (options.tls || options.address.startsWith('unix:')) return done(closed);
      // Plaintext to a TLS agent reads as what it is.
      void speaksTls(options.address, Math.min(1000, options.connectTimeoutMs)).then((yes) =>
        done(
          yes
            ? new GrpcError(
                status.UNAVAILABLE,
                'the agent speaks TLS and this connection was plaintext: name its CA, certificate and key in agent_tls (not insecure)',
              )
            : closed,
        ),
      );
    };
    const timer = setTimeout(() => {
      // A port that takes the connection and then says nothing is a stalled agent (timeout),
      // not a host that cannot be reached.
      void acceptsTcp(options.address, Math.min(1000, options.connectTimeoutMs)).then((accepts) =>
        done(
          accepts
            ? new GrpcError(
                status.DEADLINE_EXCEEDED,
                `accepts connections but did not answer within ${options.connectTimeoutMs} ms`,
              )
            : new GrpcError(status.UNAVAILABLE, `no connection within ${options.connectTimeoutMs} ms`),
        ),
      );
    }, options.connectTimeoutMs);
    session.once('remoteSettings', onSettings);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
}

/**
 * A dead peer under a long walk: a ping every 30 s while calls run, the session dropped
 * when one is not answered within 10 s.
 */
function keepAlive(entry: Session): void {
  const { session } = entry;
  const keepalive = setInterval(() => {
    if (entry.active === 0 || session.destroyed) return;
    const t = setTimeout(() => session.destroy(new Error('keepalive ping not answered')), KEEPALIVE_TIMEOUT_MS);
    session.ping((err) => {
      clearTimeout(t);
      if (err && !session.destroyed) session.destroy(err);
    });
  }, KEEPALIVE_MS);
  keepalive.unref();
  session.once('close', () => clearInterval(keepalive));
}
