// The caller's side of a split call: a fan-out over many NATS hosts, with peer gateways
// serving the same fleet, is cut into one shard per gateway. This gateway runs its own
// shard (and every host a peer cannot reach: those not on NATS) while each peer runs its
// shard and streams back each host's result, already cut to what may still rank. Each host
// is answered once: the first result for a host is kept, and a peer that refuses, does not
// acknowledge, or goes silent mid-call is told to stop and the hosts it has not answered
// are asked here, with what is left of the call's deadline.
import { randomBytes } from 'node:crypto';
import { FleetError, hostStatusFromCode, type Row, type WalkSummary } from '@fleetls/core';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { type FanOutOptions, fanOut, type HostResult } from '../fan-out.js';
import type { Fleet, FleetHost, FleetPeers, FleetTask, PeerCaller } from '../fleet-types.js';
import { decodeBody, encodeBody } from '../gzip-json.js';
import type { PeerTable } from './peer-table.js';
import * as protocol from './protocol.js';

/**
 * NATS hosts a call must have before it is split. A host costs a gateway ~0.1 ms of CPU
 * (bench nats: 0.093-0.107 ms at 20,000-100,000 hosts), so 1,000 hosts are ~0.1 s of it,
 * against a shard's fixed costs (its request and results gzipped and parsed on both sides,
 * two round trips, a peer's table read): below this a split saves less CPU than it adds
 * latency and moving parts. `nats.split_min_hosts` sets it; 0 never splits.
 */
export const DEFAULT_SPLIT_MIN_HOSTS = 1000;
/** A peer that has not acknowledged its shard by then is taken as gone. */
export const ACK_MS = 3000;
/** A peer that says nothing for this long mid-shard (it says `alive` every second) is taken as gone. */
export const SILENCE_MS = 6000;
/**
 * A one-shot CLI with no peer heard yet asks for hellos once, and waits at most this long (a
 * little past the first answer when there is one): against a call over 1,000 hosts or more.
 */
const DISCOVER_MS = 500;

/** A fan-out task a peer can run instead: the tools mark theirs (tools/shared/host-walks.ts). */
export type ShardableTask<T> = FleetTask<T> & { shard?: protocol.ShardTask };

export interface SplitDeps {
  nc: NatsConnection;
  table: PeerTable;
  logger: Logger;
  /** DEFAULT_SPLIT_MIN_HOSTS unless set; 0: never split. */
  minHosts: number;
}

export function peerSplitter(deps: SplitDeps, caller?: PeerCaller): FleetPeers {
  return {
    withCaller: (c) => peerSplitter(deps, c),
    split<T>(fleet: Fleet, hosts: FleetHost[], task: FleetTask<T>, opts: object) {
      const shard = (task as ShardableTask<T>).shard;
      // A fan-out with no caller (a probe, not a tool call) is never sent to a peer.
      if (!shard || !caller || deps.minHosts === 0 || hosts.length < deps.minHosts) return undefined;
      const onNats: number[] = [];
      for (let i = 0; i < hosts.length; i++) if (hosts[i].via === 'agent+nats' && !hosts[i].unreachable) onNats.push(i);
      if (onNats.length < deps.minHosts) return undefined;
      return splitCall(deps, caller, fleet, hosts, task, shard, opts as FanOutOptions, onNats);
    },
  };
}

