// gRPC to one agent over one node:http2 session, kept and reused by every call (Walk, Stat,
// health). grpc-js's client stack (resolving, load-balancing and retrying calls, filters,
// its Metadata and stream wrappers) cost about half of the gateway's CPU per host in a
// fan-out (bench/README.md, "Fan-out"); this is only what the agent's calls need: the
// 5-byte message framing (runtime's grpc/frame.ts, agent/http2/framing.ts), deadlines as
// grpc-timeout, status from trailers (agent/http2/call-status.ts), cancel as RST_STREAM(CANCEL),
// one session (agent/http2/session.ts).
// Failures are gRPC statuses (GrpcError), read by the agent client.
import * as http2 from 'node:http2';
import type * as tls from 'node:tls';
import { frame } from '@fleetls/runtime/grpc-frame';
import { status } from '@grpc/grpc-js';
import { Deframer } from '../deframer.js';
import { endStatus, GrpcError } from './call-status.js';
import { framingError, grpcTimeout } from './framing.js';
import { type AgentChannelOptions, openSession, type Session } from './session.js';

export { GrpcError } from './call-status.js';
export { MAX_MESSAGE_BYTES } from './framing.js';
export { type AgentChannelOptions, acceptsTcp } from './session.js';

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = http2.constants;

/**
 * A call the agent never saw: its session was gone when it was sent, or the agent reset the
 * stream REFUSED_STREAM before answering (a GOAWAY refuses every stream past its last one,
 * RFC 9113 §8.7). Sending it again cannot run anything twice.
 */
class Unsent extends GrpcError {}

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

/** What one call does with its response: each message, then its status (undefined = OK). */
interface CallSink {
  onMessage(msg: Buffer): void;
  onEnd(err: GrpcError | undefined): void;
}

/** A started call: cancel it, or stop and restart reading it (the agent then waits on HTTP/2 flow control). */
interface CallControl {
  cancel(): void;
  pause(): void;
  resume(): void;
}

/**
 * Pretenuring: what a call keeps for the whole walk is made with `new`, not as an object literal.
 * V8 allocates a literal's objects in the old generation once it sees nearly all of them outlive
 * a scavenge, and all of a fan-out's hosts are in flight at once, so they do; an old object that
 * died keeps the young objects it points to (here the whole stream, its queue and its rows)
 * alive through every scavenge until the next full collection, copied and then promoted: the
 * gateway's helper threads' extra work in a 200-host fan-out (bench/results/structure.why.md,
 * issue 34, session 18). A class's objects are never pretenured.
 */
class StartedCall implements CallControl {
  constructor(
    private readonly stream: http2.ClientHttp2Stream,
    private readonly stop: (err: GrpcError) => void,
  ) {}

  cancel(): void {
    this.stop(new GrpcError(status.CANCELLED, 'Cancelled on client'));
  }

  pause(): void {
    this.stream.pause();
  }

  resume(): void {
    this.stream.resume();
  }
}

/**
 * Response bytes a call holds that its consumer has not taken: past this the stream stops
 * being read, so a slow consumer holds the agent back (its writes wait for the window)
 * instead of the gateway buffering a whole walk per host. Eight of the agent's 32 KiB batches.
 */
const QUEUED_BYTES_HIGH = 256 * 1024;

/**
 * One call on a ready session: request headers and the framed request, then the response's
 * messages and status to `sink`. Throws UNAVAILABLE when the session closed or went away
 * since it was ready.
 */
