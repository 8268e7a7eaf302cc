// Paging: list_files in name order followed over the largest tree of the run (the 1M tree
// with --full), every entry exactly once, against one tree-shape walk; answer-size runs the
// same measure on the 300k tree beside its other tables.
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { startFleetls } from '../helpers/mcp.js';
import { pagingCost } from './answer-size.js';

export const name = 'paging';
// With --full: one walk of the 1M tree (6 min at load 20 on 2 cores) and ~8,500 pages (16 min).
export const limitMs = (args: BenchArgs): number => (args.full ? 40 : 8) * 60_000;

export async function run(ctx: BenchContext): Promise<void> {
  const tree = await ctx.tree(ctx.args.full ? 'large' : 'medium');
  const fleet = await startFleetls({ cwd: ctx.home('fleetls'), home: ctx.home('fleetls') });
  try {
    await pagingCost(ctx, fleet, tree);
  } finally {
    await fleet.close();
  }
}
