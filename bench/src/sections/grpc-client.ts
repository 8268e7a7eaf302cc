// Which gRPC client the gateway keeps for its agents (issue 24 ask 2): the gateway's own
// agent-channel.ts with the hand decoder (straight into core Rows) against connect-node's gRPC
// transport with protobuf-es and grpc-js with proto-loader's protobufjs decoding, on the same
// Walk of one loopback agent, 8 at once. protobuf-es and protobufjs behind agent-channel.ts
// separate the codec's share from the transport's. The clients' routes are measured twice:
// handing on their own messages (what that client gives its caller) and mapped on to core Rows
// (what the gateway's fan-out consumes, so what replacing the fast decoder would cost). Client
// CPU per row is what a fan-out pays per host; the wall time is mostly the agent's.
// Ask 2's rule: a hand codec stays only where it is ≥ 2× faster on the hot path (the targets).

import * as assert from 'node:assert/strict';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { Row } from '@fleetls/core';
import { createAgentChannel } from '@fleetls/gateway/testing';
import {
  decodeWalkResponse,
  ENTRY_TYPE,
  ERROR_CODE,
  loadContract,
  rowFromWire,
  SERVICE_NAME,
  TRUNCATION_REASON,
  type WireRowOut,
} from '@fleetls/proto';
import {
  Agent,
  type Entry as EsEntry,
  type Row as EsRow,
  WalkRequestSchema,
  WalkResponseSchema,
} from '@fleetls/proto/agent_pb';
import * as grpc from '@grpc/grpc-js';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { loadAverage } from '../helpers/machine.js';
import { startAgent } from '../helpers/proc.js';
import { fmtInt, fmtMs } from '../helpers/stats.js';

export const name = 'grpc-client';
export const limitMs = (_args: BenchArgs): number => 10 * 60_000;

const ROUNDS = 4;
const AT_ONCE = 8;
const PASSES = 2;
const BASELINE = 'agent-channel.ts + fast decoder';

type Walker = () => Promise<number>;

interface Route {
  client: string;
  handsOn: string;
  walk: Walker;
}

interface Measured {
  cpuMs: number;
  wallMs: number;
  rows: number;
  load: number;
}

async function measure(walk: Walker): Promise<Measured> {
  // A whole round as the warm-up, not one walk: with one, the first route measured in the
  // process paid the JIT of the HTTP/2 and channel code every later route shares (the fast
  // decoder's CPU per row was ~1.0 µs in the first pass and ~0.7 µs in the second, each time).
  await Promise.all(Array.from({ length: AT_ONCE }, walk));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let rows = 0;
  for (let i = 0; i < ROUNDS; i++) {
    for (const n of await Promise.all(Array.from({ length: AT_ONCE }, walk))) rows += n;
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, rows, load: loadAverageNow() };
}

const loadAverageNow = (): number => Number(loadAverage().split(' ')[0]);
const perRowUs = (m: Measured): number => (m.cpuMs * 1000) / m.rows;

// A view, not a copy: protobuf-es's bytes are already views of the message, as the fast
// decoder's paths are, so the mapping adds no copy the fast decoder does not make.
const asBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

// protobuf-es's Entry as core's, as proto/src/codec.ts's entryFromWire maps protobufjs' (same
// rules: unknown enums as the codec reads them, zeros as absent). Only the bench needs it: the
// product reads the Agent contract with the fast decoder alone.
function entryFromEs(w: EsEntry): Row {
  const entry: Extract<Row, { kind: 'entry' }>['entry'] = {
    path: asBuffer(w.path),
    type: ENTRY_TYPE.fromWire(w.type) ?? 'unknown',
    size: Number(w.size),
    mtimeSec: Number(w.mtimeSec),
    mtimeNsec: w.mtimeNsec,
    utcOffsetMin: w.utcOffsetMin,
    mode: w.mode,
    uid: w.uid,
    gid: w.gid,
    inode: Number(w.inode),
    nlink: Number(w.nlink),
    depth: w.depth,
  };
  if (w.linkTarget.length > 0) entry.linkTarget = asBuffer(w.linkTarget);
  if (w.error && w.error.code !== 0) {
    entry.error = { code: ERROR_CODE.fromWire(w.error.code) ?? 'ERROR', detail: w.error.detail };
  }
  if (w.sizePartial) entry.sizePartial = true;
  if (w.allocated > 0n) entry.allocated = Number(w.allocated);
  if (w.unreadableDirs > 0n) entry.unreadableDirs = Number(w.unreadableDirs);
  return { kind: 'entry', entry };
}

