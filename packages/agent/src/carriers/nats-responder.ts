// The Agent service carried by NATS (@fleetls/runtime nats/protocol.ts): the agent dials out and answers Walk
// and Stat requests on its own subjects with the handlers the gRPC listener uses
// (service.ts createAgentHandlers). A walk's reply stream is cut into slices well under
// max_payload, numbered, and held to a window of unacknowledged slices; the caller's
// timeout becomes the walk's deadline and its Cancel (or the timeout) cancels the walk.

import {
  decodeStatRequest,
  decodeWalkRequest,
  toStatus,
  type WireStatRequestOut,
  type WireWalkRequestOut,
} from '@fleetls/proto/agent-service';
import {
  agentSubjects,
  CHUNK_BYTES,
  DEFAULT_SUBJECT_PREFIX,
  DEFAULT_WINDOW,
  frame,
  HDR,
  KEEPALIVE_MS,
} from '@fleetls/runtime/nats';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { AgentCallHandlers } from '../service/service.js';
import type { CallStatus, WalkCall } from '../service/walk-call.js';

const MAX_WINDOW = 64;

export interface NatsResponder {
  /** Stops taking requests; walks in flight are cancelled. */
  close(): Promise<void>;
  active(): number;
}

interface Methods {
  decodeWalk(b: Uint8Array): WireWalkRequestOut;
  decodeStat(b: Uint8Array): WireStatRequestOut;
}

// The gRPC carrier's decoders (@fleetls/proto/agent-service): the same requests from either carrier.
function methods(): Methods {
  return {
    decodeWalk: (b) => decodeWalkRequest(Buffer.from(b)),
    decodeStat: (b) => decodeStatRequest(Buffer.from(b)),
  };
}

function statusHeaders(status: CallStatus): MsgHdrs {
  const h = natsHeaders();
  h.set(HDR.status, String(status.code));
  // Header values are one line.
  h.set(HDR.details, status.details.replace(/[\r\n]+/g, ' '));
  return h;
}

/** What the routes share: the connection, the handlers and the walks in flight by call id. */
interface Responder {
  nc: NatsConnection;
  handlers: AgentCallHandlers;
  logger: Logger;
  codec: Methods;
  calls: Map<string, NatsWalkCall>;
  /** The caller a request names no caller for: the connection's own client address. */
  caller: string;
  keepaliveMs: number;
}

export function startNatsResponder(deps: {
  nc: NatsConnection;
  name: string;
  handlers: AgentCallHandlers;
  logger: Logger;
  subjectPrefix?: string;
  keepaliveMs?: number;
}): NatsResponder {
  const { nc, logger } = deps;
  const subjects = agentSubjects(deps.name, deps.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX);
  const r: Responder = {
    nc,
    handlers: deps.handlers,
    logger,
    codec: methods(),
    calls: new Map(),
    caller: `nats:${nc.info?.client_ip ?? 'unknown'}`,
    keepaliveMs: deps.keepaliveMs ?? KEEPALIVE_MS,
  };
  const subs: Subscription[] = [
    nc.subscribe(subjects.walk, {
      callback: (err, msg) => {
        if (err) return void logger.warn({ err: err.message }, 'nats walk subscription');
        answerWalk(r, msg);
      },
    }),
    nc.subscribe(subjects.stat, {
      callback: (err, msg) => {
        if (err) return void logger.warn({ err: err.message }, 'nats stat subscription');
        void answerStat(r, msg);
      },
    }),
    nc.subscribe(subjects.ctlAll, {
      callback: (err, msg) => {
        if (err) return;
        control(r.calls, msg);
      },
    }),
  ];

  return {
    active: () => r.calls.size,
    async close() {
      for (const s of subs) s.unsubscribe();
      for (const c of r.calls.values()) c.cancel();
    },
  };
}

function answerWalk(r: Responder, msg: Msg): void {
  const call = openWalkCall(r, msg);
  if (!call) return;
  r.handlers
    .walk(call)
    .catch((e) => {
      r.logger.error({ err: String(e) }, 'walk handler crashed');
      call.fail(toStatus(e));
    })
    .finally(() => call.dispose());
}

function openWalkCall(r: Responder, msg: Msg): NatsWalkCall | undefined {
  const id = msg.headers?.get(HDR.call) ?? '';
  if (!msg.reply || !/^[A-Za-z0-9]{1,64}$/.test(id)) {
    r.logger.warn({ subject: msg.subject }, 'nats walk request without a reply subject or call id: dropped');
    return undefined;
  }
  let request: WireWalkRequestOut;
  try {
    request = r.codec.decodeWalk(msg.data);
  } catch (err) {
    const h = statusHeaders({ code: 3, details: `WalkRequest does not decode: ${(err as Error).message}` });
    h.set(HDR.seq, '0');
    h.set(HDR.end, '1');
    msg.respond(undefined, { headers: h });
    return undefined;
  }
  const timeout = Number(msg.headers?.get(HDR.timeoutMs) ?? '');
  const window = Math.min(MAX_WINDOW, Math.max(1, Number(msg.headers?.get(HDR.window)) || DEFAULT_WINDOW));
  const call = new NatsWalkCall({
    nc: r.nc,
    reply: msg.reply,
    request,
    caller: msg.headers?.get(HDR.caller) ? `nats:${msg.headers.get(HDR.caller)}` : r.caller,
    deadline: Number.isFinite(timeout) && timeout > 0 ? Date.now() + timeout : undefined,
    window,
    keepaliveMs: r.keepaliveMs,
    onDispose: () => r.calls.delete(id),
  });
  r.calls.set(id, call);
  return call;
}

