// The peer's side of a split call: a serving gateway answers shards sent to its own subject
// by the other gateways of its fleet. A shard runs as one of this gateway's own fan-outs,
// held to the peer's own limits and grants, never the caller's word alone: the request
// passes resolveWalkRequest's ceilings, its budgets are cut to this gateway's options, and
// the caller's principal must be granted the tool, the path and every host here (authorize).
// Each host's result goes back as it arrives, in batches; `alive` says the shard still runs.
import { DEFAULT_CEILINGS, FleetError, resolveWalkRequest } from '@fleetls/core';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { fanOut } from '../fan-out.js';
import type { Fleet, FleetHost, FleetTask, PeerCaller } from '../fleet-types.js';
import { decodeBody, encodeBody } from '../gzip-json.js';
import type { GatewayOptions } from '../options.js';
import type { PeerTable } from './peer-table.js';
import * as protocol from './protocol.js';

/** Shards run at once here; more are refused (the caller asks those hosts itself). */
const MAX_JOBS = 8;
/** Shard requests being received at once (parts gathered). */
const MAX_INCOMING = 16;
/** Results wait at most this long to go back together. */
const FLUSH_MS = 100;
/** A batch of results goes at once past this many hosts. */
const BATCH_ITEMS = 2000;
/** Said while a shard runs with nothing else to send (the caller's SILENCE_MS is six of these). */
const ALIVE_MS = 1000;
/** Kept from the caller's deadline for the results' way back. */
const MARGIN_MS = 300;
/** Hosts one shard may name. */
const MAX_SHARD_HOSTS = 1_000_000;

export interface ShardServerDeps {
  nc: NatsConnection;
  table: PeerTable;
  logger: Logger;
  /** This gateway's own fleet (its peers are not used: a shard is never split again). */
  fleet: Fleet;
  options: GatewayOptions;
  /** The fan-out task of a shard (tools/shared/host-walks.ts). */
  task(shard: protocol.ShardTask): FleetTask<unknown>;
  /** Throws (permission_denied) when this gateway's grants do not let `caller` run the shard. */
  authorize(caller: PeerCaller, shard: protocol.ShardTask, hosts: FleetHost[]): void;
}

/** Checks a decoded shard request, field by field; invalid_argument naming the field. */
export function checkShardRequest(request: protocol.ShardRequest, job: string): protocol.ShardRequest {
  const bad = (what: string) => new FleetError('invalid_argument', `shard request: ${what}`);
  if (typeof request !== 'object' || request === null || request.v !== 1) throw bad('v must be 1');
  if (request.job !== job) throw bad('job differs from its header');
  if (typeof request.from !== 'string' || !protocol.ID_RE.test(request.from)) throw bad('from must be a gateway id');
  const c = request.caller;
  if (typeof c?.principal !== 'string' || typeof c.tool !== 'string' || c.principal === '' || c.tool === '')
    throw bad('caller must name a principal and a tool');
  if (!Array.isArray(request.hosts) || request.hosts.length === 0 || request.hosts.length > MAX_SHARD_HOSTS)
    throw bad(`hosts must list 1 to ${MAX_SHARD_HOSTS} names`);
  if (request.hosts.some((h) => typeof h !== 'string')) throw bad('hosts must be names');
  for (const k of ['leftMs', 'hostMs', 'concurrency'] as const)
    if (!Number.isFinite(request[k]) || request[k] < 0) throw bad(`${k} must be a number >= 0`);
  if (request.stallMs !== undefined && (!Number.isFinite(request.stallMs) || request.stallMs <= 0))
    throw bad('stallMs must be > 0');
  const t = request.task;
  if (t?.kind !== 'ranked-walk') throw bad(`task.kind ${JSON.stringify(t?.kind)} is not one this gateway runs`);
  if (!Number.isInteger(t.cap) || t.cap < 1 || t.cap > DEFAULT_CEILINGS.maxTopN) {
    throw bad(`task.cap must be 1..${DEFAULT_CEILINGS.maxTopN}`);
  }
  // The walk as this gateway would accept it from a caller of its own: the ceilings, a normal path.
  const req = resolveWalkRequest(t.req);
  if (req.shape !== 'ranked') throw bad('task.req must be a ranked walk');
  return { ...request, task: { kind: 'ranked-walk', req, cap: t.cap } };
}

