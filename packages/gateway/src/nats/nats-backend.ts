// A host reached through NATS: the same HostBackend as the gRPC agent client, over the
// agent's subjects (@fleetls/runtime nats-protocol.ts). The walk's reply stream is read in
// order (a missing slice is a broken stream), acknowledged as it is consumed (the agent
// holds at most a window), watched for liveness (an agent lost mid-walk is a failure after
// the rows already yielded: a partial answer, as on gRPC), and cancelled on abort.

import {
  FleetError,
  filterFeatures,
  type HostBackend,
  type Row,
  type StatInfo,
  type WalkRequest,
  type WalkSummary,
} from '@fleetls/core';
import {
  codeFromStatus,
  decodeWalkResponse,
  loadContract,
  requestToWire,
  SERVICE_NAME,
  statFromWire,
  type WireStatResponseOut,
} from '@fleetls/proto';
import { agentSubjects, DEFAULT_WINDOW, FrameReader, HDR, KEEPALIVE_MS } from '@fleetls/runtime/nats';
import type { status as GrpcStatus } from '@grpc/grpc-js';
import { createInbox, type Msg, type NatsConnection, headers as natsHeaders, nuid } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { NatsRegistry } from './nats-registry.js';

const WALK_GRACE_MS = 2000;

export interface NatsBackendOptions {
  nc: NatsConnection;
  logger: Logger;
  /** The agent's first message (its headers) must come within this long. */
  connectTimeoutMs: number;
  /** Stat and probe, at most. Default 20 s. */
  callTimeoutMs?: number;
  /** Silence (no slice, no keepalive) this long mid-walk: the agent is lost. Default 3 keepalives. */
  livenessMs?: number;
  window?: number;
  /** Where the host's heartbeat is read: a host that stopped is unreachable, with its last-seen time. */
  registry?: NatsRegistry;
  subjectPrefix?: string;
  /** Named in the agent's audit lines. */
  caller?: string;
}

/** One queue of a walk's reply messages, read with a timeout. */
class Replies {
  private readonly queue: Msg[] = [];
  private waiter: ((m: Msg | Error | undefined) => void) | undefined;
  private failed: Error | undefined;

  push(m: Msg): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(m);
    } else this.queue.push(m);
  }

  fail(err: Error): void {
    this.failed = err;
    this.waiter?.(err);
    this.waiter = undefined;
  }

  /** The next message, undefined after `ms` of silence; throws the subscription's error. */
  next(ms: number, signal: AbortSignal): Promise<Msg | undefined> {
    const m = this.queue.shift();
    if (m) return Promise.resolve(m);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      const done = (v: Msg | Error | undefined) => {
        clearTimeout(t);
        signal.removeEventListener('abort', onAbort);
        this.waiter = undefined;
        if (v instanceof Error) reject(v);
        else resolve(v);
      };
      const onAbort = () => done(new FleetError('cancelled', 'cancelled'));
      const t = setTimeout(() => done(undefined), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = done;
    });
  }
}

/**
 * Every walk's replies on a connection come on one subscription, `<inbox prefix>.<nuid>.*`,
 * each walk a token under it: a walk per host on its own inbox subscription was a SUB and an
 * UNSUB on the wire and in the server for each of 5,000 hosts per call. The client subscribes
 * it again on every node it reconnects to, as it did each walk's own.
 */
class ReplyMux {
  readonly prefix: string;
  private readonly walks = new Map<string, Replies>();
  private dead = false;

