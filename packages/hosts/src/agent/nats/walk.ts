// The NATS carrier's Walk: the reply stream's slices reassembled into the call's messages,
// which the contract's client (agent/client.ts) decodes. The stream is read in order (a missing slice is a broken stream),
// acknowledged as it is consumed (the agent holds at most a window), watched for liveness (an
// agent lost mid-walk is a failure after the rows already yielded: a partial answer, as on
// gRPC), and cancelled on abort. The window binds the host too: a slice past what was granted,
// or larger than a slice, breaks its stream as it arrives, so a walk queues at most a window.

import { FleetError, type WalkRequest } from '@fleetls/core';
import { requestToWire } from '@fleetls/proto';
import { CHUNK_BYTES, HDR } from '@fleetls/runtime/nats';
import { type Msg, headers as natsHeaders, nuid } from '@nats-io/transport-node';
import { HostOverrun } from '../../walk-guard.js';
import { type AgentMeta, callFailure } from '../carrier.js';
import { Deframer } from '../deframer.js';
import { failureOf, listOf, type NatsHost, refuseStale } from './host.js';
import { muxOf, publishSoon, type Replies } from './reply-mux.js';

const WALK_GRACE_MS = 2000;

/** The request's bytes, once per call: a fan-out asks every host the same request. */
const encoded = new WeakMap<WalkRequest, Uint8Array>();

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
 */
export async function* natsWalk(
  host: NatsHost,
  req: WalkRequest,
  signal: AbortSignal,
  onMeta: (meta: AgentMeta) => void,
): AsyncGenerator<Buffer, void, void> {
  const started = Date.now();
  let handed = false;
  let broke: FleetError;
  try {
    for await (const bytes of walkOnce(host, req, signal, onMeta)) {
      handed = true;
      yield bytes;
    }
    return;
  } catch (err) {
    if (handed || signal.aborted || !(err instanceof BrokenStream)) throw err;
    broke = err;
  }
  // The agent answers again once it is subscribed on its new node: until then the server says
  // no responders, for at most the connect timeout.
  const again = { ...req, deadlineMs: Math.max(1, req.deadlineMs - (Date.now() - started)) };
  const giveUpAt = Date.now() + host.connectTimeoutMs;
  for (;;) {
    try {
      yield* walkOnce(host, again, signal, onMeta);
      return;
    } catch (err) {
      const fe = FleetError.from(err);
      const noResponders = fe.code === 'unavailable' && /no agent answers/.test(fe.message);
      if (noResponders && !signal.aborted && Date.now() + RETRY_NO_RESPONDERS_MS < giveUpAt) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_NO_RESPONDERS_MS));
        continue;
      }
      if (signal.aborted) throw err;
      throw new FleetError(fe.code, `${fe.message} (asked again after: ${broke.message})`, { cause: err });
    }
  }
}

async function* walkOnce(
  host: NatsHost,
  req: WalkRequest,
  signal: AbortSignal,
  onMeta: (meta: AgentMeta) => void,
): AsyncGenerator<Buffer, void, void> {
  refuseStale(host);
  if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
  const { name } = host;
  const call = nuid.next();
  const control = controlOf(host, call);
  /** The highest slice acknowledged: the host may send up to `granted + window`, no further. */
  let granted = 0;
  const {
    subject: inbox,
    replies,
    close,
  } = muxOf(host.nc).open(
    call,
    (m, queued) => replyBound(m, queued, granted, host.window),
    (m) => Boolean(m.headers?.get(HDR.keepalive)),
  );
  const ack = (seq: number) => {
    granted = Math.max(granted, seq);
    control((c) => c.set(HDR.ack, String(seq)));
  };
  const stopAt = Date.now() + req.deadlineMs + 2 * WALK_GRACE_MS;
  let expect = 0;
  let acked = 0;
  let finished = false;
  const deframer = new Deframer();
  const messages: Buffer[] = [];
  // One listener for the walk's waits (Replies.next does not listen itself).
  const onAbort = () => replies.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    sendWalk(host, req, call, inbox, replies);
    for (;;) {
      const msg = await nextReply(host, replies, expect, stopAt, signal);
      const failed = failureOf(msg, name);
      if (failed && msg.headers?.code === 503) throw failed;
      if (msg.headers?.get(HDR.keepalive)) {
        // An agent that waits on its window while sending keepalives may have lost our last
        // Ack (a cluster node died between us): say it again, or both would wait for the deadline.
        if (expect > 1) ack(expect - 1);
        continue;
      }
      const seq = Number(msg.headers?.get(HDR.seq));
      if (seq !== expect) {
        throw new BrokenStream('unavailable', `agent ${name}: reply stream broke (message ${expect} lost, got ${seq})`);
      }
      expect++;
      if (failed) throw failed;
      if (seq === 0) {
        onMeta({
          version: msg.headers?.get(HDR.version) || undefined,
          features: listOf(msg.headers?.get(HDR.features)),
        });
        continue;
      }
      if (msg.data.length > 0) {
        const bad = deframer.push(msg.data, (bytes) => messages.push(bytes));
        if (bad) {
          throw new HostOverrun(
            bad.kind === 'compressed' ? 'a compressed message' : `a message of ${bad.bytes} bytes, over ${bad.max}`,
          );
        }
        for (const bytes of messages.splice(0)) {
          yield bytes;
          if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
        }
      }
      if (msg.headers?.get(HDR.end)) {
        finished = true;
        break;
      }
      // Acknowledged once consumed: a slow consumer holds the agent to its window.
      if (seq - acked >= Math.max(1, host.window >> 1)) {
        acked = seq;
        ack(seq);
      }
    }
  } catch (err) {
    throw callFailure(err, signal);
  } finally {
    signal.removeEventListener('abort', onAbort);
    close();
    if (!finished) control((c) => c.set(HDR.cancel, '1'));
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
  const h = natsHeaders();
  h.set(HDR.call, call);
  h.set(HDR.timeoutMs, String(req.deadlineMs + WALK_GRACE_MS));
  h.set(HDR.window, String(host.window));
  if (host.caller) h.set(HDR.caller, host.caller);
  let body = encoded.get(req);
  if (!body) {
    body = host.methods.Walk.requestSerialize(requestToWire(req));
    encoded.set(req, body);
  }
  const request = body;
  const { nc } = host;
  publishSoon(nc, () => {
    try {
      nc.publish(host.subjects.walk, request, { reply: inbox, headers: h });
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
