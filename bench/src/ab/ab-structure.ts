#!/usr/bin/env node
// Issue 24's Done-when "the fan-out and walk benches are no slower (ratio in one run)": two builds,
// then (the code when the issue was filed, 6474f0b) and now, side by side in one process tree,
// samples in turns (ABBA by round: one warm-up round, then --rounds rounds), written to
// results/structure.md (bench/src/main.ts --assemble puts it in RESULTS.md).
//   node bench/dist/ab/ab-structure.js --then DIR [--now DIR] [--rounds N] [--out DIR]
// DIR is a built checkout (npm ci && npm run build). Not a section of `npm run bench`: it needs
// the then-build.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { homeIn, log, Trees } from '../context.js';
import { loadAverage, machineLine } from '../helpers/machine.js';
import type { McpServerProc } from '../helpers/mcp.js';
import { cpuMs, killAll, REPO_ROOT, startAgentHost } from '../helpers/proc.js';
import { fmtInt, fmtMs, median } from '../helpers/stats.js';
import { ratio, SectionReport, sectionFile } from '../report.js';
import { FANOUT_QUERY } from '../sections/fanout.js';
import { walkMethod, walkOnce } from '../sections/walk.js';
import { benchDir } from '../trees.js';
import { type Build, openBuild, type Side, startSide } from './ab-sides.js';

/** Rounds stop starting past this (the run's whole time, trees included): the coordinator's slot is 10 min. */
const BUDGET_MIN = 9;
const USAGE = `usage: node bench/dist/ab/ab-structure.js --then DIR [--now DIR] [--rounds N] [--budget-min M] [--out DIR]
  --then        a built checkout of the then code (issue 24: 6474f0b)
  --now         a built checkout of the now code (default: this repository)
  --rounds      timed rounds after one warm-up round, sides in turns ABBA (default 8)
  --budget-min  no round starts that would end past M minutes of the whole run (default ${BUDGET_MIN})
  --out         directory for results/structure.md (default: bench/)`;

const STUB_AGENTS = 200;
const REAL_AGENTS = 10;
/**
 * Fan-out calls per side in the warm-up round. A fresh gateway's first calls cost it more while
 * V8's optimizing compiler works on its helper threads, and a build with more code on the hot
 * path pays longer (results/structure.why.md: the stub fan-out's calls 4–45 cost now's gateway
 * 1.06–1.19× then's CPU, calls 91–162 1.02–1.03×); after a 3-call warm-up the timed rounds
 * measured mostly that compiling, not the fan-out.
 */
const WARM_CALLS = 40;

interface Answer {
  ms: number;
  /** What the call answered, to check both builds answer alike. */
  answer: string;
  /** The gateway's CPU (user + system) during the call: a fan-out's own cost, which the load moves less than its wall time. */
  cpuMs?: number;
}

interface Measure {
  name: string;
  /** Samples per side per round. */
  perRound: number;
  /** Samples per side in the warm-up round, when more than perRound. */
  warmCalls?: number;
  sample(side: Side): Promise<Answer>;
}

/** One merged list_files over every host: a whole answer (every host ok, no scan page) or it throws. */
async function fanOut(gw: McpServerProc, args: Record<string, unknown>, hosts: number): Promise<Answer> {
  const cpu0 = cpuMs(gw.pid);
  const o = await gw.call('list_files', args, 60_000);
  const cpu = cpuMs(gw.pid) - cpu0;
  const s = o.structured ?? {};
  const cursor = s.next_cursor;
  // now answers a call past its deadline as a scan's first page; a scan left walking loads the next samples
  if (typeof cursor === 'string') await gw.call('scan_status', { cursor, cancel: true }).catch(() => {});
  if (o.isError) throw new Error(o.text.slice(0, 200));
  const ok = ((s.hosts ?? []) as { status?: string }[]).filter((h) => h.status === 'ok').length;
  if (ok !== hosts || typeof cursor === 'string')
    throw new Error(`${ok}/${hosts} hosts ok${typeof cursor === 'string' ? ', answered as a scan page' : ''}`);
  const sizes = ((s.items ?? []) as { size?: unknown }[]).map((i) => String(i.size));
  return { ms: o.ms, answer: `${sizes.length} rows, sizes ${sizes.join(' ')}`, cpuMs: cpu };
}