async function splitCall<T>(
  deps: SplitDeps,
  caller: PeerCaller,
  fleet: Fleet,
  hosts: FleetHost[],
  task: FleetTask<T>,
  shard: protocol.ShardTask,
  opts: FanOutOptions,
  onNats: number[],
): Promise<HostResult<T>[]> {
  // This gateway's part is a plain fan-out: a fleet without peers is never split again.
  const here: Fleet = { ...fleet, peers: undefined };
  if (deps.table.alive().length === 0) await deps.table.discover(DISCOVER_MS);
  const peers = deps.table.alive();
  if (peers.length === 0) return fanOut(here, hosts, task, opts);
  const results: HostResult<T>[] = new Array(hosts.length);
  const total = hosts.length;
  let done = 0;
  const arrive = (i: number, r: HostResult<T>) => {
    if (results[i] !== undefined) return;
    results[i] = r;
    done++;
    opts.onResult?.(i, r);
    opts.onHostDone?.(r.status, done, total);
  };
  const runHere = (idx: number[]) =>
    fanOut(
      here,
      idx.map((i) => hosts[i]),
      task,
      {
        ...opts,
        onResult: (j, r) => arrive(idx[j], r as HostResult<T>),
        onHostDone: undefined,
        onEntriesSeen: opts.onEntriesSeen && ((j, n) => opts.onEntriesSeen?.(idx[j], n)),
      },
    );
  // Contiguous slices of the NATS hosts, one per gateway; this one's is the first, with
  // every host only it reaches.
  const parts = peers.length + 1;
  const per = Math.ceil(onNats.length / parts);
  const sent = new Uint8Array(hosts.length);
  for (let k = per; k < onNats.length; k++) sent[onNats[k]] = 1;
  const own: number[] = [];
  for (let i = 0; i < hosts.length; i++) if (sent[i] === 0) own.push(i);
  const work: Promise<unknown>[] = [runHere(own)];
  peers.forEach((peer, k) => {
    const idx = onNats.slice((k + 1) * per, (k + 2) * per);
    if (idx.length === 0) return;
    work.push(
      sendShard(deps, peer, { caller, shard, hosts, opts }, idx, arrive).then((left) =>
        left.length > 0 ? runHere(left) : undefined,
      ),
    );
  });
  await Promise.all(work);
  return results;
}

interface ShardCall {
  caller: PeerCaller;
  shard: protocol.ShardTask;
  hosts: FleetHost[];
  opts: FanOutOptions;
}

/**
 * Sends one peer its shard (the hosts at `idx`) and hands each host's result to `arrive` as
 * it comes. Resolves with the hosts left for this gateway to ask: none when the peer
 * answered them all; the rest when it refused, went silent or failed.
 */
