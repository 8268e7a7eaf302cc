// Agent Walk over gRPC vs `find -printf`: tree shape with full metadata, and ranked.
import { loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { memoryOf, sh, startAgent } from '../proc.js';
import { ratio } from '../report.js';
import { fmtBytes, fmtInt, fmtMs, fmtRate, sampled } from '../stats.js';
import { benchDir } from '../trees.js';

export const name = 'walk';
export const limitMs = (_args: BenchArgs): number => 8 * 60_000;

type WalkClient = grpc.Client & {
  Walk(req: Record<string, unknown>, opts: grpc.CallOptions): grpc.ClientReadableStream<Record<string, unknown>>;
};

function walkClient(address: string): WalkClient {
  const { proto } = loadContract();
  const Ctor = proto.fleetls.v1.Agent as unknown as new (
    a: string,
    c: grpc.ChannelCredentials,
    o: Record<string, unknown>,
  ) => WalkClient;
  return new Ctor(address, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
}

function walkOnce(client: WalkClient, req: Record<string, unknown>) {
  return new Promise<{ ms: number; entries: number; seen: number; truncations: number }>((resolve, reject) => {
    const t0 = performance.now();
    let entries = 0;
    let truncations = 0;
    let seen = 0;
    const call = client.Walk(req, { deadline: Date.now() + 180_000 });
    call.on('data', (m: { rows?: { kind?: string; entry?: unknown }[]; summary?: { entriesSeen?: number } | null }) => {
      for (const r of m.rows ?? []) {
        if (r.kind === 'entry' || (r.kind === undefined && r.entry)) entries++;
        else truncations++;
      }
      if (m.summary) seen = Number(m.summary.entriesSeen ?? 0);
    });
    call.on('error', reject);
    call.on('end', () => resolve({ ms: performance.now() - t0, entries, seen, truncations }));
  });
}

export async function run(ctx: BenchContext): Promise<void> {
  const t = await ctx.tree('medium');
  const agent = await startAgent([benchDir()]);
  const client = walkClient(agent.address);
  try {
    const printf = `%y %s %T@ %m %U %G %i %n %p\\n`;
    const find = await sampled(async () => {
      const r = await sh(`find '${t.root}' -printf '${printf}' | wc -l`, { timeoutMs: 180_000 });
      return { ms: r.ms, lines: Number(r.stdout.trim()) };
    }, ctx.args.runs);
    const findRate = find.sample.lines / (find.ms / 1000);
    const base = {
      path: t.root,
      maxDepth: 64,
      maxItemsPerDir: 100_000,
      maxEntries: 1_000_000,
      deadlineMs: 120_000,
    };
    const tree = await sampled(
      () => walkOnce(client, { ...base, shape: 'SHAPE_TREE', order: 'ORDER_NAME' }),
      ctx.args.runs,
    );
    const ranked = await sampled(
      () =>
        walkOnce(client, {
          ...base,
          shape: 'SHAPE_RANKED',
          order: 'ORDER_SIZE',
          direction: 'DIRECTION_DESCENDING',
          topN: 100,
        }),
      ctx.args.runs,
    );
    const treeRate = tree.sample.entries / (tree.ms / 1000);
    const rankedRate = ranked.sample.seen / (ranked.ms / 1000);
    const agentMem = memoryOf(agent.pid);
    ctx.report.table({
      title: `Agent Walk over gRPC vs find (${fmtInt(t.entries)}-entry tree, warm cache)`,
      intro:
        "Baseline: `find PATH -printf '%y %s %T@ %m %U %G %i %n %p\\n' | wc -l`. The Walk client is a raw grpc-js client in the bench process (plaintext loopback), counting rows as they arrive. Tree shape: max_depth 64, max_items_per_dir 100000, max_entries 1000000 (no cap bites). Ranked: order size descending, top_n 100, entries/s counts entries the walk looked at.",
      header: ['Measure', 'Median', 'Entries', 'Entries/s', 'Ratio to find'],
      rows: [
        ['find -printf', `${fmtMs(find.ms)} (n=${find.runs})`, fmtInt(find.sample.lines), fmtRate(findRate), '1.00×'],
        [
          'Walk, tree shape, full metadata',
          `${fmtMs(tree.ms)} (n=${tree.runs})`,
          `${fmtInt(tree.sample.entries)}${tree.sample.truncations ? ` (+${tree.sample.truncations} truncation rows)` : ''}`,
          fmtRate(treeRate),
          ratio(treeRate / findRate),
        ],
        [
          'Walk, ranked (top 100 by size)',
          `${fmtMs(ranked.ms)} (n=${ranked.runs})`,
          `${fmtInt(ranked.sample.seen)} seen, ${fmtInt(ranked.sample.entries)} sent`,
          fmtRate(rankedRate),
          ratio(rankedRate / findRate),
        ],
        ['Agent peak RSS after the walks', fmtBytes(agentMem?.hwm ?? Number.NaN), '', '', ''],
      ],
    });
    ctx.report.target(
      'Agent Walk ≥ 0.8× find entries/s (tree shape)',
      ratio(treeRate / findRate),
      treeRate / findRate >= 0.8,
    );
  } finally {
    client.close();
    await agent.stop();
  }
}