function measures(small: string, medium: string): Measure[] {
  const def = walkMethod();
  const args = { host: 'all', path: small, ...FANOUT_QUERY };
  // The walk section's requests on the 300k tree: tree shape with caps that do not bite, ranked top 100.
  const base = { path: medium, maxDepth: 64, maxItemsPerDir: 100_000, maxEntries: 1_000_000, deadlineMs: 120_000 };
  const walk = async (side: Side, req: Record<string, unknown>): Promise<Answer> => {
    const r = await walkOnce(side.walkClient, def, { ...base, ...req });
    return { ms: r.ms, answer: `${fmtInt(r.sent)} rows, ${fmtInt(r.seen)} seen` };
  };
  return [
    {
      name: `fan-out, ${STUB_AGENTS} stub agents (the gateway's fan-out, gRPC and merge)`,
      perRound: 3,
      warmCalls: WARM_CALLS,
      sample: (s) => fanOut(s.stubGateway, args, STUB_AGENTS),
    },
    {
      name: `fan-out, ${REAL_AGENTS} real agent processes`,
      perRound: 3,
      warmCalls: WARM_CALLS,
      sample: (s) => fanOut(s.realGateway, args, REAL_AGENTS),
    },
    {
      name: 'agent Walk, tree shape, 300k tree',
      perRound: 1,
      sample: (s) => walk(s, { shape: 'SHAPE_TREE', order: 'ORDER_NAME' }),
    },
    {
      name: 'agent Walk, ranked top 100 by size, 300k tree',
      perRound: 1,
      sample: (s) =>
        walk(s, { shape: 'SHAPE_RANKED', order: 'ORDER_SIZE', direction: 'DIRECTION_DESCENDING', topN: 100 }),
    },
  ];
}

/** [then, now], indexed by Build.side (an object with a `then` key would be a thenable). */
type PerSide<T> = [T, T];

/** Samples of one measure: by side, and by side within each timed round. */
class Samples {
  readonly all: PerSide<number[]> = [[], []];
  readonly rounds: PerSide<number[]>[] = [];
  readonly failures: PerSide<string[]> = [[], []];
  readonly answers: PerSide<Set<string>> = [new Set(), new Set()];
  /** The gateway's CPU over the samples, by side and by side within each round (fan-outs only). */
  readonly cpu: PerSide<number> = [0, 0];
  readonly cpuRounds: PerSide<number>[] = [];
  /** The warm-up round's calls and gateway CPU, by side: what a fresh gateway's first calls cost. */
  readonly warm: PerSide<{ calls: number; cpu: number }> = [
    { calls: 0, cpu: 0 },
    { calls: 0, cpu: 0 },
  ];

  add(round: number, side: Build['side'], a: Answer): void {
    if (round === 0) {
      // the warm-up round: not in the medians
      if (a.cpuMs === undefined) return;
      this.warm[side].calls++;
      this.warm[side].cpu += a.cpuMs;
      return;
    }
    this.rounds[round - 1] ??= [[], []];
    this.rounds[round - 1][side].push(a.ms);
    this.all[side].push(a.ms);
    this.answers[side].add(a.answer);
    if (a.cpuMs === undefined) return;
    this.cpuRounds[round - 1] ??= [0, 0];
    this.cpuRounds[round - 1][side] += a.cpuMs;
    this.cpu[side] += a.cpuMs;
  }

  /** now ÷ then of each round's gateway CPU (its samples summed). */
  cpuRatios(): number[] {
    return this.cpuRounds.filter(([t, n]) => t > 0 && n > 0).map(([t, n]) => n / t);
  }

  /** now ÷ then of each round's medians. */
  roundRatios(): number[] {
    return this.rounds.filter(([t, n]) => t.length > 0 && n.length > 0).map(([t, n]) => median(n) / median(t));
  }
}

/** One round: every measure, the sides in `order`, each side's samples of a measure back to back. */
async function runRound(round: number, order: Side[], ms: Measure[], samples: Samples[]): Promise<void> {
  for (const [i, m] of ms.entries()) {
    const took: string[] = [];
    for (const side of order) {
      const n = round === 0 ? Math.max(m.perRound, m.warmCalls ?? 0) : m.perRound;
      for (let k = 0; k < n; k++) {
        try {
          const a = await m.sample(side);
          samples[i].add(round, side.build.side, a);
          took.push(`${side.build.label} ${fmtMs(a.ms)}`);
        } catch (err) {
          const msg = `round ${round}: ${(err as Error).message.split('\n')[0].slice(0, 160)}`;
          samples[i].failures[side.build.side].push(msg);
          log(`${side.build.label} ${m.name}: FAILED ${msg}`);
        }
      }
    }
    log(`round ${round}, ${m.name}: ${took.length > 8 ? `${took.length} calls` : took.join(', ')}`);
  }
}