async function answerStat(r: Responder, msg: Msg): Promise<void> {
  if (!msg.reply) return;
  const { handlers, codec } = r;
  const h = natsHeaders();
  h.set(HDR.version, handlers.version);
  h.set(HDR.features, handlers.features.join(','));
  try {
    const answer = await handlers.stat(codec.decodeStat(msg.data), r.caller);
    msg.respond(answer, { headers: h });
  } catch (err) {
    const st = toStatus(err);
    const sh = statusHeaders(st);
    sh.set(HDR.version, handlers.version);
    sh.set(HDR.features, handlers.features.join(','));
    msg.respond(undefined, { headers: sh });
  }
}

/** A gateway's control message for a walk in flight (subject ends in its call id): cancel, or an ack. */
function control(calls: Map<string, NatsWalkCall>, msg: Msg): void {
  const id = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
  const call = calls.get(id);
  if (!call) return;
  if (msg.headers?.get(HDR.cancel)) call.cancel();
  const ack = msg.headers?.get(HDR.ack);
  if (ack) call.acked(Number(ack));
}

/** One walk's reply stream on NATS, as service.ts's WalkCall. */
class NatsWalkCall implements WalkCall {
  readonly request: WireWalkRequestOut;
  readonly caller: string;
  readonly peer: string;
  cancelled = false;
  private seq = 0;
  private ackedSeq = 0;
  private readonly cancels = new Set<() => void>();
  private drainWaiter: ((ok: boolean) => void) | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private lastSent = Date.now();
  private finished = false;
  /** Slices (and the end or failure) waiting for the window to open, in order. */
  private readonly queue: { data?: Uint8Array; last?: boolean; status?: CallStatus }[] = [];
  private disposed = false;
  private disposeWhenSent = false;

  constructor(
    private readonly o: {
      nc: NatsConnection;
      reply: string;
      request: WireWalkRequestOut;
      caller: string;
      deadline: number | undefined;
      window: number;
      keepaliveMs: number;
      onDispose: () => void;
    },
  ) {
    this.request = o.request;
    this.caller = o.caller;
    this.peer = `nats:${o.reply}`;
    // The caller is not told when a gateway vanishes: its deadline ends the walk all the same.
    if (o.deadline !== undefined) {
      this.deadlineTimer = setTimeout(() => this.cancel(), Math.max(0, o.deadline - Date.now()) + 1000);
    }
    this.keepalive = setInterval(() => {
      if (Date.now() - this.lastSent < o.keepaliveMs / 2) return;
      const h = natsHeaders();
      h.set(HDR.keepalive, '1');
      this.publish(undefined, h);
    }, o.keepaliveMs);
  }

  deadline(): number | undefined {
    return this.o.deadline;
  }

  onCancel(fn: () => void): () => void {
    this.cancels.add(fn);
    return () => this.cancels.delete(fn);
  }

  sendHeaders(version: string, features: readonly string[]): void {
    const h = natsHeaders();
    h.set(HDR.seq, '0');
    h.set(HDR.version, version);
    h.set(HDR.features, features.join(','));
    this.publish(undefined, h);
  }

  write(message: Buffer): boolean {
    const framed = frame(message);
    for (let at = 0; at < framed.length; at += CHUNK_BYTES) {
      this.queue.push({ data: framed.subarray(at, Math.min(framed.length, at + CHUNK_BYTES)) });
    }
    this.pump();
    return this.open();
  }

  drained(): Promise<boolean> {
    if (this.cancelled) return Promise.resolve(false);
    if (this.open()) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.drainWaiter = resolve;
    });
  }

  end(): void {
    if (this.finished) return;
    this.queue.push({ last: true });
    this.finished = true;
    this.pump();
  }

  fail(status: CallStatus): void {
    if (this.finished) return;
    this.queue.push({ status });
    this.finished = true;
    this.pump();
  }

  acked(seq: number): void {
    if (!Number.isFinite(seq) || seq <= this.ackedSeq) return;
    this.ackedSeq = seq;
    this.pump();
    if (this.drainWaiter && this.open()) {
      const w = this.drainWaiter;
      this.drainWaiter = undefined;
      w(true);
    }
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const fn of this.cancels) fn();
    this.cancels.clear();
    const w = this.drainWaiter;
    this.drainWaiter = undefined;
    w?.(false);
    // Nothing more goes to a caller that cancelled (or whose deadline passed).
    this.queue.length = 0;
    if (this.disposeWhenSent) this.dispose();
  }

  /** The handler is done; the call lives on until what it queued has been sent (acks route here). */
  dispose(): void {
    if (this.disposed) return;
    if (this.queue.length > 0 && !this.cancelled) {
      this.disposeWhenSent = true;
      return;
    }
    this.disposed = true;
    clearInterval(this.keepalive);
    clearTimeout(this.deadlineTimer);
    this.o.onDispose();
  }

  /** Room for another slice: never more than the window unacknowledged. */
  private room(): boolean {
    return this.seq - this.ackedSeq < this.o.window;
  }

  /** Nothing queued and room left: the handler may write again. */
  private open(): boolean {
    return this.queue.length === 0 && this.room();
  }

  private pump(): void {
    while (this.queue.length > 0 && this.room()) {
      const s = this.queue.shift()!;
      const h = s.status ? statusHeaders(s.status) : natsHeaders();
      h.set(HDR.seq, String(++this.seq));
      if (s.last || s.status) h.set(HDR.end, '1');
      this.publish(s.data, h);
    }
    if (this.queue.length === 0 && this.disposeWhenSent) this.dispose();
  }

  private publish(data: Uint8Array | undefined, h: MsgHdrs): void {
    if (this.o.nc.isClosed()) return;
    this.lastSent = Date.now();
    this.o.nc.publish(this.o.reply, data, { headers: h });
  }
}