  constructor(nc: NatsConnection) {
    this.prefix = createInbox((nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix);
    const at = this.prefix.length + 1;
    nc.subscribe(`${this.prefix}.*`, {
      callback: (err, msg) => {
        if (!err) return void this.walks.get(msg.subject.slice(at))?.push(msg);
        // The subscription is gone (e.g. refused): its walks fail, the next walk makes another.
        this.dead = true;
        for (const r of this.walks.values()) r.fail(err);
      },
    });
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** The reply subject of walk `token` and its queue, until close(). */
  open(token: string): { subject: string; replies: Replies; close(): void } {
    const replies = new Replies();
    this.walks.set(token, replies);
    return { subject: `${this.prefix}.${token}`, replies, close: () => this.walks.delete(token) };
  }
}

const muxes = new WeakMap<NatsConnection, ReplyMux>();

function muxOf(nc: NatsConnection): ReplyMux {
  let m = muxes.get(nc);
  if (!m?.alive) {
    m = new ReplyMux(nc);
    muxes.set(nc, m);
  }
  return m;
}

/**
 * Publishes at the end of this turn of the event loop, all together: the client writes to the
 * socket once per microtask batch, and a fan-out's walks publish each from its own promise
 * chain, so 5,000 hosts were 5,000 socket writes (the largest part of the gateway's CPU on a
 * call); gathered, they are a few writes.
 */
const outgoing = new WeakMap<NatsConnection, (() => void)[]>();

function publishSoon(nc: NatsConnection, send: () => void): void {
  let queue = outgoing.get(nc);
  if (!queue) {
    const q: (() => void)[] = [];
    queue = q;
    outgoing.set(nc, q);
    setImmediate(() => {
      outgoing.delete(nc);
      for (const f of q) f();
    });
  }
  queue.push(send);
}

/** The request's bytes, once per call: a fan-out asks every host the same request. */
const encoded = new WeakMap<WalkRequest, Uint8Array>();

function failureOf(msg: Msg, host: string): FleetError | undefined {
  const h = msg.headers;
  if (!h) return undefined;
  if (h.code === 503) return new FleetError('unavailable', `no agent answers for ${host} on NATS (${msg.subject})`);
  const st = h.get(HDR.status);
  if (st === '') return undefined;
  const code = codeFromStatus(Number(st) as GrpcStatus);
  return new FleetError(code, `agent ${host}: ${h.get(HDR.details) || 'failed'}`);
}

function listOf(v: string | undefined): string[] {
  return (v ?? '').split(',').filter((f) => f !== '');
}

export function createNatsBackend(name: string, opts: NatsBackendOptions): HostBackend {
  const { nc } = opts;
  const subjects = agentSubjects(name, opts.subjectPrefix);
  const { packageDefinition } = loadContract();
  const methods = packageDefinition[SERVICE_NAME] as unknown as Record<'Walk' | 'Stat', MethodCodec>;
  const stat = methods.Stat;
  const callTimeoutMs = opts.callTimeoutMs ?? 20_000;
  const livenessMs = opts.livenessMs ?? 3 * KEEPALIVE_MS;
  const window = opts.window ?? DEFAULT_WINDOW;

  const fresh = (): void => {
    const gone = opts.registry?.stale(name);
    if (gone) throw gone;
  };

  const refuseMissing = (requested: readonly string[], applied: readonly string[], version: string, where: string) => {
    const missing = requested.filter((f) => !applied.includes(f));
    if (missing.length === 0) return;
    throw new FleetError(
      'internal',
      `agent ${name} (version ${version}) does not apply ${missing.join(', ')} (${where}); ` +
        'its rows would be unfiltered: upgrade the agent or drop the filter',
    );
  };

  async function* walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    fresh();
    if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
    const requested = filterFeatures(req.filter);
    const call = nuid.next();
    const { subject: inbox, replies, close } = muxOf(nc).open(call);
    const control = (set: (h: ReturnType<typeof natsHeaders>) => void) => {
      const h = natsHeaders();
      set(h);
      publishSoon(nc, () => {
        try {
          if (!nc.isClosed()) nc.publish(subjects.ctl(call), undefined, { headers: h });
        } catch {
          // draining or closed: the agent's own timeout ends its side
        }
      });
    };
    const h = natsHeaders();
    h.set(HDR.call, call);
    h.set(HDR.timeoutMs, String(req.deadlineMs + WALK_GRACE_MS));
    h.set(HDR.window, String(window));
    if (opts.caller) h.set(HDR.caller, opts.caller);
    const stopAt = Date.now() + req.deadlineMs + 2 * WALK_GRACE_MS;
    let expect = 0;
    let acked = 0;
    let finished = false;
    let rows = 0;
    let summary: WalkSummary | undefined;
    let version = 'unknown';
    const reader = new FrameReader();
    try {
      let body = encoded.get(req);
      if (!body) {
        body = methods.Walk.requestSerialize(requestToWire(req));
        encoded.set(req, body);
      }
      const request = body;
      publishSoon(nc, () => {
        try {
          nc.publish(subjects.walk, request, { reply: inbox, headers: h });
        } catch (err) {
          replies.fail(err as Error);
        }
      });
      for (;;) {
        const wait = Math.min(expect === 0 ? opts.connectTimeoutMs : livenessMs, Math.max(1, stopAt - Date.now()));
        const msg = await replies.next(wait, signal);
        if (!msg) {
          if (expect === 0) {
            throw new FleetError('unavailable', `agent ${name}: no answer on NATS within ${opts.connectTimeoutMs} ms`);
          }
          if (Date.now() >= stopAt) throw new FleetError('deadline_exceeded', `agent ${name}: deadline exceeded`);
          throw new FleetError('unavailable', `agent ${name}: lost on NATS (nothing for ${wait} ms)`);
        }
        const failed = failureOf(msg, name);
        if (failed && msg.headers?.code === 503) throw failed;
        if (msg.headers?.get(HDR.keepalive)) {
          // An agent that waits on its window while sending keepalives may have lost our last
          // Ack (a cluster node died between us): say it again, or both would wait for the deadline.
          if (expect > 1) control((c) => c.set(HDR.ack, String(expect - 1)));
          continue;
        }
        const seq = Number(msg.headers?.get(HDR.seq));
        if (seq !== expect) {
          throw new FleetError('unavailable', `agent ${name}: reply stream broke (message ${expect} lost, got ${seq})`);
        }
        expect++;
        if (failed) throw failed;
        if (seq === 0) {
          version = msg.headers?.get(HDR.version) || 'unknown';
          refuseMissing(requested, listOf(msg.headers?.get(HDR.features)), version, 'not in its features');
          continue;
        }
        if (msg.data.length > 0) {
          for (const bytes of reader.push(msg.data)) {
            const m = decodeWalkResponse(bytes);
            if (m.summary) summary = m.summary;
            if (m.rows.length > 0) {
              rows += m.rows.length;
              yield m.rows;
              if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
            }
          }
        }
        if (msg.headers?.get(HDR.end)) {
          finished = true;
          break;
        }
        // Acknowledged once consumed: a slow consumer holds the agent to its window.
        if (seq - acked >= Math.max(1, window >> 1)) {
          acked = seq;
          control((c) => c.set(HDR.ack, String(seq)));
        }
      }
    } catch (err) {
      if (signal.aborted) {
        throw signal.reason instanceof FleetError
          ? signal.reason
          : new FleetError('cancelled', 'cancelled', { cause: signal.reason });
      }
      throw FleetError.from(err);
    } finally {
      close();
      if (!finished) control((c) => c.set(HDR.cancel, '1'));
    }
    if (!summary) throw new FleetError('internal', `agent ${name}: walk ended without a summary (${rows} rows)`);
    refuseMissing(requested, summary.applied ?? [], version, 'not echoed in its summary');
    return summary;
  }

  async function request(
    path: string,
    followSymlinks: boolean,
    signal: AbortSignal,
  ): Promise<{ res?: WireStatResponseOut; msg: Msg }> {
    fresh();
    if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
    const h = natsHeaders();
    if (opts.caller) h.set(HDR.caller, opts.caller);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new FleetError('cancelled', 'cancelled'));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const msg = await Promise.race([
        nc.request(subjects.stat, stat.requestSerialize({ path, followSymlinks }), {
          timeout: callTimeoutMs,
          headers: h,
        }),
        aborted,
      ]);
      const failed = failureOf(msg, name);
      if (failed) throw Object.assign(failed, { natsHeaders: msg.headers });
      return { res: stat.responseDeserialize(Buffer.from(msg.data)) as WireStatResponseOut, msg };
    } catch (err) {
      throw natsFailure(err, name, callTimeoutMs);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    via: 'agent+nats',
    walk,
    async stat(path, followSymlinks, signal): Promise<StatInfo> {
      const { res } = await request(path, followSymlinks, signal);
      const { agentVersion: _v, ...info } = statFromWire(res!);
      return info;
    },
    async probe(signal) {
      try {
        const { res, msg } = await request('/', false, signal);
        return {
          version: res?.agentVersion || msg.headers?.get(HDR.version) || 'unknown',
          features: listOf(msg.headers?.get(HDR.features)),
        };
      } catch (err) {
        const fe = FleetError.from(err);
        const hdrs = (err as { natsHeaders?: Msg['headers'] }).natsHeaders;
        if (hdrs && (fe.code === 'not_found' || fe.code === 'permission_denied' || fe.code === 'invalid_argument')) {
          return { version: hdrs.get(HDR.version) || 'unknown', features: listOf(hdrs.get(HDR.features)) };
        }
        throw fe;
      }
    },
    close() {
      opts.logger.debug(
        { host: name, nats: subjects.base },
        'NATS host backend closed (the connection is the gateway’s)',
      );
    },
  };
}

/** A NATS client error → FleetError: no responders is an unreachable host, a timeout its deadline. */
export function natsFailure(err: unknown, host: string, timeoutMs: number): FleetError {
  if (err instanceof FleetError) return err;
  const e = err as { name?: string; message?: string; code?: string; cause?: { name?: string } };
  const name = `${e?.name ?? ''} ${e?.cause?.name ?? ''}`;
  if (/NoResponders/i.test(name) || /no responders/i.test(e?.message ?? '')) {
    return new FleetError('unavailable', `no agent answers for ${host} on NATS`, { cause: err });
  }
  if (/Timeout/i.test(name) || /timeout/i.test(e?.message ?? '')) {
    return new FleetError('deadline_exceeded', `agent ${host}: no answer on NATS within ${timeoutMs} ms`, {
      cause: err,
    });
  }
  if (/Closed|Draining/i.test(name)) return new FleetError('unavailable', `NATS connection closed`, { cause: err });
  return FleetError.from(err);
}

interface MethodCodec {
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}
