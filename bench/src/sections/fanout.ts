// Fan-out: a merged top_n over N agents on loopback, real and stub; gateway memory.
import * as os from 'node:os';
import * as path from 'node:path';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls } from '../helpers/mcp.js';
import { type AgentHostProc, type AgentProc, cpuMs, memoryOf, startAgent, startAgentHost } from '../helpers/proc.js';
import { fmtBytes, fmtMs, median } from '../helpers/stats.js';
import { timeTool, writeInventory } from '../helpers/tools.js';
import { ratio } from '../report.js';
import { benchDir } from '../trees.js';

export const name = 'fanout';
export const limitMs = (_args: BenchArgs): number => 10 * 60_000;

/** The section's query, beside `path`; ab-structure.ts asks both builds the same. */
export const FANOUT_QUERY = { order_by: 'size', sort: 'descending', top_n: 10, max_depth: 10, type: 'file' };

/** The gateway's upper bound on call_deadline_ms (under the MCP SDK client's 60 s request timeout). */
const CALL_DEADLINE_MS = 55_000;

/**
 * `gw` whose calls that outlive their deadline count as failed: the gateway answered a scan's
 * first page (pending hosts, a next_cursor) instead of the merged answer the row measures. The
 * scan is cancelled at once: left alone it walks on to its own deadline, and the next calls'
 * scans pile on it (4 scans of 200 hosts drove the load of 2 cores to ~150).
 */
function wholeAnswers(gw: McpServerProc, n: number): McpServerProc {
  return {
    ...gw,
    async call(tool, args, timeoutMs) {
      const o = await gw.call(tool, args, timeoutMs);
      const cursor = o.structured?.next_cursor;
      if (o.isError || typeof cursor !== 'string') return o;
      await gw.call('scan_status', { cursor, cancel: true }, timeoutMs);
      const ok = ((o.structured?.hosts ?? []) as { status: string }[]).filter((h) => h.status === 'ok').length;
      return {
        ...o,
        isError: true,
        text: `not answered whole within the ${CALL_DEADLINE_MS / 1000} s call deadline (${ok}/${n} hosts ok, the rest pending; the scan was cancelled)`,
      };
    },
  };
}

/**
 * A stub row's gateway is counted once more after this many further calls: a fresh gateway's
 * early calls (the table's CPU column counts the 7th to the 16th) still cost ~1.5× what its
 * calls cost from the 20th on, while V8 compiles the hot path (0.39 vs 0.25–0.30 ms per host
 * over 200 stubs, 2026-12-07), and the per-host target is about a gateway that has been serving.
 */
const WARM_UP_CALLS = 20;
const WARM_CPU_CALLS = 20;

