// SSH: fleetls over ssh2 vs OpenSSH (new connection / ControlMaster), and vs the agent.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { startFleetls } from '../mcp.js';
import { REPO_ROOT, sh, startAgent, withTimeout } from '../proc.js';
import { ratio } from '../report.js';
import { fmtInt, fmtMs, fmtRate, median, sampled } from '../stats.js';
import { type ToolRun, timeTool, writeInventory } from '../tools.js';
import { benchDir } from '../trees.js';

export const name = 'ssh';
export const limitMs = (_args: BenchArgs): number => 6 * 60_000;

interface SshdLike {
  host: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
  stop(): Promise<void>;
}

export async function run(ctx: BenchContext): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root to start a throwaway sshd and its login user');
  const helper = path.join(REPO_ROOT, 'test', 'dist', 'helpers', 'sshd.js');
  if (!fs.existsSync(helper)) throw new Error('test/dist/helpers/sshd.js is not built (npm run build)');
  const { startSshd } = (await import(helper)) as { startSshd: () => Promise<SshdLike> };
  const sshd = await withTimeout(startSshd(), 30_000, 'startSshd');
  const agent = await startAgent([benchDir()]);
  const ctl = path.join(ctx.scratch, 'ssh-ctl');
  const sshBase = `ssh -F /dev/null -i '${sshd.identityFile}' -o UserKnownHostsFile='${sshd.knownHostsFile}' -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=10 -p ${sshd.port}`;
  const dest = `${sshd.user}@127.0.0.1`;
  let master: Promise<unknown> | undefined;
  try {
    const small = path.join((await ctx.tree('small')).root, 'deep');
    const big = (await ctx.tree('medium')).root;
    const findSmall = `find '${small}' -type f -printf '%s %p\\n' | sort -n | tail -n 10`;
    const inv = path.join(ctx.scratch, 'ssh.yaml');
    writeInventory(
      inv,
      {
        s1: `ssh: { host: 127.0.0.1, port: ${sshd.port}, user: ${sshd.user}, identity_file: "${sshd.identityFile}", known_hosts: "${sshd.knownHostsFile}" }`,
        a1: `agent: "${agent.address}"`,
      },
      'defaults:\n  deadline_ms: 120000\n',
    );
    const q = { order_by: 'size', sort: 'descending', top_n: 10, max_depth: 10, type: 'file' };
    // cold: a fresh gateway each time, first call
    const colds: number[] = [];
    let warm: ToolRun | undefined;
    let big1: ToolRun | undefined;
    let bigAgent: ToolRun | undefined;
    let bigTotal = 0;
    for (let i = 0; i < 3; i++) {
      const gw = await startFleetls({ inventory: inv, cwd: ctx.home('gw-ssh'), home: ctx.home('gw-ssh') });
      try {
        const o = await gw.call('list_files', { host: 's1', path: small, ...q }, 60_000);
        if (o.isError) throw new Error(`fleetls over SSH failed: ${o.text.slice(0, 300)}`);
        colds.push(o.ms);
        if (i === 2) {
          warm = await timeTool(ctx, gw, 'list_files', { host: 's1', path: small, ...q }, 'warm');
          const full = { order_by: 'size', sort: 'descending', limit: 10, max_depth: 10, type: 'any' };
          big1 = await timeTool(
            ctx,
            gw,
            'list_files',
            { host: 's1', path: big, ...full },
            'type=any order_by=size limit=10 (300k tree)',
          );
          bigAgent = await timeTool(
            ctx,
            gw,
            'list_files',
            { host: 'a1', path: big, ...full },
            'type=any order_by=size limit=10 (300k tree)',
          );
          const s = await gw.call('list_files', { host: 's1', path: big, ...full }, 150_000);
          bigTotal = Number((s.structured as { total?: number } | undefined)?.total ?? 0);
        }
      } finally {
        await gw.close();
      }
    }
    // OpenSSH: cold = new connection per call; warm = over a ControlMaster we started (and kill)
    const sshCold = await sampled(
      async () => ({ ms: (await sh(`${sshBase} ${dest} "${findSmall}"`, { timeoutMs: 30_000 })).ms }),
      3,
    );
    master = sh(`${sshBase} -M -N -S '${ctl}' ${dest}`, { timeoutMs: 600_000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 50 && !fs.existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 100));
    const sshWarm = await sampled(
      async () => ({
        ms: (await sh(`${sshBase} -S '${ctl}' -o ControlMaster=no ${dest} "${findSmall}"`, { timeoutMs: 30_000 })).ms,
      }),
      ctx.args.runs,
    );
    const sshBig = await sampled(async () => {
      const r = await sh(
        `${sshBase} -S '${ctl}' -o ControlMaster=no ${dest} "find '${big}' -printf '%y %s %T@ %p\\n'" | wc -l`,
        {
          timeoutMs: 120_000,
        },
      );
      return { ms: r.ms, lines: Number(r.stdout.trim()) };
    }, 3);
    const rate = (n: number, ms: number) => n / (ms / 1000);
    ctx.report.table({
      title: 'SSH: fleetls over ssh2 vs OpenSSH, and vs the agent',
      intro: `A throwaway OpenSSH sshd on 127.0.0.1 (test/src/helpers/sshd.ts), login user with /bin/sh. fleetls: \`fleetls serve\` with an inventory host that has only \`ssh:\`; cold = first call of a fresh gateway (connect + auth + find), median of 3 gateways. Small query: list_files top_n=10 order_by=size on ${path.relative(benchDir(), small)}. OpenSSH: \`ssh host "find … | sort -n | tail"\`, cold = a new connection per call, warm = over a ControlMaster.`,
      header: ['Measure', 'fleetls', 'OpenSSH ssh + find', 'Ratio (OpenSSH time ÷ fleetls time)'],
      rows: [
        [
          'Cold call (connect + auth + top 10)',
          fmtMs(median(colds)),
          fmtMs(sshCold.ms),
          ratio(sshCold.ms / median(colds)),
        ],
        [
          'Warm call (reused connection)',
          warm?.error ? `failed: ${warm.error}` : fmtMs(warm?.ms ?? Number.NaN),
          fmtMs(sshWarm.ms),
          ratio(sshWarm.ms / (warm?.ms ?? Number.NaN)),
        ],
        [
          `300k tree, entries/s (fleetls: list_files type=any order_by=size limit=10, ranking ${fmtInt(bigTotal)} entries; OpenSSH: find -printf | wc -l)`,
          big1?.error
            ? `failed: ${big1.error}`
            : `${fmtRate(rate(bigTotal, big1?.ms ?? Number.NaN))} (${fmtMs(big1?.ms ?? Number.NaN)})`,
          `${fmtRate(rate(sshBig.sample.lines, sshBig.ms))} (${fmtMs(sshBig.ms)})`,
          ratio(rate(bigTotal, big1?.ms ?? Number.NaN) / rate(sshBig.sample.lines, sshBig.ms)),
        ],
        [
          '300k tree through the gateway: over the agent (same query)',
          bigAgent?.error
            ? `failed: ${bigAgent.error}`
            : `${fmtRate(rate(bigTotal, bigAgent?.ms ?? Number.NaN))} (${fmtMs(bigAgent?.ms ?? Number.NaN)}); SSH/agent = ${ratio((bigAgent?.ms ?? Number.NaN) / (big1?.ms ?? Number.NaN))}`,
          '',
          '',
        ],
      ],
    });
  } finally {
    if (master) {
      await sh(`${sshBase} -S '${ctl}' -O exit ${dest}`, { timeoutMs: 5000 }).catch(() => {});
      await withTimeout(master, 5000, 'ssh master exit').catch(() => {});
    }
    await agent.stop();
    await sshd.stop();
  }
}
