// The 10 largest files of the 50,000-entry directory: fleetls vs find | sort | tail.
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls, startServerFilesystem } from '../helpers/mcp.js';
import { sh } from '../helpers/proc.js';
import { fmtBytes, fmtMs, sampled } from '../helpers/stats.js';
import { timeTool } from '../helpers/tools.js';
import { ratio } from '../report.js';
import { benchDir } from '../trees.js';

export const name = 'topn';
export const limitMs = (_args: BenchArgs): number => 3 * 60_000;

export async function run(ctx: BenchContext): Promise<void> {
  const dir = (await ctx.tree('medium')).flatDir;
  if (!dir) throw new Error('the 300k tree has no flat directory');
  if (!dir) throw new Error('the 300k tree (with its flat directory) is not there');
  const find = await sampled(async () => {
    const r = await sh(`find '${dir}' -mindepth 1 -maxdepth 1 -type f -printf '%s %p\\n' | sort -n | tail -n 10`, {
      timeoutMs: 60_000,
    });
    return { ms: r.ms, out: r.stdout };
  }, ctx.args.runs);
  const fleet = await startFleetls({ cwd: ctx.home('fleetls-topn'), home: ctx.home('fleetls-topn') });
  let sf: McpServerProc | undefined;
  try {
    const fr = await timeTool(
      ctx,
      fleet,
      'list_files',
      { host: 'localhost', path: dir, order_by: 'size', sort: 'descending', top_n: 10, type: 'file' },
      'order_by=size sort=descending top_n=10',
    );
    // same answer?
    const o = await fleet.call('list_files', {
      host: 'localhost',
      path: dir,
      order_by: 'size',
      sort: 'descending',
      top_n: 10,
      type: 'file',
    });
    const got = ((o.structured?.items ?? []) as { size: number }[]).map((i) => i.size).sort((a, b) => a - b);
    const want = find.sample.out
      .trim()
      .split('\n')
      .map((l) => Number(l.split(' ')[0]));
    const same = JSON.stringify(got) === JSON.stringify(want);
    const rows = [
      ['find -printf | sort -n | tail', `${fmtMs(find.ms)} (n=${find.runs})`, '', '1.00×'],
      [
        'fleetls list_files top_n=10 order_by=size (MCP, embedded agent)',
        fr.error ? `failed: ${fr.error}` : `${fmtMs(fr.ms)} (n=${fr.runs})`,
        `${fmtBytes(fr.textBytes)} text; same 10 sizes as find: ${same ? 'yes' : 'NO'}`,
        ratio(find.ms / fr.ms),
      ],
    ];
    try {
      sf = await startServerFilesystem(benchDir(), ctx.home('sf-topn'));
      const sr = await timeTool(ctx, sf, 'list_directory_with_sizes', { path: dir, sortBy: 'size' }, 'sortBy=size');
      rows.push([
        'server-filesystem list_directory_with_sizes sortBy=size (all 50,000 rows)',
        sr.error ? `failed: ${sr.error}` : `${fmtMs(sr.ms)} (n=${sr.runs})`,
        `${fmtBytes(sr.textBytes)} text`,
        ratio(find.ms / sr.ms),
      ]);
    } catch (err) {
      ctx.report.note(`top-10: server-filesystem not measured: ${(err as Error).message.slice(0, 200)}`);
    }
    ctx.report.table({
      title: 'The 10 largest files of the 50,000-entry directory',
      intro: 'Ratio = find time ÷ this time (above 1 = faster than find).',
      header: ['Method', 'Median', 'Answer', 'Speed vs find'],
      rows,
    });
  } finally {
    await fleet.close();
    await sf?.close();
  }
}