async function startAgents(n: number, pool: AgentProc[]): Promise<void> {
  while (pool.length < n) {
    const batch = Math.min(8, n - pool.length);
    const started = await Promise.all(
      Array.from({ length: batch }, () => startAgent([benchDir()], { timeoutMs: 60_000 })),
    );
    pool.push(...started);
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const small = path.join((await ctx.tree('small')).root, 'deep');
  const bigDir = (await ctx.tree('medium')).flatDir;
  const q = { path: small, ...FANOUT_QUERY };
  const pool: AgentProc[] = [];
  const hostsProcs: AgentHostProc[] = [];
  const rows: string[][] = [];
  const fanTable = ctx.report.table({
    title: 'Fan-out: merged top_n over N agents on loopback',
    header: [
      'Agents',
      'How they run',
      'Median latency',
      'Gateway CPU per call (per host)',
      'Warm gateway CPU per call (per host)',
      'Hosts ok',
      'Gateway peak RSS',
      'Answer text',
    ],
    rows,
  });
  const lat: Record<string, Record<number, number>> = { real: {}, stub: {} };
  const hwm: Record<number, number> = {};
  const cpuPerHost: Record<number, { fresh: number; warm: number }> = {};

  /** One fresh gateway over `addresses`; a row in the table. */
  const measure = async (kind: 'real' | 'stub', how: string, addresses: string[], p: string, label = '') => {
    const n = addresses.length;
    const inv = path.join(ctx.scratch, `fanout-${kind}-${n}.yaml`);
    const hosts: Record<string, string> = {};
    addresses.forEach((a, i) => {
      hosts[`a${i + 1}`] = `agent: "${a}"`;
    });
    // The longest call the gateway allows: the row measures a whole merged answer, not a scan's first page.
    writeInventory(
      inv,
      hosts,
      `defaults:\n  concurrency: ${Math.max(32, n)}\n  deadline_ms: 120000\n  call_deadline_ms: ${CALL_DEADLINE_MS}\n`,
    );
    const gateway = await startFleetls({
      inventory: inv,
      cwd: ctx.home(`gw-${kind}-${n}`),
      home: ctx.home(`gw-${kind}-${n}`),
    });
    const gw = wholeAnswers(gateway, n);
    try {
      const args = { host: 'all', ...q, path: p };
      const r = await timeTool(
        ctx,
        gw,
        'list_files',
        args,
        `host=all (${n} ${kind} agents)`,
        CALL_DEADLINE_MS + 10_000,
      );
      // Gateway CPU (user + system, from /proc) over calls on warm connections; fewer calls
      // where one is seconds long, none where one did not finish.
      const cpuRuns = r.error ? 0 : r.ms > 3000 ? 2 : 10;
      const cpu0 = cpuMs(gw.pid);
      for (let i = 0; i < cpuRuns; i++) await gw.call('list_files', args);
      const cpu = cpuRuns > 0 ? (cpuMs(gw.pid) - cpu0) / cpuRuns : Number.NaN;
      const sample = r.error ? undefined : await gw.call('list_files', args);
      const okHosts = ((sample?.structured?.hosts ?? []) as { status: string }[]).filter(
        (h) => h.status === 'ok',
      ).length;
      // Before the warm calls: the peak of the row's calls as before.
      const mem = gw.memory();
      // Stub rows are quick: the same gateway counted again once warm (WARM_UP_CALLS).
      let warm = Number.NaN;
      if (kind === 'stub' && sample && r.ms < 1000) {
        for (let i = 0; i < WARM_UP_CALLS; i++) await gw.call('list_files', args);
        const w0 = cpuMs(gw.pid);
        for (let i = 0; i < WARM_CPU_CALLS; i++) await gw.call('list_files', args);
        warm = (cpuMs(gw.pid) - w0) / WARM_CPU_CALLS;
      }
      rows.push([
        `${n}${label}`,
        how,
        r.error ? `failed: ${r.error}` : `${fmtMs(r.ms)} (n=${r.runs})`,
        Number.isFinite(cpu) ? `${fmtMs(cpu)} (${(cpu / n).toFixed(2)} ms)` : '–',
        Number.isFinite(warm) ? `${fmtMs(warm)} (${(warm / n).toFixed(2)} ms)` : '–',
        `${okHosts}/${n}`,
        fmtBytes(mem?.hwm ?? Number.NaN),
        fmtBytes(r.textBytes),
      ]);
      return { ms: r.error ? Number.NaN : r.ms, hwm: mem?.hwm ?? Number.NaN, allOk: okHosts === n, cpu, warm };
    } finally {
      await gateway.close();
    }
  };

  /** Memory independence: the same agents and query over tiny vs 50,000-entry directories. */
  let memDone = false;
  const memoryCheck = async () => {
    const big = bigDir;
    const nMem = Math.min(10, pool.length);
    if (memDone) return;
    memDone = true;
    if (big && nMem > 0) {
      const addresses = pool.slice(0, nMem).map((a) => a.address);
      const memTable = ctx.report.table({
        title: `Gateway memory of a merged top_n vs the hosts' directory sizes (${nMem} agents)`,
        intro: 'The rows of the fan-out table with this label: same agents, same query, a fresh gateway each.',
        header: ['Directory on every host', 'Median latency', 'Gateway peak RSS'],
        rows: [],
      });
      const a = await measure('real', `${nMem} agent processes`, addresses, small, ' (~160 entries/host)');
      memTable.rows.push(['~160 entries', fmtMs(a.ms), fmtBytes(a.hwm)]);
      const b = await measure('real', `${nMem} agent processes`, addresses, big, ' (50,000 entries/host)');
      memTable.rows.push(['50,000 entries (the flat directory)', fmtMs(b.ms), fmtBytes(b.hwm)]);
      ctx.report.target(
        "Gateway memory of a merged top_n independent of the hosts' directory sizes",
        `${fmtBytes(a.hwm)} (~160 entries/host) vs ${fmtBytes(b.hwm)} (50,000 entries/host): ${ratio(b.hwm / a.hwm)} (met if within 1.2× or 16 MiB)${a.allOk && b.allOk ? '' : '; some hosts failed, so no verdict'}`,
        a.allOk && b.allOk && Number.isFinite(a.hwm) && Number.isFinite(b.hwm)
          ? b.hwm <= a.hwm * 1.2 || b.hwm - a.hwm <= 16 * 1024 ** 2
          : undefined,
      );
    }
  };

  try {
    // Real agents: one process each while that fits in memory, else 25 servers per process.
    await startAgents(1, pool);
    const perAgent = (memoryOf(pool[0].pid)?.rss ?? 80 * 1024 ** 2) * 1.5;
    const fits = (n: number) => perAgent * n <= os.freemem() * 0.5;
    for (const n of ctx.args.fanout) {
      let addresses: string[];
      let how: string;
      if (fits(n)) {
        const t0 = performance.now();
        await startAgents(n, pool);
        ctx.log(
          `fan-out: ${n} agent processes up (${((performance.now() - t0) / 1000).toFixed(1)} s for the new ones)`,
        );
        addresses = pool.slice(0, n).map((a) => a.address);
        how = `${n} agent process${n > 1 ? 'es' : ''}`;
      } else {
        await Promise.all(pool.splice(1).map((a) => a.stop()));
        // Few servers per process: 25 walks at once in one process (a worker thread each) was
        // measured to be far slower than the same number of separate agent processes.
        const per = 10;
        const procs = Math.ceil(n / per);
        const started: AgentHostProc[] = [];
        for (let i = 0; i < procs; i += 4) {
          const batch = Array.from({ length: Math.min(4, procs - i) }, (_, j) =>
            startAgentHost('real', Math.min(per, n - (i + j) * per), benchDir(), 120_000),
          );
          started.push(...(await Promise.all(batch)));
        }
        hostsProcs.push(...started);
        addresses = started.flatMap((h) => h.addresses);
        how = `${procs} processes × ≤${per} agent servers (createAgentServer)`;
        ctx.report.note(
          `fan-out: ${n} agent processes would need ~${fmtBytes(perAgent * n)} (1.5 × ${fmtBytes(perAgent / 1.5)} RSS each) of ${fmtBytes(os.freemem())} free, so ${n} real agents ran as ${how}.`,
        );
      }
      const m = await measure('real', how, addresses, small);
      lat.real[n] = m.ms;
      // A row whose hosts did not all answer says nothing of the gateway's peak with n hosts.
      if (m.allOk) hwm[n] = m.hwm;
      if (pool.length >= 10) await memoryCheck();
      for (const h of hostsProcs.splice(0)) await h.stop();
    }
    await memoryCheck();
    // Stub agents: canned answers, no file system: the gateway's own fan-out and merge.
    for (const n of ctx.args.fanout) {
      const per = 50;
      const procs = Math.ceil(n / per);
      const started = await Promise.all(
        Array.from({ length: procs }, (_, i) => startAgentHost('stub', Math.min(per, n - i * per), benchDir())),
      );
      hostsProcs.push(...started);
      const m = await measure(
        'stub',
        `stub Agent servers (canned 160-row answer, no fs), ${procs} process${procs > 1 ? 'es' : ''}`,
        started.flatMap((h) => h.addresses),
        small,
      );
      lat.stub[n] = m.ms;
      cpuPerHost[n] = { fresh: m.cpu / n, warm: m.warm / n };
      for (const h of hostsProcs.splice(0)) await h.stop();
    }
    const agentRss = pool.map((a) => memoryOf(a.pid)?.rss ?? Number.NaN).filter(Number.isFinite);
    fanTable.intro = `list_files host=all order_by=size sort=descending top_n=10 max_depth=10 on ${path.relative(benchDir(), small)} (~160 entries per host), through \`fleetls serve\` with an inventory of N plaintext agents on 127.0.0.1. A real agent process has a median RSS of ${fmtBytes(median(agentRss))}. All agents share this machine's ${os.cpus().length} cores, so the real agents' own work (a walk each, in a worker thread of the agent process) grows with N here, while on a fleet it runs on N machines; the stub rows take the agents' work away and leave the gateway's fan-out, gRPC and merge. Gateway CPU per call = user + system time of the gateway process (/proc) over 10 calls after the timed ones (2 where a call takes over 3 s); on the stub rows the same gateway is counted again over ${WARM_CPU_CALLS} calls after ${WARM_UP_CALLS} more (warm: a fresh gateway's early calls still cost about 1.5× as much). Gateway peak = VmHWM of the gateway process (a fresh gateway per row), before the warm calls. Gateway concurrency = max(32, N).`;
    const maxN = Math.max(...ctx.args.fanout);
    const one = lat.stub[1];
    const many = lat.stub[maxN];
    if (one && many)
      ctx.report.target(
        `Fan-out to ${maxN} stub agents within 5× one (the gateway's part alone, agents on the same 2 cores)`,
        `${fmtMs(many)} vs ${fmtMs(one)} = ${ratio(many / one)}`,
        many / one <= 5,
      );
    const perHost = cpuPerHost[maxN];
    if (perHost !== undefined)
      ctx.report.target(
        `Gateway CPU per host ≤ 0.25 ms (${maxN} stub agents: decode, convert, merge)`,
        `${perHost.warm.toFixed(2)} ms per host warm (${fmtMs(perHost.warm * maxN)} per call, after ${WARM_UP_CALLS} more calls); ${perHost.fresh.toFixed(2)} ms in calls ${ctx.args.runs + 2}–${ctx.args.runs + 11} of a fresh gateway`,
        Number.isFinite(perHost.warm) ? perHost.warm <= 0.25 : undefined,
      );
    if (hwm[maxN] !== undefined && hwm[10] !== undefined)
      ctx.report.target(
        `Gateway peak memory with ${maxN} real agents within 1.5× of 10 agents'`,
        `${fmtBytes(hwm[maxN])} vs ${fmtBytes(hwm[10])} = ${ratio(hwm[maxN] / hwm[10])}`,
        hwm[maxN] <= hwm[10] * 1.5,
      );
    if (lat.real[1] && lat.real[maxN])
      ctx.report.note(
        `Real agents, all on this machine: ${maxN} in ${fmtMs(lat.real[maxN])} vs 1 in ${fmtMs(lat.real[1])} (${ratio(lat.real[maxN] / lat.real[1])}); their walks share the gateway's 2 cores, so this is not a fleet's latency.`,
      );
  } finally {
    await Promise.all(pool.map((a) => a.stop()));
    await Promise.all(hostsProcs.map((h) => h.stop()));
  }
}
