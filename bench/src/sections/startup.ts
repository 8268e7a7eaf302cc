// How fast the CLI starts (issue 25 target 3): `fleetls --version` and `fleetls ls
// localhost:/etc` beside a bare `node -e 0`, runs interleaved in one run so that the load
// weighs on all alike; and `fleetls serve` (stdio) from spawn to its answer to MCP initialize,
// for the workspace build, the one-file bundle and the self-contained executable the
// packages ship (the target is the shipped one's, as footprint's agent start is).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { loadAverage } from '../helpers/machine.js';
import { GATEWAY_MAIN, REPO_ROOT } from '../helpers/proc.js';
import { fmtMs, median } from '../helpers/stats.js';

export const name = 'startup';
export const limitMs = (_args: BenchArgs): number => 3 * 60_000;

const RUNS = 9;

/** `command` is node with its arguments, or an executable with its own. */
function wallMs(command: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(command[0], command.slice(1), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FLEETLS_INVENTORY: '' },
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${command.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

interface Ready {
  ms: number;
  /** The process's user + system CPU up to that answer (/proc/PID/stat), less bent by the load than wall time. */
  cpuMs: number;
}

/** The child's user + system CPU so far, in ms (clock ticks of 10 ms on Linux). */
function cpuOf(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Spawn to the first line `fleetls serve` writes in answer to an MCP initialize request. */
function serveReady(command: string[]): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command[0], [...command.slice(1), 'serve'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, FLEETLS_INVENTORY: '' },
    });
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      const ms = performance.now() - t0;
      const cpuMs = cpuOf(child.pid as number);
      child.kill();
      if (/"id":1/.test(out)) resolve({ ms, cpuMs });
      else reject(new Error(`serve answered ${out.slice(0, 200)}`));
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`serve exited ${code} before answering`));
    });
  });
}

export async function run(ctx: BenchContext): Promise<void> {
  const load = loadAverage();
  const out = ctx.home('startup-package');
  execFileSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts/package/main.mjs'), '--out', out, '--only', 'bundles,exe'],
    {
      stdio: 'ignore',
    },
  );
  const node = process.execPath;
  // The target is the workspace build's row (the first `ls`); the bundle and the executable
  // the packages ship run the same command in the same turns, beside it.
  const cases: [string, string[]][] = [
    ['node -e 0 (anchor)', [node, '-e', '0']],
    ['fleetls --version', [node, GATEWAY_MAIN, '--version']],
    ['fleetls ls localhost:/etc', [node, GATEWAY_MAIN, 'ls', 'localhost:/etc']],
    ['fleetls ls localhost:/etc: one-file bundle', [node, path.join(out, 'fleetls.mjs'), 'ls', 'localhost:/etc']],
    ['fleetls ls localhost:/etc: shipped executable', [path.join(out, 'fleetls'), 'ls', 'localhost:/etc']],
  ];
  const times: number[][] = cases.map(() => []);
  for (const [, command] of cases) wallMs(command); // warm the page cache
  for (let i = 0; i < RUNS; i++) {
    // In turns, the order reversed every other turn: a load that rises or falls weighs on all alike.
    const order = [...cases.keys()];
    if (i % 2 === 1) order.reverse();
    for (const k of order) times[k].push(wallMs(cases[k][1]));
  }
  const serves: [string, string[]][] = [
    ['fleetls serve, ready: workspace build (packages/gateway/dist)', [process.execPath, GATEWAY_MAIN]],
    ['fleetls serve, ready: one-file bundle (dist/fleetls.mjs)', [process.execPath, path.join(out, 'fleetls.mjs')]],
    ['fleetls serve, ready: shipped executable (dist/fleetls)', [path.join(out, 'fleetls')]],
  ];
  const serve: Ready[][] = serves.map(() => []);
  for (const [, command] of serves) await serveReady(command); // the page cache again
  for (let i = 0; i < 5; i++) {
    for (const [k, [, command]] of serves.entries()) serve[k].push(await serveReady(command));
  }
  const [anchor, version, ls] = times.map(median);
  const readyOf = (k: number) => median(serve[k].map((r) => r.ms));
  const ready = readyOf(serves.length - 1);
  ctx.report.table({
    title: 'CLI start',
    intro: `Wall time from spawn to exit, median of ${RUNS} runs in turns with the anchor's, the order reversed every other turn (no inventory: localhost is the embedded agent; the target is the workspace build's ls, the bundle's and the executable's run beside it); serve: spawn to its answer to MCP initialize over stdio, median of 5 runs of each build in turns, and the CPU (user + system) it had used by then. Load average at start ${load}, at end ${loadAverage()}.`,
    header: ['Command', 'Wall (median)', 'Ratio to node -e 0', 'CPU to ready (median)'],
    rows: [
      ...cases.map(([label], k) => [label, fmtMs(median(times[k])), `${(median(times[k]) / anchor).toFixed(2)}×`, '']),
      ...serves.map(([label], k) => [
        label,
        fmtMs(readyOf(k)),
        `${(readyOf(k) / anchor).toFixed(2)}×`,
        fmtMs(median(serve[k].map((r) => r.cpuMs))),
      ]),
    ],
  });
  ctx.report.target('fleetls --version ≤ 2× node -e 0', `${(version / anchor).toFixed(2)}×`, version <= 2 * anchor);
  ctx.report.target('fleetls ls localhost:/etc ≤ 5× node -e 0', `${(ls / anchor).toFixed(2)}×`, ls <= 5 * anchor);
  ctx.report.target('fleetls serve ready ≤ 500 ms (as shipped)', fmtMs(ready), ready <= 500);
}
