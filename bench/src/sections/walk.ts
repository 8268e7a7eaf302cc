// Agent Walk over gRPC vs `find -printf` with the same metadata: tree shape (full
// metadata, no cap biting) and ranked (top 100 by size), on the 300k tree, on its
// 50,000-entry flat directory, and with --full on the 1M tree. The three are sampled in
// turns so load on this shared machine falls on all alike. The client does not decode
// rows (a raw deserializer; only the final message, with the summary, is decoded), so
// it costs about what `wc -l` costs find. Beside each wall time, the CPU (user + system)
// per entry: the agent process's from /proc/<pid>/stat around each walk, find's (with its
// `wc -l`) as the shell's reaped children's. disk_usage (dir_sizes, depth 1) is timed
// against `du -b --one-file-system -d 1` in the same turns.
import { readFileSync } from 'node:fs';
import { loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { memoryOf, sh, shippedAgentNodeFlags, startAgent } from '../helpers/proc.js';
import { fmtBytes, fmtInt, fmtMs, fmtRate, median } from '../helpers/stats.js';
import { ratio } from '../report.js';
import { benchDir } from '../trees.js';

export const name = 'walk';
const MIB = 1024 * 1024;
export const limitMs = (args: BenchArgs): number => (args.full ? 25 : 10) * 60_000;

export interface MethodDef {
  path: string;
  requestSerialize(v: unknown): Buffer;
  responseDeserialize(b: Buffer): { summary?: { entriesSent?: unknown; entriesSeen?: unknown } | null };
}

export function walkMethod(): MethodDef {
  const { proto } = loadContract();
  return (proto.fleetls.v1.Agent as unknown as { service: { Walk: MethodDef } }).service.Walk;
}

/** One Walk; its wall time and the summary's counts (ab-structure.ts times both builds' agents with it). */
export function walkOnce(client: grpc.Client, def: MethodDef, req: Record<string, unknown>) {
  return new Promise<{ ms: number; sent: number; seen: number }>((resolve, reject) => {
    const t0 = performance.now();
    let last: Buffer | undefined;
    const call = client.makeServerStreamRequest(def.path, def.requestSerialize, (b: Buffer) => b, req, {
      deadline: Date.now() + 300_000,
    });
    call.on('data', (b: Buffer) => {
      last = b;
    });
    call.on('error', reject);
    call.on('end', () => {
      const ms = performance.now() - t0;
      const s = last ? def.responseDeserialize(last).summary : undefined;
      if (!s) return reject(new Error('Walk ended without a summary'));
      resolve({ ms, sent: Number(s.entriesSent ?? 0), seen: Number(s.entriesSeen ?? 0) });
    });
  });
}

async function inTurns<T extends { ms: number }>(n: number, fns: (() => Promise<T>)[]): Promise<T[][]> {
  for (const f of fns) await f();
  const out: T[][] = fns.map(() => []);
  for (let i = 0; i < n; i++) for (const [j, f] of fns.entries()) out[j].push(await f());
  return out;
}

const pick = <T extends { ms: number; cpu: number }>(xs: T[]) => ({
  ms: median(xs.map((x) => x.ms)),
  cpu: median(xs.map((x) => x.cpu)),
  sample: xs[0],
  n: xs.length,
});

/**
 * CPU time (user + system) of a process and of its children it has reaped (the find route's
 * find and awk), in ms, from /proc (10 ms ticks).
 */
function cpuWithChildrenMs(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** walkOnce with the agent process's CPU time (user + system, with its reaped children, ms) over it. */
async function walkTimed(pid: number, client: grpc.Client, def: MethodDef, req: Record<string, unknown>) {
  const before = cpuWithChildrenMs(pid);
  const r = await walkOnce(client, def, req);
  return { ...r, cpu: cpuWithChildrenMs(pid) - before };
}

/** A shell pipeline's wall time, its first output line as a count, and its children's CPU (user + system, ms). */
async function shTimed(cmd: string) {
  // The shell's cutime + cstime (fields 16, 17 of its /proc stat) once the pipeline is reaped.
  const r = await sh(`${cmd}; cat /proc/$$/stat`, { timeoutMs: 300_000 });
  const [count, stat] = r.stdout.trim().split('\n');
  const f = stat.split(') ')[1].split(' ');
  const n = Number(count.trim());
  return { ms: r.ms, sent: n, seen: n, cpu: (Number(f[13]) + Number(f[14])) * 10 };
}

/** CPU per entry in µs. */
const usPer = (cpuMsTotal: number, entries: number): string => `${((cpuMsTotal * 1000) / entries).toFixed(1)} µs`;

export async function run(ctx: BenchContext): Promise<void> {
  const medium = await ctx.tree('medium');
  const targets: [string, string, number][] = [
    [`${fmtInt(medium.entries)}-entry tree`, medium.root, 64],
    ['50,000-entry flat directory', medium.flatDir ?? medium.root, 1],
  ];
  if (ctx.args.full) {
    const large = await ctx.tree('large');
    targets.push([`${fmtInt(large.entries)}-entry tree`, large.root, 64]);
  }
  const def = walkMethod();
  const flags = shippedAgentNodeFlags();
  const printf = `%y %s %T@ %m %U %G %i %n %p\\n`;
  const table = ctx.report.table({
    title: 'Agent Walk over gRPC vs find, full metadata, warm cache',
    intro:
      "Baseline: `find PATH [-maxdepth 1] -printf '%y %s %T@ %m %U %G %i %n %p\\n' | wc -l`. Walk: the agent process (packages/agent/dist/main.js, with the node flags the shipped executable carries: " +
      (flags.join(' ') || 'none') +
      ") over plaintext loopback; tree shape with max_items_per_dir 100000 and max_entries 1000000 (no cap bites), order name; ranked: order size descending, top_n 100, entries/s counting the entries the walk looked at. Ranked, JS walker only: the same ranked walk by an agent that finds no find on its PATH (so never hands it to find; it shares the walk with a second thread where it may, walk/split/ranked-share.ts); the ranked target takes the faster of the two routes. Samples alternate find / tree / ranked / JS ranked / du / disk_usage. CPU/entry: user + system of the agent process over each walk, with the children it reaped (the ranked walk's find and awk; /proc/<pid>/stat, 10 ms ticks), and of find with its `wc -l` (the shell's reaped children), divided by find's entry count; medians. disk_usage: a Walk as the disk_usage tool asks it (ranked by size, top 20, directories only, dir_sizes, one_file_system), max_depth 1, against `du -b --one-file-system -d 1 PATH | wc -l`. Agent peak RSS: VmHWM of a fresh agent process after its walks of that row's path, one agent for the tree walks and one for the ranked ones.",
    header: [
      'Path',
      'find -printf',
      'Walk, tree shape',
      'Tree ÷ find',
      'Walk, ranked',
      'Ranked ÷ find',
      'Ranked, JS walker only',
      'JS ranked ÷ find',
      'CPU/entry find / tree / ranked / JS ranked',
      'CPU tree ÷ find',
      'du -b -d 1 / disk_usage (CPU/entry)',
      'disk_usage ÷ du',
      'Agent peak RSS, tree / ranked',
    ],
    rows: [],
  });
  const ratios: {
    label: string;
    tree: number;
    ranked: number;
    cpuTree: number;
    du: number;
    hwm: number;
    rankedHwm: number;
  }[] = [];
  for (const [label, root, depth] of targets) {
    // One agent for the tree walks and one for the ranked ones, so each shape's peak is its own.
    // With the Node flags the shipped executable carries: the peak is the deployed agent's.
    const agent = await startAgent([benchDir()], { timeoutMs: 60_000, nodeFlags: flags });
    const rankedAgent = await startAgent([benchDir()], { timeoutMs: 60_000, nodeFlags: flags });
    // The same ranked walk kept in the JS walker (the native module's reads), never given to find.
    const jsAgent = await startAgent([benchDir()], {
      timeoutMs: 60_000,
      nodeFlags: flags,
      wrap: ['env', 'PATH=/nonexistent'],
    });
    const opts = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };
    const client = new grpc.Client(agent.address, grpc.credentials.createInsecure(), opts);
    const rankedClient = new grpc.Client(rankedAgent.address, grpc.credentials.createInsecure(), opts);
    const jsClient = new grpc.Client(jsAgent.address, grpc.credentials.createInsecure(), opts);
    try {
      const base = { path: root, maxDepth: depth, maxItemsPerDir: 100_000, maxEntries: 1_000_000, deadlineMs: 120_000 };
      const runs = root === medium.root || depth === 1 ? ctx.args.runs : Math.min(3, ctx.args.runs);
      const rankedReq = {
        ...base,
        shape: 'SHAPE_RANKED',
        order: 'ORDER_SIZE',
        direction: 'DIRECTION_DESCENDING',
        topN: 100,
      };
      const [find, tree, ranked, rankedJs, du, sized] = await inTurns(runs, [
        () => shTimed(`find '${root}'${depth === 1 ? ' -maxdepth 1' : ''} -printf '${printf}' | wc -l`),
        () => walkTimed(agent.pid, client, def, { ...base, shape: 'SHAPE_TREE', order: 'ORDER_NAME' }),
        () => walkTimed(rankedAgent.pid, rankedClient, def, rankedReq),
        () => walkTimed(jsAgent.pid, jsClient, def, rankedReq),
        () => shTimed(`du -b --one-file-system -d 1 '${root}' | wc -l`),
        () =>
          // As the disk_usage tool asks (gateway tools/disk-usage): the largest directories, sized.
          walkTimed(agent.pid, client, def, {
            ...base,
            maxDepth: 1,
            shape: 'SHAPE_RANKED',
            order: 'ORDER_SIZE',
            direction: 'DIRECTION_DESCENDING',
            topN: 20,
            types: ['ENTRY_TYPE_DIR'],
            dirSizes: true,
            oneFileSystem: true,
          }),
      ]);
      const f = pick(find);
      const t = pick(tree);
      const r = pick(ranked);
      const j = pick(rankedJs);
      const d = pick(du);
      const z = pick(sized);
      const findRate = f.sample.sent / (f.ms / 1000);
      const treeRate = t.sample.sent / (t.ms / 1000);
      const rankedRate = r.sample.seen / (r.ms / 1000);
      const rankedJsRate = j.sample.seen / (j.ms / 1000);
      const entries = f.sample.sent;
      const hwm = memoryOf(agent.pid)?.hwm ?? Number.NaN;
      const rankedHwm = memoryOf(rankedAgent.pid)?.hwm ?? Number.NaN;
      ratios.push({
        label,
        tree: treeRate / findRate,
        ranked: Math.max(rankedRate, rankedJsRate) / findRate,
        cpuTree: t.cpu / f.cpu,
        du: d.ms / z.ms,
        hwm,
        rankedHwm,
      });
      table.rows.push([
        label,
        `${fmtMs(f.ms)}, ${fmtRate(findRate)} (n=${f.n})`,
        `${fmtMs(t.ms)}, ${fmtRate(treeRate)} (${fmtInt(t.sample.sent)} rows)`,
        ratio(treeRate / findRate),
        `${fmtMs(r.ms)}, ${fmtRate(rankedRate)} (${fmtInt(r.sample.seen)} seen)`,
        ratio(rankedRate / findRate),
        `${fmtMs(j.ms)}, ${fmtRate(rankedJsRate)}`,
        ratio(rankedJsRate / findRate),
        `${usPer(f.cpu, entries)} / ${usPer(t.cpu, entries)} / ${usPer(r.cpu, entries)} / ${usPer(j.cpu, entries)}`,
        ratio(t.cpu / f.cpu),
        `${fmtMs(d.ms)} / ${fmtMs(z.ms)} (${usPer(d.cpu, entries)} / ${usPer(z.cpu, entries)})`,
        ratio(d.ms / z.ms),
        `${fmtBytes(hwm)} / ${fmtBytes(rankedHwm)}`,
      ]);
    } finally {
      client.close();
      rankedClient.close();
      jsClient.close();
      await agent.stop();
      await rankedAgent.stop();
      await jsAgent.stop();
    }
  }
  ctx.report.target(
    'Agent Walk ≥ 1.2× find -printf entries/s (tree shape, full metadata)',
    ratios.map((x) => `${x.label}: ${ratio(x.tree)}`).join('; '),
    ratios.every((x) => x.tree >= 1.2),
  );
  ctx.report.target(
    'Agent ranked Walk ≥ 1.5× find -printf entries/s',
    ratios.map((x) => `${x.label}: ${ratio(x.ranked)}`).join('; '),
    ratios.every((x) => x.ranked >= 1.5),
  );
  ctx.report.target(
    "Agent CPU (user + system) per entry ≤ 1.0× find's, tree shape (issue 39)",
    ratios.map((x) => `${x.label}: ${ratio(x.cpuTree)}`).join('; '),
    ratios.every((x) => x.cpuTree <= 1.0),
  );
  ctx.report.target(
    'disk_usage depth 1 ≥ 1.0× du -b --one-file-system -d 1 (issue 39)',
    ratios.map((x) => `${x.label}: ${ratio(x.du)}`).join('; '),
    ratios.every((x) => x.du >= 1.0),
  );
  ctx.report.target(
    'Agent peak RSS ≤ 120 MiB for tree walks, ≤ 200 MiB for ranked walks',
    ratios.map((x) => `${x.label}: ${fmtBytes(x.hwm)} / ${fmtBytes(x.rankedHwm)}`).join('; '),
    ratios.every((x) => x.hwm <= 120 * MIB && x.rankedHwm <= 200 * MIB),
  );
}
