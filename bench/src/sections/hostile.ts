// Hostile hosts and hostile input at length: floods of rows and slices from hosts in the fleet
// (hostile-floods.ts, issue 35), then the seeded property test of test/src/security/hostile-input.test.ts
// (random and adversarial arguments to every MCP tool and agent gRPC method), run with many
// more cases and several seeds than .ci/run gives it. A failing seed is printed with its
// shrunk case; rerun it with FLEETLS_FUZZ_SEED=<seed>.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { REPO_ROOT } from '../helpers/proc.js';
import { fmtMs } from '../helpers/stats.js';
import { runFloods } from '../hosts/hostile-floods.js';
import { rankedMillion } from './hostile-ranked.js';

export const name = 'hostile';
export const limitMs = (_args: BenchArgs): number => 20 * 60_000;

const SEEDS = [1, 2, 3];
const RUNS = 1000;
const TEST = path.join(REPO_ROOT, 'test/dist/security/hostile-input.test.js');

function runSeed(seed: number): Promise<{ ok: boolean; ms: number; tail: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--test', '--test-timeout=1200000', TEST], {
      env: { ...process.env, FLEETLS_FUZZ_SEED: String(seed), FLEETLS_FUZZ_RUNS: String(RUNS) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ ok: code === 0, ms: performance.now() - started, tail: /Counterexample: .*/.exec(out)?.[0] ?? '' }),
    );
  });
}

export async function run(ctx: BenchContext): Promise<void> {
  await runFloods(ctx);
  const rows: string[][] = [];
  ctx.report.table({
    title: 'Hostile input: the property test with more cases',
    intro: `Each seed runs ${RUNS} MCP tool calls and ${RUNS * 2} agent gRPC calls (typed, raw bytes, Stat).`,
    header: ['Seed', 'MCP calls', 'gRPC calls', 'Outcome', 'Wall time'],
    rows,
  });
  let failed = 0;
  for (const seed of SEEDS) {
    ctx.log(`hostile: seed ${seed}, ${RUNS} cases`);
    const r = await runSeed(seed);
    if (!r.ok) failed++;
    rows.push([
      String(seed),
      String(RUNS),
      String(RUNS * 2),
      r.ok ? 'every answer valid' : `FAILED ${r.tail}`,
      fmtMs(r.ms),
    ]);
  }
  ctx.report.target(
    'every answer a valid result or a clear error, processes up',
    `${failed} of ${SEEDS.length} seeds failed`,
    failed === 0,
  );
  await rankedMillion(ctx);
}