function sendShard<T>(
  deps: SplitDeps,
  peer: string,
  call: ShardCall,
  idx: number[],
  arrive: (i: number, r: HostResult<T>) => void,
): Promise<number[]> {
  const { nc, logger } = deps;
  const { hosts, opts } = call;
  const job = randomBytes(8).toString('hex');
  const answered = new Uint8Array(idx.length);
  const parts = new protocol.Parts();
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reading = Promise.resolve();
  return new Promise<number[]>((resolve) => {
    const finish = (why?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      sub.unsubscribe();
      opts.signal?.removeEventListener('abort', onAbort);
      const left = idx.filter((_, j) => answered[j] === 0);
      if (why !== undefined) {
        // It may still be walking: told to stop, and no shard goes to it until it says hello again.
        if (!nc.isClosed()) nc.publish(protocol.cancelSubject(peer), job);
        deps.table.forget(peer);
        logger.warn(
          { peer, job, left: left.length, why },
          `peer gateway ${peer}: ${why}; its hosts left are asked here`,
        );
      }
      resolve(left);
    };
    let heard = 0;
    const watch = (ms: number, why: string) => {
      clearTimeout(timer);
      const armed = ++heard;
      // Decided after the loop's next poll: when this gateway's own loop was held past the
      // timer, the peer's messages waiting in the socket are read first, not taken for silence.
      timer = setTimeout(
        () =>
          setImmediate(() => {
            if (heard === armed) finish(why);
          }),
        ms,
      );
    };
    // The caller cancelled: the peer stops, and its hosts not answered are cancelled here, as fan-out cancels its own.
    const onAbort = () => {
      const fe = FleetError.from(opts.signal?.reason);
      idx.forEach((i, j) => {
        if (answered[j] !== 0) return;
        answered[j] = 1;
        const host = hosts[i];
        const status = hostStatusFromCode(fe.code);
        arrive(i, { host, status: { host: host.name, status, via: host.via, elapsedMs: 0, message: fe.message } });
      });
      if (!nc.isClosed()) nc.publish(protocol.cancelSubject(peer), job);
      finish();
    };
    const take = (items: protocol.ShardItem[]) => {
      if (!Array.isArray(items)) throw new Error('results are not a list');
      for (const item of items) {
        const j = item?.i;
        if (!Number.isInteger(j) || j < 0 || j >= idx.length || answered[j] !== 0 || item.redo) continue;
        const host = hosts[idx[j]];
        const status = protocol.statusOf(host.name, item);
        const value = item.v === undefined ? undefined : checkedValue<T>(call.shard, item.v);
        answered[j] = 1;
        if (value instanceof FleetError) {
          arrive(idx[j], { host, status: { ...status, status: 'error', message: value.message } });
        } else arrive(idx[j], value === undefined ? { host, status } : { host, status, value });
      }
    };
    const sub = nc.subscribe(protocol.resultsSubject(deps.table.id, job), {
      callback: (err, msg) => {
        if (err || finished) return;
        watch(SILENCE_MS, `no word from it for ${SILENCE_MS} ms mid-shard`);
        const body = parts.add(msg.data, msg.headers);
        if (!body) return;
        const type = msg.headers?.get(protocol.HDR_TYPE);
        if (type === 'refused') {
          finish(`it refused the shard: ${Buffer.from(body).toString('utf8').slice(0, 300)}`);
          return;
        }
        if (type !== 'results' && type !== 'end') return;
        // In order: the end only after every batch before it was read.
        reading = reading
          .then(async () => {
            if (finished) return;
            take(await decodeBody<protocol.ShardItem[]>(body));
            if (type === 'end')
              finish(idx.some((_, j) => answered[j] === 0) ? 'it ended without answering every host' : undefined);
          })
          .catch((e) => finish(`its results could not be read (${(e as Error).message})`));
      },
    });
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    watch(ACK_MS, `no acknowledgement within ${ACK_MS} ms`);
    const request: protocol.ShardRequest = {
      v: 1,
      job,
      from: deps.table.id,
      caller: call.caller,
      task: call.shard,
      hosts: idx.map((i) => hosts[i].name),
      leftMs:
        opts.deadlineAt === undefined ? opts.deadlineMs : Math.max(0, Math.floor(opts.deadlineAt - performance.now())),
      hostMs: opts.deadlineMs,
      concurrency: opts.concurrency,
      stallMs: opts.stallMs,
    };
    encodeBody(request).then(
      (body) => {
        if (finished) return;
        protocol.publishParts(nc, protocol.shardSubject(peer), body, { [protocol.HDR_JOB]: job });
      },
      (e) => finish(`the shard could not be encoded (${(e as Error).message})`),
    );
  });
}

/**
 * A peer's value for one host, held to the shard's own request as an agent's rows are (walk
 * guard): a ranked walk's rows at most top_n entries. A value that is not one is the host's
 * error, never rows the caller did not ask for.
 */
function checkedValue<T>(shard: protocol.ShardTask, v: unknown): T | FleetError {
  const w = v as { rows?: Row[]; summary?: WalkSummary };
  if (typeof w !== 'object' || w === null || !Array.isArray(w.rows) || typeof w.summary !== 'object' || !w.summary) {
    return new FleetError('internal', 'the peer gateway sent no walk for this host');
  }
  let entries = 0;
  for (const row of w.rows) if (row?.kind === 'entry') entries++;
  if (entries > shard.req.topN) {
    return new FleetError(
      'internal',
      `the peer gateway sent ${entries} rows for this host, past top_n ${shard.req.topN}`,
    );
  }
  return w as T;
}
