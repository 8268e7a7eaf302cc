// Which gRPC client the gateway keeps for its agents (issue 24 ask 2): the gateway's own
// agent-channel.ts with the hand decoder (straight into core Rows) against grpc-js with
// proto-loader's protobufjs decoding, on the same Walk of one loopback agent, 8 at once.
// Client CPU per row is what a fan-out pays per host; the wall time is mostly the agent's.

import { createAgentChannel } from '@fleetls/gateway/testing';
import { decodeWalkResponse, loadContract, SERVICE_NAME } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { loadAverage } from '../machine.js';
import { startAgent } from '../proc.js';
import { fmtInt, fmtMs } from '../stats.js';

export const name = 'grpc-client';
export const limitMs = (_args: BenchArgs): number => 10 * 60_000;

const ROUNDS = 4;
const AT_ONCE = 8;

type Walker = () => Promise<number>;

async function measure(walk: Walker): Promise<{ cpuMs: number; wallMs: number; rows: number }> {
  await walk();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let rows = 0;
  for (let i = 0; i < ROUNDS; i++) {
    for (const n of await Promise.all(Array.from({ length: AT_ONCE }, walk))) rows += n;
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, rows };
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
  const viaChannel: Walker = async () => {
    let rows = 0;
    const signal = new AbortController().signal;
    const request = method.requestSerialize(req);
    for await (const b of channel.serverStream(method.path, request, { timeoutMs: 120_000, signal })) {
      rows += decodeWalkResponse(b).rows.length;
    }
    return rows;
  };
  const viaGrpcJs: Walker = () =>
    new Promise((resolve, reject) => {
      let rows = 0;
      const call = client.Walk(req);
      call.on('data', (m: { rows: unknown[] }) => {
        rows += m.rows.length;
      });
      call.on('error', reject);
      call.on('end', () => resolve(rows));
    });
  try {
    const results: [string, Awaited<ReturnType<typeof measure>>][] = [];
    // Interleaved, twice each, so that the machine's load weighs on both alike.
    for (const [label, walk] of [
      ['agent-channel.ts + fast decoder', viaChannel],
      ['grpc-js + protobufjs', viaGrpcJs],
      ['agent-channel.ts + fast decoder', viaChannel],
      ['grpc-js + protobufjs', viaGrpcJs],
    ] as const) {
      ctx.log(`grpc-client: ${label}`);
      results.push([label, await measure(walk)]);
    }
    ctx.report.table({
      title: `Agent gRPC client: ${ROUNDS}×${AT_ONCE} concurrent Walks of the ${fmtInt(t.entries)}-entry tree (load ${loadAverage()})`,
      intro:
        'Client CPU is the bench process (user + system) over the timed walks; rows are decoded to what each client hands on (core Rows; protobufjs objects). connect-node is not measured: the Agent contract has no protobuf-es descriptors, and adding them would put a second protobuf runtime on the walk path.',
      header: ['Client', 'Rows', 'Client CPU', 'CPU per row', 'Wall'],
      rows: results.map(([label, m]) => [
        label,
        fmtInt(m.rows),
        fmtMs(m.cpuMs),
        `${((m.cpuMs * 1000) / m.rows).toFixed(2)} µs`,
        fmtMs(m.wallMs),
      ]),
    });
  } finally {
    channel.close();
    client.close();
    await agent.stop();
  }
}
