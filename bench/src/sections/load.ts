// Load (issue 10 point 6), the figures of test/src/fleet/load-mcp.test.ts and load.test.ts:
// 200 concurrent MCP tool calls against one `fleetls serve` (stdio) with 20 agents at their
// default limits, and 64 concurrent Walks against one agent started with
// --max-concurrent-walks 8. Excess work is refused at once (RESOURCE_EXHAUSTED, in a small
// fraction of an admitted walk's time), every admitted call answers correctly, peak memory
// stays under a bound. The answers are checked with the tests' own checks
// (@fleetls/gateway/testing: checkRankedAnswer, silentLoss).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentWalk, checkRankedAnswer, silentLoss, type WalkOutcome } from '@fleetls/gateway/testing';
import { type AgentClient, loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { startFleetls } from '../helpers/mcp.js';
import { type AgentProc, cpuMs, memoryOf, startAgent } from '../helpers/proc.js';
import { fmtBytes, fmtMs, median, quantile } from '../helpers/stats.js';
import { writeInventory } from '../helpers/tools.js';

export const name = 'load';
export const limitMs = (_args: BenchArgs): number => 10 * 60_000;

const AGENTS = 20;
const CALLS = 200;
const WALKS = 64;
const MAX_WALKS = 8;
/** Files in the directory every agent lists: sized 100..1000 bytes. */
const FILES = 10;
/**
 * Peak resident memory (VmHWM) allowed for the gateway and for each agent, the load test's
 * bound. Measured on a loaded 2-core machine: gateway 231–363 MiB (after two bursts of 200
 * calls), busiest agent 206–285 MiB; this leaves some 40 % over the highest.
 */
const PEAK_BOUND = 512 * 1024 * 1024;
/** A refusal must take at most this fraction of an admitted walk's median time. */
const REFUSAL_FRACTION = 0.1;

const topN = (i: number) => 3 + (i % 5);

async function mcpBurst(ctx: BenchContext): Promise<void> {
  const dir = ctx.home('load-files');
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(dir, `f${i}`), Buffer.alloc((i + 1) * 100));
  const agents: AgentProc[] = [];
  try {
    // Five at a time: twenty agents starting at once on two cores can miss their start timeout.
    while (agents.length < AGENTS) {
      agents.push(...(await Promise.all(Array.from({ length: 5 }, () => startAgent([dir], { timeoutMs: 60_000 })))));
    }
    const hosts: Record<string, string> = {};
    agents.forEach((a, i) => {
      hosts[`h${i}`] = `agent: "${a.address}"`;
    });
    const inventory = path.join(ctx.scratch, 'load.yaml');
    writeInventory(inventory, hosts);
    const gw = await startFleetls({ inventory, cwd: ctx.home('load-gw'), home: ctx.home('load-gw') });
    try {
      const args = (i: number) => ({
        host: 'all',
        path: dir,
        order_by: 'size',
        sort: 'descending',
        type: 'file',
        top_n: topN(i),
      });
      // One call first: channels to every agent open, as a running gateway has them.
      await gw.call('list_files', args(0), 60_000);
      const names = agents.map((_, i) => `h${i}`);
      const sizes = Array.from({ length: FILES }, (_, k) => (k + 1) * 100);
      const rows: string[][] = [];
      ctx.report.table({
        title: `${CALLS} concurrent MCP calls, one gateway (stdio), ${AGENTS} agents at default limits`,
        intro:
          `list_files host:all of a ${FILES}-file directory, top_n 3..7 by size; each answer checked: one status ` +
          'row per host, every host ok or refused by its full agent (error "too many concurrent walks") or timed ' +
          'out, merged top n exact for the hosts that answered. Gateway CPU is user + system over the burst. The ' +
          'first burst meets agents that have run one walk each; the second, agents whose walk workers the first started.',
        header: [
          'Burst',
          'Wall time',
          'Calls correct',
          'Call time median / p95',
          'Host walks ok / refused / timed out / partial',
          'Gateway CPU',
          'Gateway peak RSS',
          'Busiest agent peak RSS',
        ],
        rows,
      });
      for (const burst of ['first', 'second']) {
        const cpu0 = cpuMs(gw.pid);
        const t0 = performance.now();
        const answers = await Promise.all(
          Array.from({ length: CALLS }, (_, i) =>
            gw.call('list_files', args(i), 120_000).then(
              (r) => ({ r, i }),
              (err: Error) => ({ err, i }),
            ),
          ),
        );
        const wall = performance.now() - t0;
        const cpu = cpuMs(gw.pid) - cpu0;
        let correct = 0;
        let okWalks = 0;
        let refused = 0;
        let timedOut = 0;
        let partial = 0;
        const wrong: string[] = [];
        for (const a of answers) {
          if ('err' in a) {
            wrong.push(`call ${a.i}: ${a.err.message}`);
            continue;
          }
          try {
            if (a.r.isError) throw new Error(a.r.text.slice(0, 300));
            const n = checkRankedAnswer(a.r.structured as never, names, topN(a.i), sizes);
            correct++;
            okWalks += n.ok;
            refused += n.refused;
            timedOut += n.timedOut;
            partial += n.partial;
          } catch (err) {
            wrong.push(`call ${a.i}: ${(err as Error).message.slice(0, 300)}`);
          }
        }
        const ms = answers.flatMap((a) => ('r' in a ? [a.r.ms] : []));
        // Why hosts timed out, in kinds (numbers, addresses and paths blanked).
        const kinds = new Set(
          answers.flatMap((a) =>
            'r' in a
              ? ((a.r.structured?.hosts ?? []) as { status: string; message?: string }[])
                  .filter((h) => h.status === 'timeout')
                  .map((h) => (h.message ?? '').replace(/\/\S*|[\d.:]+/g, '…').slice(0, 160))
              : [],
          ),
        );
        for (const k of [...kinds].slice(0, 3)) ctx.report.note(`${burst} burst: a host timed out: ${k}`);
        rows.push([
          burst,
          fmtMs(wall),
          `${correct}/${CALLS}`,
          `${fmtMs(median(ms))} / ${fmtMs(quantile(ms, 0.95))}`,
          `${okWalks} / ${refused} / ${timedOut} / ${partial}`,
          fmtMs(cpu),
          fmtBytes(gw.memory()?.hwm ?? Number.NaN),
          fmtBytes(Math.max(...agents.map((a) => memoryOf(a.pid)?.hwm ?? Number.NaN))),
        ]);
        for (const w of wrong.slice(0, 5)) ctx.report.note(`${burst} burst: wrong answer: ${w}`);
        // A call past its deadline goes on as a scan (hosts pending, a scan cursor). Left running, a
        // burst's scans fill the caller's scan cap and the next burst is refused for them: cancel them.
        const scans = answers.flatMap((a) => {
          const c = 'r' in a ? a.r.structured?.next_cursor : undefined;
          return typeof c === 'string' && c.startsWith('scan.') ? [c] : [];
        });
        await Promise.all(
          scans.map((cursor) => gw.call('scan_status', { cursor, cancel: true }, 60_000).catch(() => {})),
        );
        if (scans.length)
          ctx.report.note(
            `${burst} burst: ${scans.length} calls went on as scans (hosts pending at the call's deadline); cancelled before going on`,
          );
        ctx.report.target(
          `${burst} burst of ${CALLS} concurrent MCP calls: every call answers correctly, some host walks admitted`,
          `${correct}/${CALLS}, ${okWalks} host walks admitted`,
          correct === CALLS && okWalks > 0,
        );
      }
      const gwPeak = gw.memory()?.hwm ?? Number.NaN;
      const agentPeak = Math.max(...agents.map((a) => memoryOf(a.pid)?.hwm ?? Number.NaN));
      ctx.report.target(
        `peak RSS of the gateway and of each agent under ${fmtBytes(PEAK_BOUND)}`,
        `gateway ${fmtBytes(gwPeak)}, busiest agent ${fmtBytes(agentPeak)}`,
        gwPeak < PEAK_BOUND && agentPeak < PEAK_BOUND,
      );
    } finally {
      await gw.close();
    }
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
  }
}

