// How gateways of one NATS fleet split a call between them: the subjects they serve, the
// shard a caller sends a peer (the call's task, its hosts, the caller's principal and
// budgets) and the stream of per-host results the peer sends back. Bodies are gzipped JSON
// (Buffers as base64), cut into parts under the server's max_payload; a message's headers
// say what it is. Only gateways' credentials may publish or subscribe under PEERS_PREFIX
// (runtime/nats permissions.ts): an agent cannot ask a gateway for anything.
import type { HostStatus, HostStatusCode, Via, WalkRequest } from '@fleetls/core';
import { type MsgHdrs, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';

export const PEERS_PREFIX = 'fleetls.gateway';
/** Every gateway hears every other's hello here (not a queue group: each keeps the whole table). */
export const HELLO_SUBJECT = `${PEERS_PREFIX}.hello`;
export const shardSubject = (gateway: string) => `${PEERS_PREFIX}.${gateway}.shard`;
export const cancelSubject = (gateway: string) => `${PEERS_PREFIX}.${gateway}.cancel`;
export const resultsSubject = (gateway: string, job: string) => `${PEERS_PREFIX}.${gateway}.r.${job}`;
/** A gateway's id or a job's: one subject token. */
export const ID_RE = /^[0-9a-f]{8,32}$/;

/** What a message of a shard's stream is. */
export const HDR_TYPE = 'Fleetls-Shard';
/** The body goes on in the next message of the same stream. */
export const HDR_MORE = 'Fleetls-More';
/** The job a shard request's parts belong to. */
export const HDR_JOB = 'Fleetls-Job';

export type StreamType = 'ack' | 'results' | 'alive' | 'end' | 'refused';

/** A task a peer can run: the tools' fan-out tasks that are worth a split (tools/shared/host-walks.ts). */
export type ShardTask = { kind: 'ranked-walk'; req: WalkRequest; cap: number };

/** Who asked: the principal a peer holds the shard to (its own grants), and the tool as grants name it. */
export interface ShardCaller {
  principal: string;
  tool: string;
}

export interface ShardRequest {
  v: 1;
  job: string;
  /** The caller gateway's id: results go to resultsSubject(from, job). */
  from: string;
  caller: ShardCaller;
  task: ShardTask;
  hosts: string[];
  /** What is left of the call's deadline when the shard is sent. */
  leftMs: number;
  /** One host's budget. */
  hostMs: number;
  concurrency: number;
  stallMs?: number;
}

/** One host's result: its index in the shard, its status and, for a host that answered, its value. */
export interface ShardItem {
  i: number;
  /** Absent: ok. */
  s?: HostStatusCode;
  via: Via;
  ms: number;
  m?: string;
  v?: unknown;
  /** The peer does not know this host (its registry has not heard of it): the caller asks it. */
  redo?: true;
}

export function itemOf(index: number, status: HostStatus, value: unknown): ShardItem {
  const item: ShardItem = { i: index, via: status.via, ms: status.elapsedMs };
  if (status.status !== 'ok') item.s = status.status;
  if (status.message !== undefined) item.m = status.message;
  if (value !== undefined) item.v = value;
  return item;
}

export function statusOf(host: string, item: ShardItem): HostStatus {
  const status: HostStatus = { host, status: item.s ?? 'ok', via: item.via, elapsedMs: item.ms };
  if (item.m !== undefined) status.message = item.m;
  return status;
}

/** Room left in a message for headers under the server's max_payload. */
const HEADROOM = 4096;

/** Publishes `body` on `subject`, in parts under the server's max_payload, each with `headers`. */
export function publishParts(nc: NatsConnection, subject: string, body: Uint8Array, set: Record<string, string>): void {
  const most = Math.max(16 * 1024, (nc.info?.max_payload ?? 1024 * 1024) - HEADROOM);
  for (let at = 0; at < body.length || at === 0; at += most) {
    const h = natsHeaders();
    for (const [k, v] of Object.entries(set)) h.set(k, v);
    const end = Math.min(body.length, at + most);
    if (end < body.length) h.set(HDR_MORE, '1');
    nc.publish(subject, body.subarray(at, end), { headers: h });
    if (end >= body.length) break;
  }
}

/** Gathers a stream's parts: a whole body once a message without HDR_MORE ends it. */
export class Parts {
  private held: Uint8Array[] = [];

  /** The whole body when `data` ends one, else undefined. */
  add(data: Uint8Array, headers: MsgHdrs | undefined): Uint8Array | undefined {
    if (headers?.get(HDR_MORE) === '1') {
      this.held.push(data);
      return undefined;
    }
    if (this.held.length === 0) return data;
    const whole = Buffer.concat([...this.held, data]);
    this.held = [];
    return whole;
  }
}
