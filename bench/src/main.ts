// `npm run bench`: fleetls beside find, OpenSSH and the peer MCP servers, on generated trees.
// Each section writes results/<section>.md; RESULTS.md is then assembled from all of them,
// so `--only a,b` re-measures some sections and keeps the others' last figures.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseBenchArgs, USAGE, UsageError } from './args.js';
import { type BenchContext, homeIn, log, type Section, Trees } from './context.js';
import { loadAverage, machineLine, machineRows } from './helpers/machine.js';
import { killAll, REPO_ROOT, TimeoutError, withTimeout } from './helpers/proc.js';
import { fmtInt } from './helpers/stats.js';
import { assembleResults, SectionReport, sectionFile } from './report.js';
import { SECTIONS } from './sections/index.js';

const names = SECTIONS.map((s) => s.name);
/** Results no section writes, assembled after theirs: ab-structure.js's then-vs-now A/B (issue 24) needs a second build. */
const OTHER_RESULTS = ['structure'];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-bench-run-'));
const trees = new Trees();

/** Runs one section with its time limit and writes its file; a failure becomes a "not measured" note. */
async function runSection(s: Section, ctx: BenchContext): Promise<void> {
  const limit = s.limitMs(ctx.args);
  const load = loadAverage();
  log(`section ${s.name} (limit ${Math.round(limit / 1000)} s)`);
  const t0 = performance.now();
  try {
    await withTimeout(s.run(ctx), limit, `section ${s.name}`);
  } catch (err) {
    const msg = err instanceof TimeoutError ? err.message : ((err as Error).stack ?? String(err));
    ctx.report.note(`not measured (or cut short): ${msg.split('\n').slice(0, 3).join(' ')}`);
    log(`section ${s.name} failed: ${msg}`);
  }
  const sec = ((performance.now() - t0) / 1000).toFixed(0);
  const used = [...trees.used.values()].map((t) => `${t.spec.name} (${fmtInt(t.entries)} entries)`).join(', ');
  const how = `Measured ${new Date().toISOString().slice(0, 16)}Z by \`node bench/dist/main.js --only ${s.name}${ctx.args.full ? ' --full' : ''}\` in ${sec} s on ${machineLine()}; load average ${load} at the start, ${loadAverage()} at the end; trees: ${used || 'none'}.`;
  const file = sectionFile(ctx.args.out, s.name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, ctx.report.markdown(s.name, how));
  log(`section ${s.name} done in ${sec} s: ${path.relative(process.cwd(), file)}`);
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), names, path.join(REPO_ROOT, 'bench'));
  const loadAtStart = loadAverage();
  for (const s of SECTIONS.filter((x) => !args.assemble && args.only.includes(x.name))) {
    const report = new SectionReport(log);
    await runSection(s, { args, report, log, tree: (n) => trees.get(n), home: homeIn(scratch), scratch });
  }
  const head = [
    '# fleetls benchmark results',
    '',
    'Assembled by `npm run bench` (bench/src/main.ts) from bench/results/<section>.md; each section says when and how it was measured. Medians of several runs after one warm-up (n = timed runs); compare ratios within one section, measured in one run.',
    '',
    '## Machine (of the run that assembled this file)',
    '',
    '| | |',
    '|---|---|',
    ...machineRows(loadAtStart).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    'Trees (bench/src/trees.ts, seeded): a 50,000-file flat directory (300k and 1M trees), a 40-level chain, nested project directories (fan-out 0–7, 2–60 files each), symlinks to files and directories and a dangling one, a hidden directory, one file name that is not UTF-8, log-normal sizes with multi-GB sparse files, mtimes over three years. The ~1M-entry tree is measured with `--full`.',
    '',
  ];
  const md = assembleResults(args.out, [...names, ...OTHER_RESULTS], head);
  fs.writeFileSync(path.join(args.out, 'RESULTS.md'), md);
  process.stdout.write(md);
}

main()
  .catch((err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message ? `${err.message}\n` : ''}${USAGE}\n`);
      process.exitCode = err.message ? 2 : 0;
      return;
    }
    log(`bench failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(() => {
    killAll();
    fs.rmSync(scratch, { recursive: true, force: true });
    // grpc channels and timers must not keep the process alive
    setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  });
