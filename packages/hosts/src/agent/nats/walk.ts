// The NATS carrier's Walk: the reply stream's slices reassembled into the call's messages,
// which the contract's client (agent/client.ts) decodes. The stream is read in order (a missing slice is a broken stream),
// acknowledged as it is consumed (the agent holds at most a window), watched for liveness (an
// agent lost mid-walk is a failure after the rows already yielded: a partial answer, as on
// gRPC), and cancelled on abort. The window binds the host too: a slice past what was granted,
// or larger than a slice, breaks its stream as it arrives, so a walk queues at most a window.

import { FleetError, type WalkRequest } from '@fleetls/core';
import { requestToWire } from '@fleetls/proto';
import { CHUNK_BYTES, HDR } from '@fleetls/runtime/nats';
import { type Msg, type MsgHdrs, headers as natsHeaders, nuid } from '@nats-io/transport-node';
import { HostOverrun } from '../../walk-guard.js';
import { type AgentMeta, callFailure } from '../carrier.js';
import { Deframer } from '../deframer.js';
import { failureOf, listOf, type NatsHost, refuseStale } from './host.js';
import { muxOf, publishSoon, type Replies } from './reply-mux.js';

const WALK_GRACE_MS = 2000;

/**
 * The request's bytes and headers, once per call: a fan-out asks every host the same request.
 * The headers differ by host only in the call's id, set on them just before each publish (the
 * client encodes them as it publishes); a host with another window or caller gets its own.
 */
interface WalkAsk {
  body: Uint8Array;
  headers: MsgHdrs;
  window: number;
  caller: string | undefined;
}

const asks = new WeakMap<WalkRequest, WalkAsk>();

type Control = (set: (h: ReturnType<typeof natsHeaders>) => void) => void;

/** The reply stream of a walk broke on the way (a message lost, or silence mid-walk): worth asking again. */
class BrokenStream extends FleetError {}

/** How long a walk asked again waits for its agent to answer on the node it moved to. */
const RETRY_NO_RESPONDERS_MS = 250;

/**
 * A host's walk, asked once more when its reply stream broke before any of its messages was
 * handed on: a cluster node that dies mid-call takes the replies it was routing with it (the
 * agent moves to another node and answers again). A walk that broke after it handed rows on
 * is not asked again (its rows would come twice): it fails, and the fan-out marks the host's
 * partial answer. A walk asked again that fails says so.
 * One generator for the call and its asking again, with no inner one to delegate to: each
 * message of every host crosses it on its way to the agent client.
 */
export async function* natsWalk(
  host: NatsHost,
  req: WalkRequest,
  signal: AbortSignal,
  onMeta: (meta: AgentMeta) => void,
): AsyncGenerator<Buffer, void, void> {
  const started = Date.now();
  let asked = req;
  /** Why the first asking broke, once the walk is asked again. */
  let broke: FleetError | undefined;
  let giveUpAt = 0;
  for (;;) {
    let handed = false;
    let stream: ReplyStream | undefined;
    try {
      stream = new ReplyStream(host, asked, signal, onMeta);
      for (;;) {
        const messages = await stream.next();
        if (!messages) return;
        for (const bytes of messages) {
          handed = true;
          yield bytes;
          if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
        }
      }
    } catch (thrown) {
      const err = callFailure(thrown, signal);
      if (!broke) {
        if (handed || signal.aborted || !(err instanceof BrokenStream)) throw err;
        broke = err;
        // The agent answers again once it is subscribed on its new node: until then the server
        // says no responders, for at most the connect timeout.
        asked = { ...req, deadlineMs: Math.max(1, req.deadlineMs - (Date.now() - started)) };
        giveUpAt = Date.now() + host.connectTimeoutMs;
        continue;
      }
      const noResponders = err.code === 'unavailable' && /no agent answers/.test(err.message);
      if (noResponders && !signal.aborted && Date.now() + RETRY_NO_RESPONDERS_MS < giveUpAt) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_NO_RESPONDERS_MS));
        continue;
      }
      if (signal.aborted) throw err;
      throw new FleetError(err.code, `${err.message} (asked again after: ${broke.message})`, { cause: err });
    } finally {
      stream?.close();
    }
  }
}

/**
 * One asking of a walk: its request sent, its reply stream read in order, acknowledged, bound
 * to the window and watched for liveness. next() gives the call's messages of the next reply
 * (none for a header or keepalive), undefined once the agent ended the call.
 */
class ReplyStream {
  private readonly call = nuid.next();
  private readonly control: Control;
  private readonly replies: Replies;
  private readonly closeInbox: () => void;
  private readonly stopAt: number;
  private readonly deframer = new Deframer();
  private readonly messages: Buffer[] = [];
  private readonly onAbort: () => void;
  /** The highest slice acknowledged: the host may send up to `granted + window`, no further. */
  private granted = 0;
  private expect = 0;
  private acked = 0;
  /** A slice to acknowledge once its messages were taken (at the next read). */
  private consumed = 0;
  private finished = false;

  constructor(
    private readonly host: NatsHost,
    req: WalkRequest,
    private readonly signal: AbortSignal,
    private readonly onMeta: (meta: AgentMeta) => void,
  ) {
    refuseStale(host);
    if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
    this.control = controlOf(host, this.call);
    const opened = muxOf(host.nc).open(
      this.call,
      (m, queued) => replyBound(m, queued, this.granted, host.window),
      (m) => Boolean(m.headers?.get(HDR.keepalive)),
    );
    this.replies = opened.replies;
    this.closeInbox = opened.close;
    this.stopAt = Date.now() + req.deadlineMs + 2 * WALK_GRACE_MS;
    // One listener for the walk's waits (Replies.next does not listen itself).
    const { replies } = this;
    this.onAbort = () => replies.cancel();
    signal.addEventListener('abort', this.onAbort, { once: true });
    sendWalk(host, req, this.call, opened.subject, replies);
  }

