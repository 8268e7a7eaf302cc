// Paging: list_files in name order followed over the largest tree of the run (the 1M tree
// with --full), every entry exactly once, against one tree-shape walk; answer-size runs the
// same measure on the 300k tree beside its other tables.
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { startFleetls } from '../mcp.js';
import { pagingCost } from './answer-size.js';

export const name = 'paging';
export const limitMs = (args: BenchArgs): number => (args.full ? 20 : 8) * 60_000;

export async function run(ctx: BenchContext): Promise<void> {
  const tree = await ctx.tree(ctx.args.full ? 'large' : 'medium');
  const fleet = await startFleetls({ cwd: ctx.home('fleetls'), home: ctx.home('fleetls') });
  try {
    await pagingCost(ctx, fleet, tree);
  } finally {
    await fleet.close();
  }
}
