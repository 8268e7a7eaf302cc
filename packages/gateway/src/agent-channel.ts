// gRPC to one agent over one node:http2 session, kept and reused by every call (Walk, Stat,
// health). grpc-js's client stack (resolving, load-balancing and retrying calls, filters,
// its Metadata and stream wrappers) cost about half of the gateway's CPU per host in a
// fan-out (bench/README.md, "Fan-out"); this is only what the agent's calls need: the
// 5-byte message framing, deadlines as grpc-timeout, status from trailers, cancel as
// RST_STREAM(CANCEL). Failures are gRPC statuses (GrpcError), read by the agent client.
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { status } from '@grpc/grpc-js';
import { type AgentTlsMaterial, checkIdentity, hostOfAddress, tlsIdentity } from './agent-tls.js';

const {
  HTTP2_HEADER_STATUS,
  NGHTTP2_CANCEL,
  NGHTTP2_ENHANCE_YOUR_CALM,
  NGHTTP2_INADEQUATE_SECURITY,
  NGHTTP2_NO_ERROR,
  NGHTTP2_REFUSED_STREAM,
} = http2.constants;

/** The largest message accepted from an agent (grpc-js's max_receive_message_length before). */
export const MAX_MESSAGE_BYTES = 16 << 20;
const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;

/** A call that ended without status OK: the gRPC status and the agent's message. */
export class GrpcError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
    readonly headers?: http2.IncomingHttpHeaders,
  ) {
    super(`${status[code] ?? code}: ${details}`);
  }
}

export interface AgentChannelOptions {
  /** "host:port", "[v6]:port" or "unix:PATH". */
  address: string;
  /** mTLS to the agent; plaintext when undefined. */
  tls?: AgentTlsMaterial;
  /** Sent as `authorization` on every call. */
  authorization?: string;
  connectTimeoutMs: number;
}

export interface CallOptions {
  /**
   * The call's deadline, counted from when it is sent (sent as grpc-timeout): connecting has
   * its own bound, connectTimeoutMs, as with grpc-js, where a deadline began once the
   * channel was ready.
   */
  timeoutMs: number;
  signal: AbortSignal;
  /** The response headers (the agent's metadata), before any message. */
  onHeaders?: (headers: http2.IncomingHttpHeaders) => void;
  /** The trailers (metadata sent with the status). */
  onTrailers?: (trailers: http2.IncomingHttpHeaders) => void;
}

export interface AgentChannel {
  /** A server-streaming call: yields each message's bytes; throws GrpcError unless the status is OK. */
  serverStream(method: string, request: Uint8Array, opts: CallOptions): AsyncGenerator<Buffer, void, void>;
  /** A unary call: the response's bytes. */
  unary(method: string, request: Uint8Array, opts: CallOptions): Promise<Buffer>;
  /** The agent's certificate's notAfter on the open TLS session, if there is one. */
  peerNotAfter(): Date | undefined;
  close(): void;
}

/** An HTTP status that is not 200 → its gRPC status (the gRPC spec's HTTP-to-gRPC table). */
function statusOfHttp(code: number): status {
  switch (code) {
    case 400:
      return status.INTERNAL;
    case 401:
      return status.UNAUTHENTICATED;
    case 403:
      return status.PERMISSION_DENIED;
    case 404:
      return status.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return status.UNAVAILABLE;
    default:
      return status.UNKNOWN;
  }
}

/** A stream reset without a status → its gRPC status (as grpc-js reads RST_STREAM codes). */
function statusOfReset(rstCode: number): status {
  switch (rstCode) {
    case NGHTTP2_REFUSED_STREAM:
      return status.UNAVAILABLE;
    case NGHTTP2_CANCEL:
      return status.CANCELLED;
    case NGHTTP2_ENHANCE_YOUR_CALM:
      return status.RESOURCE_EXHAUSTED;
    case NGHTTP2_INADEQUATE_SECURITY:
      return status.PERMISSION_DENIED;
    default:
      return status.INTERNAL;
  }
}