  /** The call's messages in the next slice (maybe none); undefined once the agent ended the call. */
  async next(): Promise<Buffer[] | undefined> {
    if (this.finished) return undefined;
    // Acknowledged once consumed: a slow consumer holds the agent to its window.
    if (this.consumed > 0) {
      this.ack(this.consumed);
      this.consumed = 0;
    }
    const { host, messages } = this;
    const { name } = host;
    for (;;) {
      const msg = await nextReply(host, this.replies, this.expect, this.stopAt, this.signal);
      const failed = failureOf(msg, name);
      if (failed && msg.headers?.code === 503) throw failed;
      if (msg.headers?.get(HDR.keepalive)) {
        // An agent that waits on its window while sending keepalives may have lost our last
        // Ack (a cluster node died between us): say it again, or both would wait for the deadline.
        if (this.expect > 1) this.ack(this.expect - 1);
        continue;
      }
      const seq = Number(msg.headers?.get(HDR.seq));
      if (seq !== this.expect) {
        throw new BrokenStream(
          'unavailable',
          `agent ${name}: reply stream broke (message ${this.expect} lost, got ${seq})`,
        );
      }
      this.expect++;
      if (failed) throw failed;
      if (seq === 0) {
        this.onMeta({
          version: msg.headers?.get(HDR.version) || undefined,
          features: listOf(msg.headers?.get(HDR.features)),
        });
        continue;
      }
      messages.length = 0;
      if (msg.data.length > 0) {
        const bad = this.deframer.push(msg.data, (bytes) => messages.push(bytes));
        if (bad) {
          throw new HostOverrun(
            bad.kind === 'compressed' ? 'a compressed message' : `a message of ${bad.bytes} bytes, over ${bad.max}`,
          );
        }
      }
      if (msg.headers?.get(HDR.end)) {
        this.finished = true;
      } else if (seq - this.acked >= Math.max(1, host.window >> 1)) {
        this.acked = seq;
        if (messages.length > 0) this.consumed = seq;
        else this.ack(seq);
      }
      if (messages.length > 0 || this.finished) return messages;
    }
  }

  private ack(seq: number): void {
    this.granted = Math.max(this.granted, seq);
    this.control((c) => c.set(HDR.ack, String(seq)));
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.closeInbox();
    if (!this.finished) this.control((c) => c.set(HDR.cancel, '1'));
  }
}

/**
 * Whether reply `m` may be queued: a numbered slice within the window granted and no larger
 * than an agent cuts (CHUNK_BYTES); a message without a number (a failure, the server's no
 * responders) ends the walk when read, so only a window's worth of anything waits.
 */
function replyBound(m: Msg, queued: number, granted: number, window: number): string | undefined {
  if (m.data.length > CHUNK_BYTES) return `a slice of ${m.data.length} bytes, over ${CHUNK_BYTES}`;
  const seq = Number(m.headers?.get(HDR.seq) || Number.NaN);
  if (seq > granted + window) return `slice ${seq} past the window of ${window} after slice ${granted}`;
  // An honest host has at most its window of slices waiting, the first (headers) message and
  // one keepalive (the others are dropped behind it): a little room past that, no more.
  if (queued >= window + 4) return `${queued} replies waiting, over the window of ${window}`;
  return undefined;
}

/** Publishes a control message (ack, cancel) for walk `call`, best effort. */
function controlOf(host: NatsHost, call: string): Control {
  const { nc } = host;
  return (set) => {
    const h = natsHeaders();
    set(h);
    publishSoon(nc, () => {
      try {
        if (!nc.isClosed()) nc.publish(host.subjects.ctl(call), undefined, { headers: h });
      } catch {
        // draining or closed: the agent's own timeout ends its side
      }
    });
  };
}

function sendWalk(host: NatsHost, req: WalkRequest, call: string, inbox: string, replies: Replies): void {
  let ask = asks.get(req);
  if (!ask || ask.window !== host.window || ask.caller !== host.caller) {
    const headers = natsHeaders();
    headers.set(HDR.timeoutMs, String(req.deadlineMs + WALK_GRACE_MS));
    headers.set(HDR.window, String(host.window));
    if (host.caller) headers.set(HDR.caller, host.caller);
    const body = ask?.body ?? host.methods.Walk.requestSerialize(requestToWire(req));
    ask = { body, headers, window: host.window, caller: host.caller };
    asks.set(req, ask);
  }
  const { body, headers } = ask;
  const { nc } = host;
  publishSoon(nc, () => {
    try {
      headers.set(HDR.call, call);
      nc.publish(host.subjects.walk, body, { reply: inbox, headers });
    } catch (err) {
      replies.fail(err as Error);
    }
  });
}

/** The next reply; silence is no answer (before the first), the deadline, or a lost agent. */
async function nextReply(
  host: NatsHost,
  replies: Replies,
  expect: number,
  stopAt: number,
  signal: AbortSignal,
): Promise<Msg> {
  const { name, connectTimeoutMs } = host;
  const wait = Math.min(expect === 0 ? connectTimeoutMs : host.livenessMs, Math.max(1, stopAt - Date.now()));
  const msg = await replies.next(wait, signal);
  if (msg) return msg;
  if (expect === 0)
    throw new FleetError('unavailable', `agent ${name}: no answer on NATS within ${connectTimeoutMs} ms`);
  if (Date.now() >= stopAt) throw new FleetError('deadline_exceeded', `agent ${name}: deadline exceeded`);
  throw new BrokenStream('unavailable', `agent ${name}: lost on NATS (nothing for ${wait} ms)`);
}