function startCall(
  entry: Session,
  call: { method: string; request: Uint8Array; opts: CallOptions; authorization?: string },
  sink: CallSink,
): CallControl {
  const { opts } = call;
  const headers: http2.OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': call.method,
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-accept-encoding': 'identity',
    'grpc-timeout': grpcTimeout(opts.timeoutMs),
  };
  if (call.authorization) headers.authorization = call.authorization;
  const { session } = entry;
  const stream = session.request(headers, { endStream: false });
  if (entry.active++ === 0) session.ref();
  stream.end(frame(call.request));
  let response: http2.IncomingHttpHeaders | undefined;
  let trailers: http2.IncomingHttpHeaders | undefined;
  let failure: GrpcError | undefined;
  let streamError: Error | undefined;
  const deframer = new Deframer();
  const cancel = (err: GrpcError) => {
    failure ??= err;
    if (!stream.closed) stream.close(NGHTTP2_CANCEL);
  };
  const timer = setTimeout(() => cancel(new GrpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')), opts.timeoutMs);
  stream.on('response', (h) => {
    response = h;
    opts.onHeaders?.(h);
  });
  stream.on('trailers', (t) => {
    trailers = t;
    opts.onTrailers?.(t);
  });
  const onMessage = (msg: Buffer) => sink.onMessage(msg);
  stream.on('data', (chunk: Buffer) => {
    if (failure) return;
    const bad = deframer.push(chunk, onMessage);
    // Nothing more of it is read: a host past a message's bound is cut off, not buffered.
    if (bad) cancel(framingError(bad));
  });
  stream.on('error', (err) => {
    streamError = err;
  });
  stream.on('close', () => {
    clearTimeout(timer);
    if (--entry.active === 0 && !session.destroyed) session.unref();
    if (!failure && deframer.midMessage)
      failure = new GrpcError(status.INTERNAL, 'the agent ended the call mid-message');
    const sessionGone = session.destroyed || session.closed;
    const end =
      failure ?? endStatus({ headers: response, trailers, rstCode: stream.rstCode, err: streamError, sessionGone });
    sink.onEnd(
      end && !failure && !response && stream.rstCode === NGHTTP2_REFUSED_STREAM
        ? new Unsent(end.code, end.details)
        : end,
    );
  });
  return new StartedCall(stream, cancel);
}

/** Waits for `ready`, or rejects with the signal's reason once it aborts. */
function untilReady(ready: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    ready.then(
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
}

/**
 * A started call's messages waiting for its reader: it is the call's sink and fills the queue
 * (the sink is the queue itself, not a literal around it: StartedCall says why); past
 * QUEUED_BYTES_HIGH the stream stops being read until half of it is taken.
 */
class CallQueue implements CallSink {
  /**
   * Messages not yet taken; an array only while some wait (most are taken before the next
   * arrives), so that it dies young: one made with the call and kept for the whole walk is
   * pretenured (StartedCall says why) and pins every message pushed into it.
   */
  private queue: Buffer[] | undefined;
  private queued = 0;
  private paused = false;
  ended = false;
  error: GrpcError | undefined;
  private wake: (() => void) | undefined;
  readonly call: CallControl;

  constructor(begin: (sink: CallSink) => CallControl) {
    this.call = begin(this);
  }

  onMessage(msg: Buffer): void {
    if (this.queue) this.queue.push(msg);
    else this.queue = [msg];
    this.queued += msg.length;
    if (!this.paused && this.queued >= QUEUED_BYTES_HIGH) {
      this.paused = true;
      this.call.pause();
    }
    this.notify();
  }

  onEnd(err: GrpcError | undefined): void {
    this.ended = true;
    this.error = err;
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The next message waiting, if one is. */
  take(): Buffer | undefined {
    const msg = this.queue?.shift();
    if (this.queue?.length === 0) this.queue = undefined;
    if (msg) {
      this.queued -= msg.length;
      // Half drained: read on, so the next batches are on their way before the queue is empty.
      if (this.paused && this.queued < QUEUED_BYTES_HIGH / 2) {
        this.paused = false;
        this.call.resume();
      }
    }
    return msg;
  }

  /** Resolves when a message arrives or the call ends. */
  arrival(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}

export function createAgentChannel(options: AgentChannelOptions): AgentChannel {
  let closed = false;
  let current: Session | undefined;
  const forget = (entry: Session) => {
    if (current === entry) current = undefined;
  };

  /**
   * A session whose agent has spoken (its SETTINGS arrived), made on first use and after the
   * last one closed. Rejects with UNAVAILABLE (refused, closed, TLS failed) or, for a port
   * that takes the connection and says nothing, DEADLINE_EXCEEDED after connectTimeoutMs.
   */
  const ready = async (signal: AbortSignal): Promise<Session> => {
    if (closed) throw new GrpcError(status.UNAVAILABLE, 'client closed');
    if (current && (current.session.closed || current.session.destroyed)) current = undefined;
    current ??= openSession(options, forget);
    const entry = current;
    await untilReady(entry.ready, signal);
    return entry;
  };

  /** A session that can take a call now: the open one, else a new one once its agent has spoken. */
  const usable = (signal: AbortSignal): Session | Promise<Session> =>
    current?.spoken && !current.session.closed && !current.session.destroyed && !signal.aborted
      ? current
      : ready(signal);

  // One generator per call, with no inner one to delegate to: each message crosses one
  // generator on its way to the agent client (a fan-out hands on hundreds of them at once).
  async function* serverStream(method: string, request: Uint8Array, opts: CallOptions): AsyncGenerator<Buffer> {
    const { signal } = opts;
    for (let attempt = 1; ; attempt++) {
      const entry = await usable(signal);
      let q: CallQueue;
      try {
        q = new CallQueue((sink) =>
          startCall(entry, { method, request, opts, authorization: options.authorization }, sink),
        );
      } catch (err) {
        // Closed, destroyed or told to go away since it was ready: the next call opens a new session.
        forget(entry);
        if (attempt > 1 || signal.aborted || closed) throw new Unsent(status.UNAVAILABLE, (err as Error).message);
        continue;
      }
      const onAbort = () => q.call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        for (;;) {
          const msg = q.take();
          if (msg) yield msg;
          else if (q.ended) break;
          else await q.arrival();
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        // The consumer stopped early (return()/throw()): stop the agent's work too.
        if (!q.ended) q.call.cancel();
      }
      if (!q.error) return;
      // Once more on a session open now (a burst can meet a session the agent is closing);
      // a second refusal is the host's answer.
      if (!(q.error instanceof Unsent) || attempt > 1 || signal.aborted || closed) throw q.error;
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