function rowFromEs(w: EsRow): Row {
  if (w.kind.case === 'entry') return entryFromEs(w.kind.value);
  if (w.kind.case === 'truncation') {
    const t = w.kind.value;
    return {
      kind: 'truncation',
      truncation: {
        dir: asBuffer(t.dir),
        shown: Number(t.shown),
        total: Number(t.total),
        reason: TRUNCATION_REASON.fromWire(t.reason) ?? 'bytes',
      },
    };
  }
  throw new Error('wire row carries neither an entry nor a truncation');
}

/**
 * The section's protobuf-es mapping must hand on the fast decoder's rows, or its rows would
 * time a different answer: one walk, every message decoded both ways and compared.
 */
async function sameRows(
  channel: ReturnType<typeof createAgentChannel>,
  path: string,
  request: Uint8Array,
): Promise<void> {
  const signal = new AbortController().signal;
  for await (const b of channel.serverStream(path, request, { timeoutMs: 120_000, signal })) {
    assert.deepStrictEqual(fromBinary(WalkResponseSchema, b).rows.map(rowFromEs), decodeWalkResponse(b).rows);
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const t = await ctx.tree('small');
  const agent = await startAgent([t.root]);
  const req = { path: t.root, maxDepth: 64, maxItemsPerDir: 100_000, maxEntries: 1_000_000, deadlineMs: 120_000 };
  const { packageDefinition, proto } = loadContract();
  const method = (packageDefinition[SERVICE_NAME] as Record<string, grpc.MethodDefinition<unknown, unknown>>).Walk;
  const channel = createAgentChannel({ address: agent.address, connectTimeoutMs: 5000 });
  const client = new proto.fleetls.v1.Agent(agent.address, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 << 20,
  });
  // connect-node's defaults (one HTTP/2 session per transport, binary format), as a gateway
  // adopting it would start from; the agent compresses nothing, so accepting gzip/br changes no byte.
  const connect = createClient(Agent, createGrpcTransport({ baseUrl: `http://${agent.address}` }));
  const esRequest = toBinary(WalkRequestSchema, create(WalkRequestSchema, req));

  // Every walker counts the rows of the array its decoding handed on, so each row is built.
  const viaChannel =
    (request: Uint8Array, decode: (b: Buffer) => { length: number }): Walker =>
    async () => {
      let rows = 0;
      const signal = new AbortController().signal;
      for await (const b of channel.serverStream(method.path, request, { timeoutMs: 120_000, signal })) {
        rows += decode(b).length;
      }
      return rows;
    };
  const viaConnect =
    (map: (rows: EsRow[]) => { length: number }): Walker =>
    async () => {
      let rows = 0;
      for await (const m of connect.walk(req, { timeoutMs: 120_000 })) rows += map(m.rows).length;
      return rows;
    };
  const viaGrpcJs =
    (map: (rows: WireRowOut[]) => { length: number }): Walker =>
    () =>
      new Promise((resolve, reject) => {
        let rows = 0;
        const call = client.Walk(req);
        call.on('data', (m: { rows: WireRowOut[] }) => {
          rows += map(m.rows).length;
        });
        call.on('error', reject);
        call.on('end', () => resolve(rows));
      });
  const asIs = <T>(rows: T[]): T[] => rows;
  const pbRequest = method.requestSerialize(req);
  const fast: Route = {
    client: BASELINE,
    handsOn: 'core Rows',
    walk: viaChannel(pbRequest, (b) => decodeWalkResponse(b).rows),
  };
  const channelEsRows: Route = {
    client: 'agent-channel.ts + protobuf-es',
    handsOn: 'core Rows',
    walk: viaChannel(esRequest, (b) => fromBinary(WalkResponseSchema, b).rows.map(rowFromEs)),
  };
  // protobufjs is the runtime the agent's own face already reads (proto-loader), so it is the
  // other runtime the fast decoder could give way to behind the same channel.
  const channelPbRows: Route = {
    client: 'agent-channel.ts + protobufjs',
    handsOn: 'core Rows',
    walk: viaChannel(pbRequest, (b) => (method.responseDeserialize(b) as { rows: WireRowOut[] }).rows.map(rowFromWire)),
  };
  const connectRows: Route = {
    client: 'connect-node gRPC + protobuf-es',
    handsOn: 'core Rows',
    walk: viaConnect((r) => r.map(rowFromEs)),
  };
  const grpcJsRows: Route = {
    client: 'grpc-js + protobufjs',
    handsOn: 'core Rows',
    walk: viaGrpcJs((r) => r.map(rowFromWire)),
  };
  const routes: Route[] = [
    fast,
    {
      client: 'agent-channel.ts + protobuf-es',
      handsOn: 'protobuf-es messages',
      walk: viaChannel(esRequest, (b) => fromBinary(WalkResponseSchema, b).rows),
    },
    channelEsRows,
    channelPbRows,
    { client: 'connect-node gRPC + protobuf-es', handsOn: 'protobuf-es messages', walk: viaConnect(asIs) },
    connectRows,
    { client: 'grpc-js + protobufjs', handsOn: 'protobufjs objects', walk: viaGrpcJs(asIs) },
    grpcJsRows,
  ];
  await sameRows(channel, method.path, esRequest);
  const byRoute = new Map<Route, Measured[]>(routes.map((r) => [r, []]));
  const table = ctx.report.table({
    title: `Agent gRPC client: ${ROUNDS}×${AT_ONCE} concurrent Walks of the ${fmtInt(t.entries)}-entry tree, ${PASSES} passes in turns`,
    intro:
      "Client CPU is the bench process (user + system) over the timed walks; the agent is its own process. \"Hands on\" is what the rows are decoded to: each client's own messages, or core Rows (the gateway's fan-out reads core Rows, so a runtime replacing the fast decoder pays the mapping too: codec.ts `rowFromWire` for protobufjs, the section's own mapping for protobuf-es). protobufjs decodes with proto-loader's definitions, as the agent's server does; protobuf-es decodes with the descriptors proto/ generates from agent.proto for the Fleet API (`@fleetls/proto/agent_pb`). Load is the 1-minute load average after each row.",
    header: ['Pass', 'Client', 'Hands on', 'Rows', 'Client CPU', 'CPU per row', 'Wall', 'Load'],
    rows: [],
  });
  try {
    // In turns, every route once per pass, so that the machine's load weighs on all alike.
    for (let pass = 1; pass <= PASSES; pass++) {
      for (const r of routes) {
        ctx.log(`grpc-client: pass ${pass}, ${r.client} → ${r.handsOn}`);
        const m = await measure(r.walk);
        byRoute.get(r)!.push(m);
        table.rows.push([
          String(pass),
          r.client,
          r.handsOn,
          fmtInt(m.rows),
          fmtMs(m.cpuMs),
          `${perRowUs(m).toFixed(2)} µs`,
          fmtMs(m.wallMs),
          m.load.toFixed(1),
        ]);
      }
    }
  } finally {
    channel.close();
    client.close();
    await agent.stop();
  }
  const base = byRoute.get(fast)!;
  // Each pass's ratio against the baseline of the same pass: the load moves between passes.
  const ratios = (r: Route): number[] => byRoute.get(r)!.map((m, i) => perRowUs(m) / perRowUs(base[i]));
  const span = (xs: number[]): string => {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    return lo === hi ? `${lo.toFixed(2)}×` : `${lo.toFixed(2)}–${hi.toFixed(2)}×`;
  };
  ctx.report.table({
    title: `CPU per row against ${BASELINE} (same pass)`,
    header: ['Client', 'Hands on', ...Array.from({ length: PASSES }, (_, i) => `pass ${i + 1}`)],
    rows: routes
      .filter((r) => r !== fast)
      .map((r) => [r.client, r.handsOn, ...ratios(r).map((x) => `${x.toFixed(2)}×`)]),
  });
  const rule = (label: string, other: Route): void => {
    const xs = ratios(other);
    ctx.report.target(
      `ask 2's ≥ 2×: ${label}, client CPU per row to core Rows`,
      `${span(xs)} (${xs.length} passes)`,
      xs.length === PASSES ? xs.every((x) => x >= 2) : undefined,
    );
  };
  rule('agent-channel.ts + fast decoder vs connect-node + protobuf-es', connectRows);
  rule('agent-channel.ts + fast decoder vs grpc-js + protobufjs', grpcJsRows);
  rule('fast decoder vs protobuf-es, both behind agent-channel.ts', channelEsRows);
  rule('fast decoder vs protobufjs, both behind agent-channel.ts', channelPbRows);
}
