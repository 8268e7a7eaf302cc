// NATS (issues 20 point 6 and 38 ask 3): a simulated fleet of 100,000 host identities
// (bench/src/hosts/nats-sim.ts: a few processes, each one NATS connection serving many hosts'
// subjects and answering Walk from memory) plus 2 real agents dialling out, on a 3-node
// nats-server cluster, through one and then two gateways. Every call's hosts are counted:
// each simulator says how many of its hosts were asked once, never, or more than once.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@fleetls/testkit';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls } from '../helpers/mcp.js';
import { type AgentProc, cpuMs, REPO_ROOT, startAgent, track, untrack, withTimeout } from '../helpers/proc.js';
import { fmtBytes, fmtMs, quantile } from '../helpers/stats.js';

export const name = 'nats';
export const limitMs = (_args: BenchArgs): number => 20 * 60_000;

const SIM_PROCS = 4;
const REAL_AGENTS = 2;
/** The longest heartbeat a gateway accepts: 100,000 hosts are then 1,667 registrations a second. */
const HEARTBEAT_MS = 60_000;
const NODES = 3;

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

/** A 3-node cluster on loopback, JetStream on every node. */
async function startCluster(dir: string): Promise<{ urls: string[]; nodes: ChildProcess[] }> {
  const ports = await Promise.all(Array.from({ length: NODES }, () => freePort()));
  const routes = await Promise.all(Array.from({ length: NODES }, () => freePort()));
  const confs = ports.map((port, i) => {
    const conf = path.join(dir, `n${i + 1}.conf`);
    fs.writeFileSync(
      conf,
      [
        `server_name: n${i + 1}`,
        `listen: 127.0.0.1:${port}`,
        // 100,000 hosts' subscriptions and a call's replies come in bursts: room for them.
        'max_pending: 256MB',
        `jetstream { store_dir: "${path.join(dir, `js${i + 1}`)}", max_memory_store: 512MB, max_file_store: 4GB }`,
        `cluster { name: fleetls-bench, listen: 127.0.0.1:${routes[i]}, routes: [${routes
          .filter((_, j) => j !== i)
          .map((p) => `nats-route://127.0.0.1:${p}`)
          .join(', ')}] }`,
      ].join('\n'),
    );
    return conf;
  });
  const nodes = await Promise.all(
    confs.map((c, i) => spawnReady('nats-server', ['-c', c], /Server is ready/, 30_000, `nats-server n${i + 1}`)),
  );
  return { urls: ports.map((p) => `nats://127.0.0.1:${p}`), nodes };
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
  const SIM_HOSTS = ctx.args.natsHosts;
  const small = path.join((await ctx.tree('small')).root, 'deep');
  const dir = ctx.home('nats');
  const children: ChildProcess[] = [];
  const sims: ChildProcess[] = [];
  const agents: AgentProc[] = [];
  const gws: McpServerProc[] = [];
  const rows: string[][] = [];
  const n = (x: number) => x.toLocaleString('en-US');
  ctx.report.table({
    title: `${n(SIM_HOSTS)} simulated hosts + ${REAL_AGENTS} real agents on a ${NODES}-node nats-server cluster`,
    intro:
      `Simulated hosts: ${SIM_PROCS} processes (bench/src/hosts/nats-sim.ts), each one NATS connection to one node serving ` +
      `${n(SIM_HOSTS / SIM_PROCS)} host identities (their own subjects, heartbeat ${HEARTBEAT_MS / 1000} s) and answering ` +
      'Walk from memory (80 files); real agents: packages/agent with --connect on the 10k tree. "Asked once" is what ' +
      'the simulators counted for the call: hosts asked exactly once / never / more than once (the real agents are ' +
      'counted in "Hosts ok"). p50/p99 are nearest-rank over the runs (n), after one warm-up; with few runs p99 is the slowest.',
    header: [
      'Call',
      'Hosts ok',
      'Asked once / never / twice+',
      'p50',
      'p99',
      'Gateway CPU per host',
      'nats-server CPU per call (3 nodes)',
      'Gateway RSS (peak)',
    ],
    rows,
  });
  const perHost: Record<string, number> = {};
  try {
    const cluster = await startCluster(dir);
    children.push(...cluster.nodes);
    const nodes = cluster.nodes;
    const urls = cluster.urls;
    // The registry bucket first, with the cluster's 3 replicas, so the first registrations are kept.
    const { openRegistryBucket } = await import(path.join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
    const { connect } = await import('@nats-io/transport-node');
    const nc = await connect({ servers: urls });
    for (let i = 0; ; i++) {
      try {
        await openRegistryBucket(nc, undefined, NODES);
        break;
      } catch (err) {
        // JetStream's meta leader is elected a moment after the nodes are ready.
        if (i >= 60) throw err;
        await new Promise((res) => setTimeout(res, 500));
      }
    }
    const asked = async () => {
      const sum = { never: 0, once: 0, more: 0, byAsker: {} as Record<string, number> };
      for (let i = 0; i < SIM_PROCS; i++) {
        const m = await nc.request(`fleetls-bench.sim.${i * (SIM_HOSTS / SIM_PROCS)}.asked`, '', { timeout: 30_000 });
        const c = JSON.parse(m.string()) as typeof sum;
        sum.never += c.never;
        sum.once += c.once;
        sum.more += c.more;
        for (const [k, v] of Object.entries(c.byAsker ?? {})) sum.byAsker[k] = (sum.byAsker[k] ?? 0) + v;
      }
      return sum;
    };
    const sim = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'hosts', 'nats-sim.js');
    const per = SIM_HOSTS / SIM_PROCS;
    for (let i = 0; i < SIM_PROCS; i++) {
      const c = await spawnReady(
        process.execPath,
        [sim, urls[i % NODES], String(i * per), String(per), String(HEARTBEAT_MS)],
        /"registered"/,
        180_000,
        'nats-sim',
      );
      children.push(c);
      sims.push(c);
    }
    for (let i = 0; i < REAL_AGENTS; i++) {
      agents.push(
        await startAgent([small], {
          timeoutMs: 60_000,
          args: ['--connect', urls.join(','), '--name', `real-${String(i).padStart(2, '0')}`],
        }),
      );
    }
    const total = SIM_HOSTS + REAL_AGENTS;
    const inv = path.join(dir, 'fleetls.yaml');
    fs.writeFileSync(
      inv,
      `hosts_from: nats\nnats: { servers: [${urls.map((u) => `"${u}"`).join(', ')}] }\n` +
        // Answers and scans at their defaults (48,000 bytes; 200,000 rows kept).
        'defaults:\n  concurrency: 1024\n  deadline_ms: 120000\n  call_deadline_ms: 55000\n',
    );
    const startGw = async (g: number) => {
      const gw = await startFleetls({
        inventory: inv,
        cwd: ctx.home(`nats-gw${g}`),
        home: ctx.home(`nats-gw${g}`),
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
        if (Date.now() - t0 > 180_000) throw new Error(`gateway ${g} sees ${seen} of ${total} hosts`);
        await new Promise((res) => setTimeout(res, 1000));
      }
      return gw;
    };
    const g1 = await startGw(1);
    const natsCpu = () => nodes.reduce((s, c) => s + cpuMs(c.pid), 0);
    const measure = async (
      label: string,
      tool: string,
      args: Record<string, unknown>,
      hosts: number,
      simHosts: number,
      runs: number,
    ) => {
      const ms: number[] = [];
      let last: Awaited<ReturnType<McpServerProc['call']>> | undefined;
      const counts: string[] = [];
      let exact = true;
      // Each call's own peak: the high-water mark starts again at the RSS of now (Linux ≥ 4.0).
      try {
        fs.writeFileSync(`/proc/${g1.pid}/clear_refs`, '5');
      } catch {
        // an older kernel: the peak is the gateway's since its start
      }
      const cpu0 = cpuMs(g1.pid);
      const n0 = natsCpu();
      let pages = 0;
      let okAll = 0;
      for (let i = 0; i <= runs; i++) {
        // An answer paged by hosts (diff_directory's groups come a batch of hosts at a time) is
        // followed to its end: the call's time is its pages', its ok hosts their sum.
        last = await g1.call(tool, args, 300_000);
        let took = last.ms;
        okAll = okHosts(last.structured);
        pages = 1;
        for (let cursor = last.structured?.next_cursor; typeof cursor === 'string' && pages < 1000; pages++) {
          last = await g1.call(tool, { ...args, cursor }, 300_000);
          took += last.ms;
          okAll += okHosts(last.structured);
          cursor = last.structured?.next_cursor;
        }
        if (i > 0) ms.push(took); // the first is the warm-up
        const a = await asked();
        if (tool !== 'list_hosts') {
          counts.push(`${n(a.once)}/${n(a.never)}/${n(a.more)}`);
          exact &&= a.once === simHosts && a.more === 0;
        }
      }
      if (g1.restarts() > 0) throw new Error(`the gateway died during ${label}: ${g1.stderr().slice(-2000)}`);
      const cpu = (cpuMs(g1.pid) - cpu0) / (runs + 1);
      const nCpu = (natsCpu() - n0) / (runs + 1);
      const mem = g1.memory();
      const ok = tool === 'list_hosts' ? hosts : okAll;
      if (ok !== hosts) ctx.log(`${label}: ${ok} of ${hosts} ok: ${last?.text.slice(0, 1500)}`);
      rows.push([
        label,
        last?.isError
          ? `error: ${last.text.slice(0, 80)}`
          : tool === 'list_hosts'
            ? `${((last?.structured?.hosts ?? []) as unknown[]).length} rows shown of ${(/(\d+) of (\d+) hosts shown/.exec(last?.text ?? '') ?? [])[2] ?? '?'}`
            : `${n(ok)}/${n(hosts)}${pages > 1 ? ` (${pages} pages)` : ''}`,
        tool === 'list_hosts' ? 'not asked (the registry answers)' : [...new Set(counts)].join(', '),
        `${fmtMs(quantile(ms, 0.5))} (n=${runs})`,
        fmtMs(quantile(ms, 0.99)),
        `${(cpu / hosts).toFixed(4)} ms (${fmtMs(cpu)} per call)`,
        fmtMs(nCpu),
        `${fmtBytes(mem?.rss ?? Number.NaN)} (${fmtBytes(mem?.hwm ?? Number.NaN)})`,
      ]);
      perHost[label] = cpu / hosts;
      return {
        p50: quantile(ms, 0.5),
        p99: quantile(ms, 0.99),
        cpuPerHost: cpu / hosts,
        natsCpu: nCpu,
        correct: !last?.isError && exact && ok === hosts,
        rss: mem?.hwm ?? Number.NaN,
        structured: last?.structured,
      };
    };
    const listed = await measure(`list_hosts all (${n(total)})`, 'list_hosts', { host: 'all' }, total, 0, 3);
    const topArgs = {
      host: 'all',
      path: small,
      order_by: 'size',
      sort: 'descending',
      top_n: 10,
      max_depth: 10,
      type: 'file',
    };
    const diffHosts = Math.min(10_000, SIM_HOSTS);
    // sim-0* is sim-00000 … sim-09999: 10,000 hosts at 100,000 (fewer below). Before the top 10,
    // so that its peak RSS starts from the registry's, not from what the top 10 left in the heap.
    const diff = await measure(
      `diff_directory over ${n(diffHosts)} (sim-0*)`,
      'diff_directory',
      { host: 'sim-0*', path: '/sim' },
      diffHosts,
      diffHosts,
      2,
    );
    const top = await measure(`list_files top_n=10 over all ${n(total)}`, 'list_files', topArgs, total, SIM_HOSTS, 2);
    // The simulators' odd hosts (every 997th: sim-00996, sim-01993 …) are group B, the rest A.
    const oddHosts = Array.from({ length: diffHosts }, (_, i) => i)
      .filter((i) => i % 997 === 996)
      .map((i) => `sim-${String(i).padStart(5, '0')}`);
    const groups = (diff.structured?.groups ?? []) as { id: string; count: number; hosts: string[] }[];
    const diffGroups =
      JSON.stringify(groups.map((g) => [g.id, g.count])) ===
        JSON.stringify([
          ['A', diffHosts - oddHosts.length],
          ['B', oddHosts.length],
        ]) && JSON.stringify(groups[1]?.hosts) === JSON.stringify(oddHosts);
    if (!diffGroups) ctx.log(`diff_directory groups: ${JSON.stringify(groups).slice(0, 1500)}`);
    ctx.report.target(
      `NATS: list_files top 10 and diff_directory correct at ${n(SIM_HOSTS)} hosts (every host asked exactly once, all ok; the diff's odd group exact), at the default answer budget`,
      `top 10: ${top.correct ? 'yes' : 'no'}; diff_directory: ${diff.correct && diffGroups ? 'yes' : 'no'} (groups ${groups.map((g) => `${g.id} ${g.count}`).join(', ')}; ${Buffer.byteLength(JSON.stringify(diff.structured ?? {}))} bytes of JSON)`,
      top.correct && diff.correct && diffGroups,
    );
    ctx.report.target(
      'NATS: gateway CPU ≤ 0.05 ms per host',
      `${top.cpuPerHost.toFixed(4)} ms per host (list_files top 10 over ${n(total)})`,
      Number.isFinite(top.cpuPerHost) ? top.cpuPerHost <= 0.05 : undefined,
    );
    ctx.report.target(
      'NATS: gateway RSS ≤ 512 MiB',
      `${fmtBytes(Math.max(listed.rss, top.rss, diff.rss))} at its peak (list_hosts ${fmtBytes(listed.rss)}, diff_directory ${fmtBytes(diff.rss)}, top 10 ${fmtBytes(top.rss)})`,
      Number.isFinite(top.rss) ? Math.max(listed.rss, top.rss, diff.rss) <= 512 * 1024 * 1024 : undefined,
    );

    // Two gateways, one call split between them by the gateway (fleet/peers/): gateway 1 takes
    // the call, cuts its NATS hosts into a shard for itself and one for gateway 2 (its peer,
    // heard saying hello), and merges the per-host results gateway 2 streams back.
    type Item = { host: string; path: string; size: number };
    const itemsOf = (r: Awaited<ReturnType<McpServerProc['call']>>) => (r.structured?.items ?? []) as Item[];
    const key = (xs: Item[]) => xs.map((x) => `${x.host}:${x.path}:${x.size}`).join(' ');
    // One gateway's top 10, before it has a peer: what the split call must answer.
    const wholeTop = itemsOf(await g1.call('list_files', topArgs, 300_000));
    const ownInbox = Object.keys((await asked()).byAsker);
    // Gateway 2 says hello on fleetls.gateway.hello as it starts and every 5 s (gateway 1 hears
    // the same subject): heard here from a new gateway, it is gateway 1's peer.
    const hellos = new Set<string>();
    const helloSub = nc.subscribe('fleetls.gateway.hello', {
      callback: (_e, m) => {
        const id = (JSON.parse(m.string()) as { id?: string; serves?: boolean }).id;
        if (id) hellos.add(id);
      },
    });
    await new Promise((res) => setTimeout(res, 6000)); // gateway 1's own hello, heard at least once
    const before = new Set(hellos);
    const g2 = await startGw(2);
    const t1 = Date.now();
    while (![...hellos].some((id) => !before.has(id))) {
      if (Date.now() - t1 > 60_000) throw new Error('gateway 2 never said hello');
      await new Promise((res) => setTimeout(res, 250));
    }
    helloSub.unsubscribe();
    const SPLIT_RUNS = 2;
    const splitMs: number[] = [];
    const splitCpu = [0, 0];
    let splitExact = true;
    let sameTop = true;
    let splitOk = 0;
    const splitCounts: string[] = [];
    const shares: string[] = [];
    for (let i = 0; i <= SPLIT_RUNS; i++) {
      const cpu0 = [cpuMs(g1.pid), cpuMs(g2.pid)];
      const r = await g1.call('list_files', topArgs, 300_000);
      const cpu = [cpuMs(g1.pid) - cpu0[0], cpuMs(g2.pid) - cpu0[1]];
      const a = await asked();
      splitOk = okHosts(r.structured);
      splitExact &&= !r.isError && splitOk === total && a.once === SIM_HOSTS && a.more === 0;
      sameTop &&= key(itemsOf(r)) === key(wholeTop);
      splitCounts.push(`${n(a.once)}/${n(a.never)}/${n(a.more)}`);
      const mine = ownInbox.reduce((s, k) => s + (a.byAsker[k] ?? 0), 0);
      const walks = Object.values(a.byAsker).reduce((x, y) => x + y, 0);
      shares.push(`${n(mine)} / ${n(walks - mine)}`);
      if (i === 0) continue; // the warm-up
      splitMs.push(r.ms);
      splitCpu[0] += cpu[0] / SPLIT_RUNS;
      splitCpu[1] += cpu[1] / SPLIT_RUNS;
    }
    if (g1.restarts() + g2.restarts() > 0) throw new Error('a gateway died during the split call');
    const alone = top.cpuPerHost * total;
    const ratios = splitCpu.map((c) => c / alone);
    ctx.report.table({
      title: 'Two gateways split one call: a top 10 over every host, taken by gateway 1 and split by it',
      intro:
        'Gateway 1 takes the call (list_files top 10 over all) and splits its NATS hosts with gateway 2, its peer ' +
        '(fleet/peers/: a shard per gateway over fleetls.gateway.<id>.shard, per-host results streamed back cut to ' +
        'what may still rank, merged by gateway 1). "Asked by 1 / 2" is what the simulators counted per asking ' +
        'connection. "Same top 10" compares the answer with gateway 1’s alone, before gateway 2 started. CPU per ' +
        'gateway is each process’s user + system time during the call (mean of the runs after a warm-up), and its ' +
        'ratio to one gateway’s CPU for the same call alone (the top 10 row above). Both gateways share the ' +
        'machine’s 2 cores with the 3 nodes and the simulators, so wall time does not halve.',
      header: [
        'Call',
        'p50',
        'Hosts ok',
        'Asked once / never / twice+',
        'Asked by 1 / 2',
        'Same top 10',
        'Gateway CPU per call (1 + 2)',
        'Each vs one gateway alone',
      ],
      rows: [
        [
          `list_files top_n=10 over all ${n(total)}`,
          `${fmtMs(quantile(splitMs, 0.5))} (n=${SPLIT_RUNS}; alone ${fmtMs(top.p50)})`,
          `${n(splitOk)}/${n(total)}`,
          [...new Set(splitCounts)].join(', '),
          [...new Set(shares)].join(', '),
          sameTop ? 'yes' : 'no',
          `${fmtMs(splitCpu[0])} + ${fmtMs(splitCpu[1])} (alone ${fmtMs(alone)})`,
          ratios.map((x) => `${x.toFixed(2)}×`).join(' + '),
        ],
      ],
    });
    const splitCorrect = splitExact && sameTop;
    ctx.report.target(
      `NATS: a top 10 over ${n(SIM_HOSTS)} hosts split by the gateway between two gateways: every host once, the same top 10 as one gateway's, each gateway's CPU ≤ 0.6× one gateway's alone`,
      `${splitCorrect ? 'correct' : 'NOT correct'}; CPU ${ratios.map((x) => `${x.toFixed(2)}×`).join(' + ')} of ${fmtMs(alone)}; p50 ${fmtMs(quantile(splitMs, 0.5))} (alone ${fmtMs(top.p50)})`,
      splitCorrect && ratios.every((x) => x <= 0.6),
    );
    ctx.report.note(
      'The gateways run at the default answer budget (48,000 bytes, 20,000 tokens) and scan store (200,000 rows). ' +
        'Past a few hundred hosts an answer lists the failed hosts and counts the ok ones (truncations: ' +
        'host_statuses), so "Hosts ok" is that count; scans run at their default concurrency (256). diff_directory ' +
        'keeps each distinct listing once (here 2 of 80 rows, for 10,000 hosts), each host only its id; its groups ' +
        'name their first 5 hosts past a quarter of the budget (truncations: group_hosts), the smallest whole first: ' +
        'B, the 10 odd hosts, by name. "Gateway RSS (peak)" is the RSS after the call and the peak during it (the ' +
        'high-water mark is reset before each call; diff_directory runs before the top 10).',
    );
    ctx.report.note(
      'The split is the gateway’s (docs/nats.md, "Several gateways split one call"): a ranked list_files over at ' +
        'least nats.split_min_hosts NATS hosts (default 1,000) is cut into one shard per serving gateway; each peer ' +
        'runs its shard as its own fan-out and sends back each host’s status and the rows its own top-N heap keeps.',
    );
    estimate(ctx, {
      hosts: total,
      cpuPerHost: top.cpuPerHost,
      natsCpuPerCall: top.natsCpu,
      p50: top.p50,
      rss: top.rss,
      registryRss: listed.rss,
    });
  } finally {
    await Promise.all(gws.map((g) => g.close().catch(() => undefined)));
    await Promise.all(agents.map((a) => a.stop()));
    for (const c of children.reverse()) stop(c);
  }
}

/** 1,000,000 hosts on paper, from this run's per-host costs. */
function estimate(
  ctx: BenchContext,
  m: { hosts: number; cpuPerHost: number; natsCpuPerCall: number; p50: number; rss: number; registryRss: number },
): void {
  const target = 1_000_000;
  const gwCpuS = (m.cpuPerHost * target) / 1000;
  const natsPerHostMs = m.natsCpuPerCall / m.hosts;
  const natsCpuS = (natsPerHostMs * target) / 1000;
  const rssPerHost = m.rss / m.hosts;
  // A call must answer within the call deadline's ceiling (55 s) with room: 20 s of gateway CPU per gateway.
  const gateways = Math.max(1, Math.ceil(gwCpuS / 20));
  const natsNodes = Math.max(3, Math.ceil(natsCpuS / 10) + (Math.ceil(natsCpuS / 10) % 2 === 0 ? 1 : 0));
  const f = (x: number, d = 1) => x.toFixed(d);
  ctx.report.table({
    title: '1,000,000 hosts, on paper (from the per-host costs measured above)',
    intro:
      `From the top 10 over ${m.hosts.toLocaleString('en-US')} hosts: gateway CPU c = ${f(m.cpuPerHost, 4)} ms per host, ` +
      `nats-server CPU s = ${f(natsPerHostMs, 4)} ms per host (the 3 nodes together), gateway memory r = ` +
      `${f(rssPerHost / 1024, 2)} KiB per host at peak (all of the gateway's RSS divided by its hosts: an upper bound).`,
    header: ['Quantity', 'Arithmetic', 'Result'],
    rows: [
      ['Gateway CPU of one merged top 10', `${f(m.cpuPerHost, 4)} ms × 1,000,000`, `${f(gwCpuS)} s (one core)`],
      [
        'Gateways (one core each) for a top 10 within 20 s of CPU each, the call split across them (as the gateways split it above)',
        `⌈${f(gwCpuS)} s / 20 s⌉`,
        `${gateways}`,
      ],
      [
        'Time of a merged top 10 (split over those gateways, bound by their CPU)',
        `${f(gwCpuS)} s / ${gateways} gateways`,
        `${f(gwCpuS / gateways)} s`,
      ],
      ['nats-server CPU of one top 10', `${f(natsPerHostMs, 4)} ms × 1,000,000`, `${f(natsCpuS)} s over the cluster`],
      [
        'NATS nodes (one core each, ≤ 10 s of a call each, odd for JetStream quorum, at least 3)',
        `⌈${f(natsCpuS)} s / 10 s⌉, made odd`,
        `${natsNodes}`,
      ],
      [
        'Gateway memory for 1,000,000 hosts on one gateway (upper bound)',
        `${f(rssPerHost / 1024, 2)} KiB × 1,000,000`,
        fmtBytes(rssPerHost * target),
      ],
      [
        'Memory of every gateway for the registry (each hears every host: its peak after list_hosts, per host)',
        `${f(m.registryRss / m.hosts / 1024, 2)} KiB × 1,000,000`,
        fmtBytes((m.registryRss / m.hosts) * target),
      ],
      [
        'Registry heartbeats (60 s heartbeat)',
        '1,000,000 / 60 s',
        '16,667 registrations per second into the replicated registry, each heard by every gateway',
      ],
    ],
  });
}