async function walkBurst(ctx: BenchContext): Promise<void> {
  const root = (await ctx.tree('small')).root;
  const agent = await startAgent([root], { timeoutMs: 60_000, args: ['--max-concurrent-walks', String(MAX_WALKS)] });
  const { proto } = loadContract();
  const client = new proto.fleetls.v1.Agent(agent.address, grpc.credentials.createInsecure()) as unknown as AgentClient;
  try {
    const req = { path: root, maxDepth: 64, maxItemsPerDir: 100_000 };
    // The whole walk, alone: what every admitted walk must match.
    const alone = await agentWalk(client, req);
    if (alone.code !== grpc.status.OK) throw new Error(`a lone walk failed: ${alone.details}`);
    const whole = alone.entries;
    const rows: string[][] = [];
    ctx.report.table({
      title: `${WALKS} concurrent Walks against one agent with --max-concurrent-walks ${MAX_WALKS}`,
      intro:
        `One gRPC channel; each Walk is the whole small tree (${whole.toLocaleString('en-US')} entries, the count ` +
        'of a lone walk just before). Times are from the call to its end (refused: its RESOURCE_EXHAUSTED status). ' +
        'The first burst meets an agent that has run one walk (one walk worker thread started); the second, one ' +
        'whose workers the first burst started.',
      header: [
        'Burst',
        'Wall time',
        'Admitted (whole or truncation reported)',
        'Refused',
        'Other',
        'Admitted walk median / p95',
        'Refusal median / p95',
        'Agent peak RSS',
      ],
      rows,
    });
    for (const burst of ['first', 'second']) {
      const t0 = performance.now();
      const results = await Promise.all(Array.from({ length: WALKS }, () => agentWalk(client, req)));
      const wall = performance.now() - t0;
      const admitted = results.filter((r) => r.code === grpc.status.OK);
      const refused = results.filter((r) => r.code === grpc.status.RESOURCE_EXHAUSTED);
      const other = results.filter((r) => !admitted.includes(r) && !refused.includes(r));
      const lossy = admitted.filter((r) => silentLoss(r, whole) !== undefined);
      const refusedWithRows = refused.filter((r) => r.entries > 0);
      const peak = memoryOf(agent.pid)?.hwm ?? Number.NaN;
      const times = (rs: WalkOutcome[]) => rs.map((r) => r.ms);
      const mAdmitted = median(times(admitted));
      const mRefused = median(times(refused));
      rows.push([
        burst,
        fmtMs(wall),
        `${admitted.length - lossy.length}/${admitted.length}`,
        `${refused.length} (${refusedWithRows.length} with rows)`,
        String(other.length),
        `${fmtMs(mAdmitted)} / ${fmtMs(quantile(times(admitted), 0.95))}`,
        `${fmtMs(mRefused)} / ${fmtMs(quantile(times(refused), 0.95))}`,
        fmtBytes(peak),
      ]);
      for (const r of lossy.slice(0, 3))
        ctx.report.note(`${burst} burst: admitted walk lost rows: ${silentLoss(r, whole)}`);
      for (const r of other.slice(0, 3))
        ctx.report.note(`${burst} burst: walk ended ${grpc.status[r.code]}: ${r.details}`);
      ctx.report.target(
        `${burst} burst of ${WALKS} Walks at max ${MAX_WALKS}: every admitted walk correct, the rest refused before any row`,
        `${admitted.length - lossy.length} admitted correct, ${refused.length - refusedWithRows.length} refused with 0 rows, ${other.length + lossy.length + refusedWithRows.length} otherwise`,
        lossy.length === 0 && other.length === 0 && refusedWithRows.length === 0 && admitted.length > 0,
      );
      ctx.report.target(
        `${burst} burst: a refusal takes under ${REFUSAL_FRACTION * 100}% of an admitted walk's time (medians)`,
        `${fmtMs(mRefused)} vs ${fmtMs(mAdmitted)} (${((mRefused / mAdmitted) * 100).toFixed(1)}%)`,
        refused.length > 0 && mRefused < REFUSAL_FRACTION * mAdmitted,
      );
    }
    const peak = memoryOf(agent.pid)?.hwm ?? Number.NaN;
    ctx.report.target(`agent peak RSS under ${fmtBytes(PEAK_BOUND)}`, fmtBytes(peak), peak < PEAK_BOUND);
  } finally {
    client.close();
    await agent.stop();
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  await walkBurst(ctx);
  await mcpBurst(ctx);
}