export function serveShards(deps: ShardServerDeps): { close(): void } {
  const { nc, table, logger, options } = deps;
  const here: Fleet = { ...deps.fleet, peers: undefined };
  const jobs = new Map<string, AbortController>();
  const incoming = new Map<string, protocol.Parts>();

  const run = async (job: string, body: Uint8Array) => {
    const req = checkShardRequest(await decodeBody<protocol.ShardRequest>(body), job);
    const reply = protocol.resultsSubject(req.from, job);
    // In order: each message after the one before it has been encoded.
    let sending = Promise.resolve();
    const send = (type: protocol.StreamType, value?: unknown) => {
      sending = sending.then(async () => {
        const bytes = value === undefined ? new Uint8Array() : await encodeBody(value);
        if (!nc.isClosed()) protocol.publishParts(nc, reply, bytes, { [protocol.HDR_TYPE]: type });
      });
      return sending;
    };
    const refuse = (why: string) => {
      if (!nc.isClosed()) protocol.publishParts(nc, reply, Buffer.from(why), { [protocol.HDR_TYPE]: 'refused' });
    };
    if (jobs.size >= MAX_JOBS) return refuse(`busy: ${jobs.size} shards running here`);
    try {
      await runShard(req, send, refuse);
    } catch (err) {
      // The caller asks the hosts left itself at once, rather than after a silence.
      refuse(`the shard failed here: ${FleetError.from(err).message}`);
      throw err;
    }
  };

  const runShard = async (
    req: protocol.ShardRequest,
    send: (type: protocol.StreamType, value?: unknown) => Promise<void>,
    refuse: (why: string) => void,
  ) => {
    const { job } = req;
    // The hosts as this gateway knows them, looked up by name (not the whole registry listed
    // per shard); one its registry has not heard of goes back to the caller.
    const known: FleetHost[] = [];
    const knownAt: number[] = [];
    const pending: protocol.ShardItem[] = [];
    req.hosts.forEach((name, i) => {
      const h = here.host(name);
      if (h) {
        known.push(h);
        knownAt.push(i);
      } else pending.push({ i, via: 'agent+nats', ms: 0, redo: true });
    });
    try {
      deps.authorize(req.caller, req.task, known);
    } catch (err) {
      return refuse(FleetError.from(err).message);
    }
    const ctrl = new AbortController();
    jobs.set(job, ctrl);
    await send('ack');
    let lastSent = performance.now();
    const flush = () => {
      if (pending.length === 0) {
        if (performance.now() - lastSent >= ALIVE_MS) {
          lastSent = performance.now();
          void send('alive');
        }
        return;
      }
      lastSent = performance.now();
      void send('results', pending.splice(0));
    };
    const ticker = setInterval(flush, FLUSH_MS);
    logger.debug(
      { job, from: req.from, hosts: req.hosts.length, principal: req.caller.principal },
      'shard from a peer',
    );
    try {
      // Never more than this gateway gives a caller of its own: its concurrency, host budget, scan deadline, stall.
      await fanOut(here, known, deps.task(req.task), {
        concurrency: Math.max(1, Math.min(req.concurrency, Math.max(options.concurrency, options.scanConcurrency))),
        deadlineMs: Math.max(1, Math.min(req.hostMs, Math.max(options.deadlineMs, options.scanHostDeadlineMs))),
        deadlineAt: performance.now() + Math.min(req.leftMs, options.scanDeadlineMs) - MARGIN_MS,
        signal: ctrl.signal,
        stallMs: Math.min(req.stallMs ?? options.hostStallMs, options.hostStallMs),
        onResult: (j, r) => {
          pending.push(protocol.itemOf(knownAt[j], r.status, r.value));
          if (pending.length >= BATCH_ITEMS) flush();
        },
      });
    } finally {
      clearInterval(ticker);
      jobs.delete(job);
    }
    await send('end', pending.splice(0));
  };

  const shards = nc.subscribe(protocol.shardSubject(table.id), {
    callback: (err, msg) => {
      if (err) return;
      const job = msg.headers?.get(protocol.HDR_JOB) ?? '';
      if (!protocol.ID_RE.test(job)) return;
      let parts = incoming.get(job);
      if (!parts) {
        if (incoming.size >= MAX_INCOMING) return;
        parts = new protocol.Parts();
        incoming.set(job, parts);
      }
      const body = parts.add(msg.data, msg.headers);
      if (!body) return;
      incoming.delete(job);
      run(job, body).catch((e) =>
        logger.warn({ job, err: FleetError.from(e).message }, 'a shard from a peer gateway failed'),
      );
    },
  });
  const cancels = nc.subscribe(protocol.cancelSubject(table.id), {
    callback: (err, msg) => {
      if (err) return;
      jobs
        .get(Buffer.from(msg.data).toString('utf8'))
        ?.abort(new FleetError('cancelled', 'cancelled by the calling gateway'));
    },
  });
  table.announce();
  return {
    close() {
      shards.unsubscribe();
      cancels.unsubscribe();
      for (const c of jobs.values()) c.abort(new FleetError('cancelled', 'this gateway is closing'));
    },
  };
}
