import * as path from 'node:path';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls } from '../helpers/mcp.js';
import { OpenSsh, startBenchSshd } from '../helpers/openssh.js';
import { startAgent } from '../helpers/proc.js';
import { fmtInt, fmtMs, fmtRate, median } from '../helpers/stats.js';
import { writeInventory } from '../helpers/tools.js';
import { ratio } from '../report.js';
import { benchDir } from '../trees.js';

export const name = 'agent-ssh';
export const limitMs = (_args: BenchArgs): number => 10 * 60_000;

/** n rounds of every sampler in turn, after one warm-up round; the median of each. */
async function rounds(n: number, fns: (() => Promise<number>)[]): Promise<number[]> {
  for (const f of fns) await f();
  const samples = fns.map(() => [] as number[]);
  for (let i = 0; i < n; i++) for (const [j, f] of fns.entries()) samples[j].push(await f());
  return samples.map(median);
}

export async function run(ctx: BenchContext): Promise<void> {
  const medium = await ctx.tree('medium');
  const sshd = await startBenchSshd();
  const socket = path.join(sshd.dir, 'agent.sock');
  const tcpAgent = await startAgent([benchDir()]);
  // The same agent, on a Unix socket its SSH login may use (the login's group), no TCP port.
  const unixAgent = await startAgent([benchDir()], {
    args: ['--listen', `unix:${socket}`, '--socket-group', String(sshd.gid)],
  });
  const openSsh = new OpenSsh(sshd, path.join(ctx.scratch, 'agent-ssh-ctl'));
  const gateways: McpServerProc[] = [];
  try {
    const inv = path.join(ctx.scratch, 'agent-ssh.yaml');
    const sshSpec = `{ host: 127.0.0.1, port: ${sshd.port}, user: ${sshd.user}, identity_file: "${sshd.identityFile}", known_hosts: "${sshd.knownHostsFile}" }`;
    writeInventory(
      inv,
      {
        tcp: `agent: "${tcpAgent.address}"`,
        tunnel: `ssh: ${sshSpec}\n    agent: "ssh:${socket}"`,
        find: `ssh: ${sshSpec}`,
      },
      'defaults:\n  deadline_ms: 120000\n',
    );
    const gateway = async () => {
      const gw = await startFleetls({ inventory: inv, cwd: ctx.home('gw-agent-ssh'), home: ctx.home('gw-agent-ssh') });
      gateways.push(gw);
      return gw;
    };
    const q = { order_by: 'size', sort: 'descending', top_n: 10, max_depth: 10, type: 'file' };
    const topTen = async (gw: McpServerProc, host: string, dir: string) => {
      const o = await gw.call('list_files', { host, path: dir, ...q }, 150_000);
      if (o.isError) throw new Error(`list_files over ${host} failed: ${o.text.slice(0, 300)}`);
      const s = o.structured as { found?: number; hosts?: { via?: string }[] } | undefined;
      return { ms: o.ms, found: Number(s?.found ?? 0), via: s?.hosts?.[0]?.via };
    };
    const pipeline = (dir: string) => `find '${dir}' -maxdepth 11 -type f -printf '%s %p\\n' | sort -n | tail -n 10`;
    await openSsh.startMaster();

    const gw = await gateway();
    const vias = await Promise.all(['tcp', 'tunnel', 'find'].map(async (h) => (await topTen(gw, h, medium.root)).via));
    if (vias.join() !== 'agent,agent+ssh,ssh') throw new Error(`unexpected transports: ${vias.join()}`);
    const small = path.join(medium.root, 'deep');
    const header = [
      'Measure',
      'agent (TCP)',
      'agent+ssh',
      'find over SSH',
      'OpenSSH ssh + find',
      'agent+ssh ÷ agent (TCP)',
    ];
    const table = ctx.report.table({
      title: 'agent+ssh beside the TCP agent, find over SSH and OpenSSH',
      intro: `A throwaway OpenSSH sshd on 127.0.0.1 (test/src/helpers/sshd.ts); one agent on 127.0.0.1 (TCP, plaintext), the same agent build on a Unix socket in the login's group, reached as \`agent: "ssh:PATH"\` (gRPC over a direct-streamlocal channel of the gateway's pooled ssh2 connection, behind its local forwarder). fleetls: \`fleetls serve\`, list_files top_n=10 order_by=size type=file max_depth=10 (time = MCP call to result). OpenSSH: \`ssh host "find DIR -maxdepth 11 -type f -printf '%s %p\\n' | sort -n | tail -n 10"\`, warm over a ControlMaster, cold with a new connection. Samples rotate over the four (warm n=${ctx.args.runs}, cold n=3, 300k tree n=${Math.min(3, ctx.args.runs)}).`,
      header,
      rows: [],
    });

    const warm = await rounds(ctx.args.runs, [
      async () => (await topTen(gw, 'tcp', small)).ms,
      async () => (await topTen(gw, 'tunnel', small)).ms,
      async () => (await topTen(gw, 'find', small)).ms,
      async () => (await openSsh.warm(pipeline(small))).ms,
    ]);
    table.rows.push(['Warm call, deep (162 entries)', ...warm.map(fmtMs), ratio(warm[1] / warm[0])]);

    const cold = await rounds(3, [
      ...['tcp', 'tunnel', 'find'].map((host) => async () => {
        const fresh = await gateway();
        const r = await topTen(fresh, host, small);
        await fresh.close();
        return r.ms;
      }),
      async () => (await openSsh.cold(pipeline(small))).ms,
    ]);
    table.rows.push([
      'Cold call (fresh gateway / new ssh connection), deep',
      ...cold.map(fmtMs),
      ratio(cold[1] / cold[0]),
    ]);

    const total = (await topTen(gw, 'tcp', medium.root)).found;
    const whole = await rounds(Math.min(3, ctx.args.runs), [
      async () => (await topTen(gw, 'tcp', medium.root)).ms,
      async () => (await topTen(gw, 'tunnel', medium.root)).ms,
      async () => (await topTen(gw, 'find', medium.root)).ms,
      async () => (await openSsh.warm(pipeline(medium.root))).ms,
    ]);
    table.rows.push([
      `Ranked listing of the 300k tree, entries/s (${fmtInt(total)} files ranked)`,
      ...whole.map((ms) => `${fmtRate(total / (ms / 1000))} (${fmtMs(ms)})`),
      ratio(whole[1] / whole[0]),
    ]);

    ctx.report.target(
      'agent+ssh warm call within 1.3× of the TCP agent',
      ratio(warm[1] / warm[0]),
      warm[1] / warm[0] <= 1.3,
    );
    ctx.report.target(
      'agent+ssh ranked listing ≥ 2× find over SSH (300k tree, entries/s)',
      ratio(whole[2] / whole[1]),
      whole[2] / whole[1] >= 2,
    );
  } finally {
    for (const g of gateways) await g.close().catch(() => {});
    await openSsh.close();
    await unixAgent.stop();
    await tcpAgent.stop();
    await sshd.stop();
  }
}