function decodeMessage(raw: string | string[] | undefined): string {
  const s = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** grpc-timeout: at most 8 digits, so long deadlines are sent in seconds. */
function grpcTimeout(ms: number): string {
  const m = Math.max(1, Math.ceil(ms));
  return m < 1e8 ? `${m}m` : `${Math.min(99_999_999, Math.ceil(m / 1000))}S`;
}

/** The status a finished stream carries: its trailers (or trailers-only headers), else how it closed. */
function endStatus(
  headers: http2.IncomingHttpHeaders | undefined,
  trailers: http2.IncomingHttpHeaders | undefined,
  rstCode: number | undefined,
  err: Error | undefined,
  sessionGone: boolean,
): GrpcError | undefined {
  const from = trailers?.['grpc-status'] !== undefined ? trailers : headers;
  const raw = from?.['grpc-status'];
  if (raw !== undefined) {
    const code = Number(raw);
    if (code === status.OK) return undefined;
    return new GrpcError(Number.isInteger(code) ? code : status.UNKNOWN, decodeMessage(from?.['grpc-message']), from);
  }
  const http = headers?.[HTTP2_HEADER_STATUS];
  if (http !== undefined && Number(http) !== 200) {
    return new GrpcError(statusOfHttp(Number(http)), `Received HTTP status code ${http}`, headers);
  }
  if (rstCode !== undefined && rstCode !== NGHTTP2_NO_ERROR) {
    return new GrpcError(statusOfReset(rstCode), err?.message ?? `Received RST_STREAM with code ${rstCode}`);
  }
  if (err) return new GrpcError(status.UNAVAILABLE, err.message);
  // The agent died or the link broke: a clean close of the connection carries no status.
  if (sessionGone) return new GrpcError(status.UNAVAILABLE, 'the connection to the agent closed mid-call');
  return new GrpcError(status.UNKNOWN, 'the agent ended the call without a status');
}

/** Does HOST:PORT (IPv6 in brackets) accept a TCP connection within `ms`? A unix: address is not asked. */
export function acceptsTcp(address: string, ms: number): Promise<boolean> {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(address);
  if (!m) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = net.connect({ host: m[1] ?? m[2], port: Number(m[3]) });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The socket is ours, not http2's: a peer that fails the TLS handshake after it completed (a
 * TLS 1.3 agent refusing our certificate) errors the socket and the session never says so.
 */
function connectSocket(o: AgentChannelOptions): net.Socket {
  if (o.address.startsWith('unix:')) return net.connect(o.address.slice('unix:'.length).replace(/^\/\/(?=\/)/, ''));
  const { host, port } = hostOfAddress(o.address);
  if (!o.tls) return net.connect({ host, port });
  const { name, sni } = tlsIdentity(o.address, o.tls);
  return tls.connect({
    host,
    port,
    ca: o.tls.ca,
    cert: o.tls.cert,
    key: o.tls.key,
    // An IP is never sent as SNI (RFC 6066); the certificate is checked against the name itself.
    servername: sni,
    checkServerIdentity: checkIdentity(name),
    ALPNProtocols: ['h2'],
  });
}

interface Session {
  session: http2.ClientHttp2Session;
  /** Settles once the agent has spoken (resolves) or the connection failed (rejects with a GrpcError). */
  ready: Promise<void>;
  /** The agent has spoken: calls go straight on. */
  spoken: boolean;
  /** Calls in flight: the session keeps the process alive and pings only while there are some. */
  active: number;
}

export function createAgentChannel(o: AgentChannelOptions): AgentChannel {
  let closed = false;
  let current: Session | undefined;

  const open = (): Session => {
    const socket = connectSocket(o);
    const authority = o.address.startsWith('unix:') ? 'http://localhost' : `${o.tls ? 'https' : 'http'}://${o.address}`;
    const session = http2.connect(authority, {
      createConnection: () => socket,
      // Node's default (10 MiB) is reached by a few hundred concurrent calls, and then it
      // resets the session (ENHANCE_YOUR_CALM); grpc-js turns the limit off for the same reason.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
    });
    const entry: Session = { session, ready: Promise.resolve(), spoken: false, active: 0 };
    // Whatever ends it, the next call makes a new one.
    const forget = () => {
      if (current === entry) current = undefined;
    };
    session.once('goaway', forget);
    session.once('close', forget);
    // Streams carry the session's error; a session error must never be unhandled.
    session.on('error', forget);
    const lost = (err?: Error) => {
      forget();
      if (!session.destroyed) session.destroy(err);
    };
    socket.on('error', lost);
    socket.once('close', () => lost());
    entry.ready = new Promise<void>((resolve, reject) => {
      const done = (err?: GrpcError) => {
        clearTimeout(timer);
        session.off('remoteSettings', onSettings);
        socket.off('error', onError);
        socket.off('close', onClose);
        if (err) {
          forget();
          session.destroy();
          reject(err);
        } else resolve();
      };
      const onSettings = () => {
        entry.spoken = true;
        done();
      };
      const onError = (err: Error) => done(new GrpcError(status.UNAVAILABLE, err.message));
      const onClose = () => done(new GrpcError(status.UNAVAILABLE, 'the connection closed before the agent spoke'));
      const timer = setTimeout(() => {
        // A port that takes the connection and then says nothing is a stalled agent (timeout),
        // not a host that cannot be reached.
        void acceptsTcp(o.address, Math.min(1000, o.connectTimeoutMs)).then((accepts) =>
          done(
            accepts
              ? new GrpcError(
                  status.DEADLINE_EXCEEDED,
                  `accepts connections but did not answer within ${o.connectTimeoutMs} ms`,
                )
              : new GrpcError(status.UNAVAILABLE, `no connection within ${o.connectTimeoutMs} ms`),
          ),
        );
      }, o.connectTimeoutMs);
      session.once('remoteSettings', onSettings);
      socket.once('error', onError);
      socket.once('close', onClose);
    });
    // A dead peer under a long walk: a ping every 30 s while calls run, the session dropped
    // when one is not answered within 10 s.
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
    // An idle session does not keep the process alive (a CLI call exits when it is done).
    session.unref();
    return entry;
  };

  /**
   * A session whose agent has spoken (its SETTINGS arrived), made on first use and after the
   * last one closed. Rejects with UNAVAILABLE (refused, closed, TLS failed) or, for a port
   * that takes the connection and says nothing, DEADLINE_EXCEEDED after connectTimeoutMs.
   */
  const ready = async (signal: AbortSignal): Promise<Session> => {
    if (closed) throw new GrpcError(status.UNAVAILABLE, 'client closed');
    if (current && (current.session.closed || current.session.destroyed)) current = undefined;
    current ??= open();
    const entry = current;
    const r = entry.ready;
    if (signal.aborted) throw signal.reason;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      r.then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
    return entry;
  };

  /**
   * One call: request headers and the framed request, then the response's messages pushed to
   * `onMessage` and its status to `onEnd` (undefined = OK). Returns the stream's cancel.
   */
  const start = (
    entry: Session,
    method: string,
    request: Uint8Array,
    opts: CallOptions,
    onMessage: (msg: Buffer) => void,
    onEnd: (err: GrpcError | undefined) => void,
  ): (() => void) => {
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-accept-encoding': 'identity',
      'grpc-timeout': grpcTimeout(opts.timeoutMs),
    };
    if (o.authorization) headers.authorization = o.authorization;
    const frame = Buffer.allocUnsafe(5 + request.length);
    frame[0] = 0;
    frame.writeUInt32BE(request.length, 1);
    frame.set(request, 5);
    const { session } = entry;
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: false });
    } catch (err) {
      // Closed or told to go away since it was ready: the next call opens a new session.
      if (current === entry) current = undefined;
      throw new GrpcError(status.UNAVAILABLE, (err as Error).message);
    }
    if (entry.active++ === 0) session.ref();
    stream.end(frame);
    let response: http2.IncomingHttpHeaders | undefined;
    let trailers: http2.IncomingHttpHeaders | undefined;
    let failure: GrpcError | undefined;
    let streamError: Error | undefined;
    let pending: Buffer | undefined;
    const cancel = (err: GrpcError) => {
      failure ??= err;
      if (!stream.closed) stream.close(NGHTTP2_CANCEL);
    };
    const timer = setTimeout(
      () => cancel(new GrpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')),
      opts.timeoutMs,
    );
    stream.on('response', (h) => {
      response = h;
      opts.onHeaders?.(h);
    });
    stream.on('trailers', (t) => {
      trailers = t;
      opts.onTrailers?.(t);
    });
    stream.on('data', (chunk: Buffer) => {
      if (failure) return;
      let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
      while (buf.length >= 5) {
        const len = buf.readUInt32BE(1);
        if (buf[0] !== 0) return cancel(new GrpcError(status.INTERNAL, 'the agent sent a compressed message'));
        if (len > MAX_MESSAGE_BYTES) {
          return cancel(
            new GrpcError(
              status.RESOURCE_EXHAUSTED,
              `Received message larger than max (${len} vs ${MAX_MESSAGE_BYTES})`,
            ),
          );
        }
        if (buf.length < 5 + len) break;
        onMessage(buf.subarray(5, 5 + len));
        buf = buf.subarray(5 + len);
      }
      pending = buf.length > 0 ? buf : undefined;
    });
    stream.on('error', (err) => {
      streamError = err;
    });
    stream.on('close', () => {
      clearTimeout(timer);
      if (--entry.active === 0 && !session.destroyed) session.unref();
      if (!failure && pending) failure = new GrpcError(status.INTERNAL, 'the agent ended the call mid-message');
      const gone = session.destroyed || session.closed;
      onEnd(failure ?? endStatus(response, trailers, stream.rstCode, streamError, gone));
    });
    return () => cancel(new GrpcError(status.CANCELLED, 'Cancelled on client'));
  };

  async function* serverStream(method: string, request: Uint8Array, opts: CallOptions): AsyncGenerator<Buffer> {
    const entry =
      current?.spoken && !current.session.closed && !opts.signal.aborted ? current : await ready(opts.signal);
    const queue: Buffer[] = [];
    let ended = false;
    let error: GrpcError | undefined;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const cancel = start(
      entry,
      method,
      request,
      opts,
      (msg) => {
        queue.push(msg);
        notify();
      },
      (err) => {
        ended = true;
        error = err;
        notify();
      },
    );
    const onAbort = () => cancel();
    opts.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const msg = queue.shift();
        if (msg) {
          yield msg;
          continue;
        }
        if (ended) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      if (error) throw error;
    } finally {
      opts.signal.removeEventListener('abort', onAbort);
      // The consumer stopped early (return()/throw()): stop the agent's work too.
      if (!ended) cancel();
    }
  }

  async function unary(method: string, request: Uint8Array, opts: CallOptions): Promise<Buffer> {
    let last: Buffer | undefined;
    for await (const msg of serverStream(method, request, opts)) last = msg;
    if (!last) throw new GrpcError(status.UNIMPLEMENTED, 'the agent sent no response message');
    return last;
  }

  return {
    serverStream,
    unary,
    peerNotAfter() {
      const socket = current?.session.socket as tls.TLSSocket | undefined;
      const validTo = socket?.getPeerCertificate?.()?.valid_to;
      return validTo ? new Date(validTo) : undefined;
    },
    close() {
      closed = true;
      current?.session.close();
      current = undefined;
    },
  };
}