/** results/structure.md: the table, a target per measure, what was checked. */
function report(builds: PerSide<Build>, ms: Measure[], samples: Samples[], rounds: number): SectionReport {
  const r = new SectionReport(log);
  const [then, now] = builds;
  const rows: string[][] = [];
  r.table({
    title: `Issue 24's fan-out and walk: then (${then.commit}) vs now (${now.commit}), in turns`,
    intro: `Both builds side by side: each its own \`fleetls serve\` (its own gateway, stdio MCP, the SDK client), its own ${REAL_AGENTS} agent processes and one more of its own agents for the walks (with the node flags the shipped agent carries, scripts/package/exec-argv.json, for both); the ${STUB_AGENTS} stub agents (canned 160-row answer, no file system, 4 processes) are the same processes for both gateways. Fan-out: the fan-out section's \`list_files host=all order_by=size sort=descending top_n=10 max_depth=10 type=file\` on tree-10k/deep (~160 entries per host), every host ok, no next_cursor. Walk: the walk section's tree shape (max_depth 64, no cap biting) and ranked (top 100 by size) on the 300k tree, through a grpc-js client that does not decode rows. Samples in turns, ABBA by round (one warm-up round, then ${rounds}): fan-out 3 calls per side per round (${WARM_CALLS} in the warm-up round, whose gateway CPU a note gives), walks 1. Median of all samples; per-round ratios are now ÷ then of each round's medians. A fan-out's gateway CPU is its \`fleetls serve\` process's CPU time during the call (each thread's run time, /proc schedstat, ns): the mean per call, and now ÷ then of the sums, over all samples and per round.`,
    header: ['Measure (median)', `then ${then.commit}`, `now ${now.commit}`, 'now ÷ then', 'per-round now ÷ then'],
    rows,
  });
  for (const [i, m] of ms.entries()) {
    const s = samples[i];
    const t = median(s.all[0]);
    const n = median(s.all[1]);
    const per = s.roundRatios();
    const range = per.length > 0 ? `${ratio(Math.min(...per))}–${ratio(Math.max(...per))}` : '–';
    rows.push([`${m.name} (n=${s.all[0].length}/${s.all[1].length})`, fmtMs(t), fmtMs(n), ratio(n / t), range]);
    r.target(
      `${m.name}: now no slower than then`,
      `${ratio(n / t)} (per round ${range})`,
      Number.isFinite(n / t) ? n / t <= 1 : undefined,
    );
    if (s.cpu[0] > 0 && s.cpu[1] > 0) {
      const cpuPer = s.cpuRatios();
      const cpuRange = cpuPer.length > 0 ? `${ratio(Math.min(...cpuPer))}–${ratio(Math.max(...cpuPer))}` : '–';
      const perCall = (side: 0 | 1) => fmtMs(s.cpu[side] / s.all[side].length);
      rows.push([
        `${m.name}: gateway CPU per call (mean; ratio of the sums)`,
        perCall(0),
        perCall(1),
        ratio(s.cpu[1] / s.all[1].length / (s.cpu[0] / s.all[0].length)),
        cpuRange,
      ]);
      r.target(
        `${m.name}: the gateway's CPU per call, now no more than then`,
        `${ratio(s.cpu[1] / s.all[1].length / (s.cpu[0] / s.all[0].length))} (per round ${cpuRange})`,
        s.cpu[1] / s.all[1].length <= s.cpu[0] / s.all[0].length,
      );
    }
    const [wt, wn] = s.warm;
    if (wt.calls > 0 && wn.calls > 0 && wt.cpu > 0)
      r.note(
        `${m.name}, warm-up (${wt.calls}/${wn.calls} calls, not in the table): the gateway's CPU per call ${fmtMs(wt.cpu / wt.calls)} then, ${fmtMs(wn.cpu / wn.calls)} now (${ratio(wn.cpu / wn.calls / (wt.cpu / wt.calls))}).`,
      );
    for (const b of builds)
      if (s.failures[b.side].length > 0)
        r.note(
          `${m.name}, ${b.label}: ${s.failures[b.side].length} failed (not in the medians): ${s.failures[b.side].slice(0, 3).join('; ')}`,
        );
    const a = [...s.answers[0]].join(' | ');
    const b = [...s.answers[1]].join(' | ');
    r.note(
      `${m.name}: ${a === '' || b === '' ? 'no answer to compare' : a === b ? `both builds answered alike (${a})` : `the answers differ: then ${a}; now ${b}`}.`,
    );
  }
  return r;
}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      // biome-ignore lint/suspicious/noThenProperty: the flag is --then; parseArgs never awaits its options
      then: { type: 'string' },
      now: { type: 'string', default: REPO_ROOT },
      rounds: { type: 'string', default: '8' },
      'budget-min': { type: 'string', default: String(BUDGET_MIN) },
      out: { type: 'string', default: path.join(REPO_ROOT, 'bench') },
      help: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const budgetMs = Number(values['budget-min']) * 60_000;
  if (values.help || values.then === undefined || !Number.isInteger(rounds) || rounds < 1 || !(budgetMs > 0)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  return {
    thenDir: path.resolve(values.then),
    nowDir: path.resolve(values.now),
    rounds,
    budgetMs,
    out: path.resolve(values.out),
  };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const args = parse(process.argv.slice(2));
  const builds: PerSide<Build> = [openBuild(0, args.thenDir), openBuild(1, args.nowDir)];
  const loadAtStart = loadAverage();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-ab-'));
  const trees = new Trees();
  const sides: Side[] = [];
  try {
    const small = path.join((await trees.get('small')).root, 'deep');
    const medium = (await trees.get('medium')).root;
    log(`trees ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const stubs = await Promise.all(
      Array.from({ length: STUB_AGENTS / 50 }, () => startAgentHost('stub', 50, benchDir())),
    );
    const stubAddresses = stubs.flatMap((h) => h.addresses);
    sides.push(...(await Promise.all(builds.map((b) => startSide(b, stubAddresses, REAL_AGENTS, homeIn(scratch))))));
    log(
      `sides up in ${((performance.now() - t0) / 1000).toFixed(0)} s: then ${builds[0].commit}, now ${builds[1].commit}`,
    );
    const ms = measures(small, medium);
    const samples = ms.map(() => new Samples());
    let done = 0;
    let lastMs = 0;
    for (let round = 0; round <= args.rounds; round++) {
      if (round > 0 && performance.now() - t0 + lastMs > args.budgetMs) {
        log(
          `stopping after ${done} of ${args.rounds} rounds: the next would pass the ${args.budgetMs / 60_000} min budget`,
        );
        break;
      }
      const r0 = performance.now();
      // ABBA by round: the warm-up and even rounds then first, odd rounds now first.
      await runRound(round, round % 2 === 0 ? sides : [...sides].reverse(), ms, samples);
      lastMs = performance.now() - r0;
      if (round > 0) done++;
      log(`round ${round}${round === 0 ? ' (warm-up)' : ''} in ${(lastMs / 1000).toFixed(1)} s`);
    }
    const sec = ((performance.now() - t0) / 1000).toFixed(0);
    const treesUsed = [...trees.used.values()].map((t) => `${t.spec.name} (${fmtInt(t.entries)} entries)`).join(', ');
    const how = `Measured ${new Date().toISOString().slice(0, 16)}Z by \`node bench/dist/ab/ab-structure.js --then <build of ${builds[0].commit}> --now <build of ${builds[1].commit}> --rounds ${args.rounds}\` (${done} timed rounds run) in ${sec} s on ${machineLine()}; load average ${loadAtStart} at the start, ${loadAverage()} at the end; trees: ${treesUsed}.`;
    const file = sectionFile(args.out, 'structure');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, report(builds, ms, samples, done).markdown('structure', how));
    process.stdout.write(fs.readFileSync(file, 'utf8'));
    log(`wrote ${path.relative(process.cwd(), file)}; total ${sec} s`);
  } finally {
    await Promise.all(sides.map((s) => s.stop().catch(() => {})));
    killAll();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main()
  .catch((err) => {
    log(`ab-structure failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(() => {
    // grpc channels and timers must not keep the process alive
    setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  });
