// NATS (issue 20 point 6): a simulated fleet of 5,000 hosts (bench/src/nats-sim.ts: a few
// processes registering host identities that answer Walk from memory) plus 10 real agents
// dialling out, all on one local nats-server, through one and then two gateways.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls } from '../mcp.js';
import { type AgentProc, cpuMs, REPO_ROOT, startAgent, track, untrack, withTimeout } from '../proc.js';
import { ratio } from '../report.js';
import { fmtBytes, fmtMs, quantile } from '../stats.js';

export const name = 'nats';
export const limitMs = (_args: BenchArgs): number => 15 * 60_000;

const SIM_HOSTS = 5000;
const SIM_PROCS = 4;
const REAL_AGENTS = 10;
const HEARTBEAT_MS = 10_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A child that prints `ready` (a regexp) on stderr or stdout before `timeoutMs`. */
function spawnReady(
  cmd: string,
  args: string[],
  ready: RegExp,
  timeoutMs: number,
  what: string,
): Promise<ChildProcess> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child.pid);
  let out = '';
  return withTimeout(
    new Promise<ChildProcess>((resolve, reject) => {
      const on = (d: Buffer) => {
        out = (out + d.toString()).slice(-20_000);
        if (ready.test(out)) {
          child.stdout?.off('data', on);
          child.stderr?.off('data', on);
          child.stdout?.resume();
          child.stderr?.resume();
          resolve(child);
        }
      };
      child.stdout?.on('data', on);
      child.stderr?.on('data', on);
      child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${out.slice(-500)}`)));
    }),
    timeoutMs,
    what,
  ).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
}

function stop(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  untrack(child?.pid);
}

async function times(gw: McpServerProc, tool: string, args: Record<string, unknown>, runs: number) {
  const ms: number[] = [];
  let last: Awaited<ReturnType<McpServerProc['call']>> | undefined;
  await gw.call(tool, args, 300_000); // warm-up
  for (let i = 0; i < runs; i++) {
    last = await gw.call(tool, args, 300_000);
    ms.push(last.ms);
  }
  return { ms, last: last!, p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) };
}

/** Hosts that answered ok: counted in the host_statuses cut past a few hundred hosts, else their rows. */
const okHosts = (s: Record<string, unknown> | undefined) => {
  const cut = ((s?.truncations ?? []) as { reason: string; by_status?: { ok?: number } }[]).find(
    (t) => t.reason === 'host_statuses',
  );
  if (cut) return cut.by_status?.ok ?? 0;
  return ((s?.hosts ?? []) as { status: string }[]).filter((h) => h.status === 'ok').length;
};

export async function run(ctx: BenchContext): Promise<void> {
  const small = path.join((await ctx.tree('small')).root, 'deep');
  const dir = ctx.home('nats');
  const port = await freePort();
  const conf = path.join(dir, 'nats.conf');
  fs.writeFileSync(conf, `listen: 127.0.0.1:${port}\njetstream { store_dir: "${path.join(dir, 'js')}" }\n`);
  const url = `nats://127.0.0.1:${port}`;
  const children: ChildProcess[] = [];
  const agents: AgentProc[] = [];
  const gws: McpServerProc[] = [];
  const rows: string[][] = [];
  ctx.report.table({
    title: `${SIM_HOSTS.toLocaleString('en-US')} simulated hosts + ${REAL_AGENTS} real agents on one nats-server`,
    intro:
      `Simulated hosts: ${SIM_PROCS} processes (bench/src/nats-sim.ts) registering ${SIM_HOSTS / SIM_PROCS} identities each ` +
      `(heartbeat ${HEARTBEAT_MS / 1000} s) and answering Walk from memory (80 files); real agents: packages/agent ` +
      'with --connect on the 10k tree. p50/p99 are nearest-rank over the runs (n), after one warm-up; with few runs p99 is the slowest.',
    header: [
      'Call',
      'Gateways',
      'Hosts ok',
      'p50',
      'p99',
      'Gateway CPU per host',
      'NATS server CPU per call',
      'Gateway RSS',
    ],
    rows,
  });
  try {
    const nats = await spawnReady('nats-server', ['-c', conf], /Server is ready/, 30_000, 'nats-server');
    children.push(nats);
    // The registry bucket first, so the simulated hosts' first registrations are kept.
    const { openRegistryBucket } = await import(path.join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
    const { connect } = await import('@nats-io/transport-node');
    const nc = await connect({ servers: [url] });
    await openRegistryBucket(nc);
    await nc.close();
    const sim = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'nats-sim.js');
    const per = SIM_HOSTS / SIM_PROCS;
    for (let i = 0; i < SIM_PROCS; i++) {
      children.push(
        await spawnReady(
          process.execPath,
          [sim, url, String(i * per), String(per), String(HEARTBEAT_MS)],
          /"registered"/,
          60_000,
          'nats-sim',
        ),
      );
    }
    for (let i = 0; i < REAL_AGENTS; i += 5) {
      const batch = Array.from({ length: Math.min(5, REAL_AGENTS - i) }, (_, j) =>
        startAgent([small], {
          timeoutMs: 60_000,
          args: ['--connect', url, '--name', `real-${String(i + j).padStart(2, '0')}`],
        }),
      );
      agents.push(...(await Promise.all(batch)));
    }
    const total = SIM_HOSTS + REAL_AGENTS;
    const inv = path.join(dir, 'fleetls.yaml');
    fs.writeFileSync(
      inv,
      // The answer budget at its defaults (64 KiB, 20,000 tokens): the ok hosts are counted, not listed.
      `hosts_from: nats\nnats: { servers: ["${url}"] }\ndefaults:\n  concurrency: 1024\n  deadline_ms: 120000\n`,
    );
    const startGw = async (n: number) => {
      const gw = await startFleetls({
        inventory: inv,
        cwd: ctx.home(`nats-gw${n}`),
        home: ctx.home(`nats-gw${n}`),
        timeoutMs: 180_000,
      });
      gws.push(gw);
      // Registered hosts: the registry holds every one (read at start, then heard).
      const t0 = Date.now();
      for (;;) {
        const r = await gw.call('list_hosts', { host: 'all' }, 120_000);
        // The answer is cut at its byte budget: its warning line says how many hosts there are.
        const cut = /(\d+) of (\d+) hosts shown/.exec(r.text);
        const seen = cut ? Number(cut[2]) : ((r.structured?.hosts ?? []) as unknown[]).length;
        if (seen >= total) break;
        if (Date.now() - t0 > 120_000) throw new Error(`gateway ${n} sees ${seen} of ${total} hosts`);
        await new Promise((res) => setTimeout(res, 1000));
      }
      return gw;
    };
    const g1 = await startGw(1);
    const measure = async (label: string, tool: string, args: Record<string, unknown>, hosts: number, runs: number) => {
      const cpu0 = cpuMs(g1.pid);
      const n0 = cpuMs(nats.pid);
      const t = await times(g1, tool, args, runs);
      const cpu = (cpuMs(g1.pid) - cpu0) / (runs + 1);
      const natsCpu = (cpuMs(nats.pid) - n0) / (runs + 1);
      const mem = g1.memory();
      rows.push([
        label,
        '1',
        t.last.isError
          ? `error: ${t.last.text.slice(0, 80)}`
          : tool === 'list_hosts'
            ? `${((t.last.structured?.hosts ?? []) as unknown[]).length} rows shown of ${hosts}`
            : `${okHosts(t.last.structured)}/${hosts}`,
        `${fmtMs(t.p50)} (n=${runs})`,
        fmtMs(t.p99),
        `${(cpu / hosts).toFixed(3)} ms (${fmtMs(cpu)} per call)`,
        fmtMs(natsCpu),
        fmtBytes(mem?.rss ?? Number.NaN),
      ]);
      return { ...t, cpuPerHost: cpu / hosts };
    };
    await measure(
      'list_hosts all (answer cut at 48,000 bytes: it says how many of all)',
      'list_hosts',
      { host: 'all' },
      total,
      5,
    );
    const topArgs = {
      host: 'all',
      path: small,
      order_by: 'size',
      sort: 'descending',
      top_n: 10,
      max_depth: 10,
      type: 'file',
    };
    const top = await measure(`list_files top_n=10 over all ${total}`, 'list_files', topArgs, total, 3);
    await measure('diff_directory over 1,000 (sim-00*)', 'diff_directory', { host: 'sim-00*', path: '/sim' }, 1000, 3);
    ctx.report.target(
      `NATS: merged top 10 over ${SIM_HOSTS.toLocaleString('en-US')} hosts ≤ 5 s with one gateway`,
      `p50 ${fmtMs(top.p50)}, p99 ${fmtMs(top.p99)}`,
      Number.isFinite(top.p50) && !top.last.isError ? top.p99 <= 5000 : undefined,
    );
    ctx.report.target(
      'NATS: gateway CPU ≤ 0.1 ms per host',
      `${top.cpuPerHost.toFixed(3)} ms per host (list_files top 10 over ${total})`,
      Number.isFinite(top.cpuPerHost) ? top.cpuPerHost <= 0.1 : undefined,
    );

    // Throughput: the same calls, two at a time per gateway, on one gateway and then on two.
    // Every part's CPU is read apart (the simulators, nats-server and the agents share the
    // gateways' 2 cores), so the ceiling the machine leaves two gateways can be stated.
    const sims = children.slice(1);
    const sumCpu = (pids: (number | undefined)[]): number => pids.reduce<number>((n, p) => n + cpuMs(p), 0);
    const burst = async (gateways: McpServerProc[], perGateway: number) => {
      const before = {
        gw: sumCpu(gateways.map((g) => g.pid)),
        sim: sumCpu(sims.map((c) => c.pid)),
        nats: cpuMs(nats.pid),
        agents: sumCpu(agents.map((a) => a.pid)),
      };
      const t0 = performance.now();
      await Promise.all(
        gateways.flatMap((g) =>
          Array.from({ length: 2 }, async () => {
            for (let i = 0; i < perGateway / 2; i++) await g.call('list_files', topArgs, 300_000);
          }),
        ),
      );
      const calls = gateways.length * perGateway;
      const per = (now: number, was: number) => (now - was) / calls;
      return {
        cps: calls / ((performance.now() - t0) / 1000),
        calls,
        gw: per(sumCpu(gateways.map((g) => g.pid)), before.gw),
        sim: per(sumCpu(sims.map((c) => c.pid)), before.sim),
        nats: per(cpuMs(nats.pid), before.nats),
        agents: per(sumCpu(agents.map((a) => a.pid)), before.agents),
      };
    };
    const one = await burst([g1], 6);
    const g2 = await startGw(2);
    const two = await burst([g1, g2], 6);
    // With g the gateway's CPU per call and o the rest's (simulators, nats-server, agents): one
    // gateway does at most 1/g calls/s (one thread), two at most 2/(g + o) on 2 cores.
    const g = one.gw;
    const o = one.sim + one.nats + one.agents;
    const ceiling = Math.min(2, 2 / (g + o) / Math.min(1 / g, 2 / (g + o)));
    const row = (n: string, b: typeof one) => [
      n,
      String(b.calls),
      b.cps.toFixed(2),
      fmtMs(b.gw),
      fmtMs(b.sim),
      fmtMs(b.nats),
      fmtMs(b.agents),
    ];
    ctx.report.table({
      title: 'Calls per second: list_files top 10 over all hosts, 2 calls in flight per gateway',
      intro:
        'CPU per call of each part (user + system from /proc), all on the same 2 cores. With g the gateway CPU per ' +
        'call and o the rest, one gateway is bound by one thread (1/g calls/s) and two by the cores (2/(g+o)): ' +
        `the most two gateways can give here is ${ratio(ceiling)} of one.`,
      header: [
        'Gateways',
        'Calls',
        'Calls per second',
        'Gateway CPU',
        'Simulators CPU',
        'nats-server CPU',
        'Agents CPU',
      ],
      rows: [row('1', one), row('2', two)],
    });
    ctx.report.target(
      'NATS: two gateways sustain ≥ 1.8× the calls per second of one',
      `${ratio(two.cps / one.cps)} (${one.cps.toFixed(2)} → ${two.cps.toFixed(2)} calls/s; ceiling on these 2 cores ${ratio(ceiling)})`,
      Number.isFinite(two.cps / one.cps) ? two.cps / one.cps >= 1.8 : undefined,
    );
    ctx.report.note(
      'Every process (nats-server, the simulators, 10 agents, the gateways) shares the same 2 cores: a second ' +
        'gateway adds no CPU, so the two-gateway ratio measures contention, not what a second machine would add.',
    );
    ctx.report.note('The direct mode at 200 hosts is the fanout section (same query, gRPC to each agent).');
    ctx.report.note(
      'The gateways run at the default answer budget (64 KiB, 20,000 tokens): past a few hundred hosts an answer ' +
        'lists the failed hosts and counts the ok ones (truncations: host_statuses), so "Hosts ok" is that count.',
    );
  } finally {
    await Promise.all(gws.map((g) => g.close().catch(() => undefined)));
    await Promise.all(agents.map((a) => a.stop()));
    for (const c of children.reverse()) stop(c);
  }
}
