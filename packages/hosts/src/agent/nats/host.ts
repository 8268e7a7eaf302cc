// What a NATS host's calls share: its subjects and codecs, its settings, and the reading of
// an agent's failure and feature headers.

import { FleetError } from '@fleetls/core';
import { codeFromStatus } from '@fleetls/proto';
import { type agentSubjects, HDR } from '@fleetls/runtime/nats';
import type { status as GrpcStatus } from '@grpc/grpc-js';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import type { NatsRegistry } from './registry.js';

export interface MethodCodec {
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}

/** One host's NATS calls: its name, connection, subjects and codecs, with the defaults resolved. */
export interface NatsHost {
  name: string;
  nc: NatsConnection;
  subjects: ReturnType<typeof agentSubjects>;
  methods: Record<'Walk' | 'Stat', MethodCodec>;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  livenessMs: number;
  window: number;
  registry?: NatsRegistry;
  caller?: string;
}

/** A host whose heartbeat stopped is unreachable before any call is made. */
export function refuseStale(host: NatsHost): void {
  const gone = host.registry?.stale(host.name);
  if (gone) throw gone;
}

export function failureOf(msg: Msg, host: string): FleetError | undefined {
  const h = msg.headers;
  if (!h) return undefined;
  if (h.code === 503) return new FleetError('unavailable', `no agent answers for ${host} on NATS (${msg.subject})`);
  const st = h.get(HDR.status);
  if (st === '') return undefined;
  const code = codeFromStatus(Number(st) as GrpcStatus);
  return new FleetError(code, `agent ${host}: ${h.get(HDR.details) || 'failed'}`);
}

export function listOf(header: string | undefined): string[] {
  return (header ?? '').split(',').filter((f) => f !== '');
}
