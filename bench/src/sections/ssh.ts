import * as path from 'node:path';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls } from '../helpers/mcp.js';
import { OpenSsh, startBenchSshd } from '../helpers/openssh.js';
import { startAgent } from '../helpers/proc.js';
import { fmtInt, fmtMs, median } from '../helpers/stats.js';
import { writeInventory } from '../helpers/tools.js';
import { ratio } from '../report.js';
import { benchDir } from '../trees.js';

export const name = 'ssh';
export const limitMs = (_args: BenchArgs): number => 10 * 60_000;

/** n samples of each, in turns after one warm-up each; medians. */
async function inTurns(n: number, a: () => Promise<number>, b: () => Promise<number>): Promise<[number, number]> {
  await a();
  await b();
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    xs.push(await a());
    ys.push(await b());
  }
  return [median(xs), median(ys)];
}

export async function run(ctx: BenchContext): Promise<void> {
  const medium = await ctx.tree('medium');
  const sshd = await startBenchSshd();
  const agent = await startAgent([benchDir()]);
  const openSsh = new OpenSsh(sshd, path.join(ctx.scratch, 'ssh-ctl'));
  const gateways: McpServerProc[] = [];
  try {
    const inv = path.join(ctx.scratch, 'ssh.yaml');
    writeInventory(
      inv,
      {
        s1: `ssh: { host: 127.0.0.1, port: ${sshd.port}, user: ${sshd.user}, identity_file: "${sshd.identityFile}", known_hosts: "${sshd.knownHostsFile}" }`,
        a1: `agent: "${agent.address}"`,
      },
      'defaults:\n  deadline_ms: 120000\n',
    );
    const gateway = async () => {
      const gw = await startFleetls({ inventory: inv, cwd: ctx.home('gw-ssh'), home: ctx.home('gw-ssh') });
      gateways.push(gw);
      return gw;
    };
    const q = { order_by: 'size', sort: 'descending', top_n: 10, max_depth: 10, type: 'file' };
    const topTen = async (gw: McpServerProc, host: string, dir: string) => {
      const o = await gw.call('list_files', { host, path: dir, ...q }, 150_000);
      if (o.isError) throw new Error(`fleetls over ${host} failed: ${o.text.slice(0, 300)}`);
      const s = o.structured as { total?: number; items?: { size: number }[] } | undefined;
      return { ms: o.ms, total: Number(s?.total ?? 0), sizes: (s?.items ?? []).map((i) => i.size) };
    };
    const pipeline = (dir: string) => `find '${dir}' -maxdepth 11 -type f -printf '%s %p\\n' | sort -n | tail -n 10`;
    const sizesOf = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((l) => Number(l.split(' ')[0]))
        .reverse();

    await openSsh.startMaster();
    const shell = (await openSsh.warm('echo "$0"; cat ~/.profile ~/.bashrc ~/.shrc 2>/dev/null | wc -l')).stdout
      .trim()
      .split('\n');
    const floor = await inTurns(
      ctx.args.runs,
      async () => (await openSsh.warm('true')).ms,
      async () => (await openSsh.warm('true')).ms,
    );

    // Samples per row: the machine is shared and a sample of the small rows is tens of
    // milliseconds, so their medians take more of them; the whole tree's take seconds each.
    const small = 3 * ctx.args.runs;
    const warmRuns = (label: string) =>
      label.startsWith('the whole') ? ctx.args.runs : label.startsWith('flat') ? 2 * ctx.args.runs : small;
    const coldRuns = ctx.args.runs;
    const dirs: [string, string][] = [
      ['deep (162 entries)', path.join(medium.root, 'deep')],
      ['projects/project-0003 (5.8k entries)', path.join(medium.root, 'projects', 'project-0003')],
      ['flat (50k entries, one directory)', path.join(medium.root, 'flat')],
      [`the whole tree (${fmtInt(medium.entries)} entries)`, medium.root],
    ];
    const warmTable = ctx.report.table({
      title: 'SSH, warm: top 10 files by size, fleetls over its pooled ssh2 connection vs OpenSSH over a ControlMaster',
      intro: `A throwaway OpenSSH sshd on 127.0.0.1 (test/src/helpers/sshd.ts). fleetls: \`fleetls serve\` with an inventory host that has only \`ssh:\`, list_files top_n=10 order_by=size type=file max_depth=10, which is find's -maxdepth 11 (time = MCP call to result). OpenSSH: \`ssh -S ctl host "find DIR -maxdepth 11 -type f -printf '%s %p\\n' | sort -n | tail -n 10"\`, the client spawned directly. Samples alternate between the two, after a warm-up (n=${small} each on deep and the project, ${2 * ctx.args.runs} on flat, ${ctx.args.runs} on the whole tree). The remote login shell of both is \`${shell[0]}\` (${shell[1] ?? '?'} lines of rc files); the OpenSSH transport floor (\`ssh -S ctl host true\`) is ${fmtMs(floor[0])}.`,
      header: ['Directory', 'fleetls', 'OpenSSH', 'Ratio (OpenSSH time ÷ fleetls time)', 'Same 10 sizes'],
      rows: [],
    });
    const gw = await gateway();
    const warmRatios: number[] = [];
    for (const [label, dir] of dirs) {
      let same = true;
      const [f, o] = await inTurns(
        warmRuns(label),
        async () => {
          const r = await topTen(gw, 's1', dir);
          return r.ms;
        },
        async () => (await openSsh.warm(pipeline(dir))).ms,
      );
      const a = await topTen(gw, 's1', dir);
      const b = sizesOf((await openSsh.warm(pipeline(dir))).stdout);
      same = JSON.stringify(a.sizes) === JSON.stringify(b);
      warmRatios.push(o / f);
      warmTable.rows.push([label, fmtMs(f), fmtMs(o), ratio(o / f), same ? 'yes' : 'NO']);
    }
    ctx.report.target(
      'SSH warm call ≥ 1.0× OpenSSH over a ControlMaster (same remote pipeline, every directory size)',
      warmRatios.map(ratio).join(', '),
      warmRatios.every((x) => x >= 1),
    );

    // Cold: a fresh gateway's first call (connect, auth, probe, listing) vs a new ssh connection.
    const coldTable = ctx.report.table({
      title: 'SSH, cold: the first call of a fresh gateway vs a new OpenSSH connection',
      intro: `fleetls: a new \`fleetls serve\` per sample (its start not counted); the first list_files call connects, authenticates, probes and lists. OpenSSH: \`ssh host "find … | sort -n | tail -n 10"\` with no ControlMaster. Samples alternate, n=${coldRuns} each.`,
      header: ['Directory', 'fleetls', 'OpenSSH', 'Ratio (OpenSSH time ÷ fleetls time)'],
      rows: [],
    });
    const coldRatios: number[] = [];
    for (const [label, dir] of [dirs[0], dirs[3]]) {
      const [f, o] = await inTurns(
        coldRuns,
        async () => {
          const fresh = await gateway();
          const r = await topTen(fresh, 's1', dir);
          await fresh.close();
          return r.ms;
        },
        async () => (await openSsh.cold(pipeline(dir))).ms,
      );
      coldRatios.push(o / f);
      coldTable.rows.push([label, fmtMs(f), fmtMs(o), ratio(o / f)]);
    }
    ctx.report.target(
      'SSH cold call ≥ 1.0× a new OpenSSH connection (issue 39; small directory, whole tree)',
      coldRatios.map(ratio).join(', '),
      coldRatios.every((x) => x >= 1),
    );
    ctx.report.target(
      'SSH cold call ≥ 1.5× a new OpenSSH connection (small directory, whole tree)',
      coldRatios.map(ratio).join(', '),
      coldRatios.every((x) => x >= 1.5),
    );

    // The same query over the agent, for scale.
    const [viaSsh, viaAgent] = await inTurns(
      3,
      async () => (await topTen(gw, 's1', medium.root)).ms,
      async () => (await topTen(gw, 'a1', medium.root)).ms,
    );
    ctx.report.table({
      title: 'The whole 300k tree through the gateway: over SSH vs over the agent (same query)',
      header: ['Via', 'Median (samples in turns, n=3)'],
      rows: [
        ['SSH (remote find + awk pre-ranking)', fmtMs(viaSsh)],
        ['agent (gRPC Walk, ranked)', fmtMs(viaAgent)],
      ],
    });
  } finally {
    for (const g of gateways) await g.close().catch(() => {});
    await openSsh.close();
    await agent.stop();
    await sshd.stop();
  }
}
