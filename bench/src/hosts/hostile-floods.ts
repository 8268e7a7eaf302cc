// Issue 35 F2 as the bench measures it: hostile hosts in a real `fleetls serve`'s fleet that
// send far more than asked (flood-hosts.ts, in a process of their own). Over gRPC, a fake agent
// (a grpc-js Agent server honouring backpressure) answers one Walk with 999 messages of 8,000
// rows; over NATS, a responder registered as web-1 answers with 600 slices ignoring Acks (of
// 953 KiB, as the attack, and of CHUNK_BYTES, which only the window and the rows can
// refuse). A real agent (`calm`) sits beside them and is asked Stat every 100 ms while each
// flood runs. Each row is a fresh gateway: its peak RSS (VmHWM) is that flood's.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHUNK_BYTES } from '@fleetls/runtime/nats';
import { freePort } from '@fleetls/testkit';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startFleetls } from '../helpers/mcp.js';
import { startAgent, track, untrack, withTimeout } from '../helpers/proc.js';
import { fmtBytes, fmtMs, quantile } from '../helpers/stats.js';
import { type FloodSeen, MESSAGES, ROWS_PER_MESSAGE, SLICES } from './flood-hosts.js';

const BIG_SLICE = 953 * 1024;
/** The bounds: the gateway's peak, the call, and Stat to another host meanwhile. */
const PEAK_BOUND = 256 * 1024 ** 2;
const CALL_BOUND_MS = 40_000;
const STAT_P99_BOUND_MS = 100;
/** Stat to the other host is asked every 100 ms for at least this long from the call's start. */
const STAT_WINDOW_MS = 5000;

interface FloodRow {
  what: string;
  call: string;
  host: string;
  /** What the flooding host has sent so far, asked of its process. */
  seen: () => Promise<FloodSeen>;
  of: number;
}

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'flood-hosts-main.js');

/** flood-hosts-main.js on NATS `url`: the gRPC flood's address, and its counts on request. */
async function startFloodHosts(url: string) {
  const child: ChildProcess = spawn(process.execPath, [MAIN, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  track(child.pid);
  const waiting: ((line: string) => void)[] = [];
  let buffered = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      waiting.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const first = JSON.parse(await withTimeout(next(), 60_000, 'the flood hosts')) as { address: string };
  const ask = async (line: string) => {
    const answer = next();
    child.stdin?.write(`${line}\n`);
    return JSON.parse(await answer) as { grpc: FloodSeen; nats: FloodSeen };
  };
  return {
    address: first.address,
    ask,
    stop() {
      child.stdin?.end();
      untrack(child.pid);
    },
  };
}

/** One flood on a fresh gateway: the call's time and answer, Stat to `calm` meanwhile, the gateway's peak. */
async function measure(
  ctx: BenchContext,
  start: () => Promise<McpServerProc>,
  row: FloodRow,
  args: Record<string, unknown>,
  tool: string,
  calmPath: string,
): Promise<{ ok: boolean; cells: string[] }> {
  const gw = await start();
  try {
    if (row.host === 'web-1') {
      // The registry's first read may come before web-1's registration.
      for (let i = 0; i < 60; i++) {
        const r = await gw.call('list_hosts', { host: 'web-1' });
        if (!r.isError && /web-1/.test(r.text)) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    await gw.call('stat', { host: 'calm', path: calmPath });
    const stats: number[] = [];
    let flooding = true;
    const statLoop = (async () => {
      while (flooding) {
        const r = await gw.call('stat', { host: 'calm', path: calmPath });
        stats.push(r.isError ? Number.POSITIVE_INFINITY : r.ms);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const before = (await row.seen()).written;
    const began = performance.now();
    const r = await gw.call(tool, args, 120_000);
    // Stat goes on a while after the call: a host cut off may still be sending (NATS
    // delivers what it publishes to the gateway's connection, read and dropped there).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, began + STAT_WINDOW_MS - performance.now())));
    flooding = false;
    await statLoop;
    const hwm = gw.memory()?.hwm ?? Number.NaN;
    const hosts = (r.structured?.hosts ?? []) as { host: string; status: string; message?: string }[];
    const h = hosts.find((x) => x.host === row.host);
    const statP99 = stats.length > 0 ? quantile(stats, 0.99) : Number.NaN;
    const ok = hwm <= PEAK_BOUND && r.ms <= CALL_BOUND_MS && statP99 <= STAT_P99_BOUND_MS && h?.status === 'error';
    ctx.log(`hostile flood ${row.what}: ${fmtMs(r.ms)}, peak ${fmtBytes(hwm)}, ${h?.status}: ${h?.message}`);
    return {
      ok,
      cells: [
        row.what,
        row.call,
        `${h?.status ?? '–'}: ${(h?.message ?? '').replace(/\|/g, '\\|').slice(0, 160)}`,
        `${((await row.seen()).written - before).toLocaleString('en-US')} of ${row.of.toLocaleString('en-US')}`,
        fmtMs(r.ms),
        fmtBytes(hwm),
        `${stats.length}: p50 ${fmtMs(quantile(stats, 0.5))}, p99 ${fmtMs(statP99)}`,
      ],
    };
  } finally {
    await gw.close();
  }
}

/** The floods' table and target in the `hostile` section. */
export async function runFloods(ctx: BenchContext): Promise<void> {
  const dir = ctx.home('hostile-floods');
  const tree = path.join(dir, 'tree');
  fs.mkdirSync(path.join(tree, 'sub'), { recursive: true });
  for (const f of ['a.txt', 'b.txt', 'sub/c.txt']) fs.writeFileSync(path.join(tree, f), f);
  const calm = await startAgent([tree]);
  const port = await freePort();
  const conf = path.join(dir, 'nats.conf');
  fs.writeFileSync(conf, `listen: 127.0.0.1:${port}\njetstream { store_dir: "${path.join(dir, 'js')}" }\n`);
  const nats = spawn('nats-server', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(nats.pid);
  let natsOut = '';
  await withTimeout(
    new Promise<void>((resolve) => {
      const on = (d: Buffer) => {
        natsOut += d.toString();
        if (/Server is ready/.test(natsOut)) resolve();
      };
      nats.stdout?.on('data', on);
      nats.stderr?.on('data', on);
    }),
    30_000,
    'nats-server',
  );
  const url = `nats://127.0.0.1:${port}`;
  const floods = await startFloodHosts(url);
  const inventory = path.join(dir, 'fleetls.yaml');
  fs.writeFileSync(
    inventory,
    [
      'hosts:',
      `  calm: { agent: "${calm.address}" }`,
      `  flood: { agent: "${floods.address}" }`,
      'agent_tls: insecure',
      '',
    ].join('\n'),
  );
  const start = () => startFleetls({ inventory, cwd: dir, home: dir, extraArgs: ['--nats', url] });
  const rowsOut: string[][] = [];
  ctx.report.table({
    title: 'Hostile hosts: floods (issue 35, F2)',
    intro: `A fake agent in the inventory (a grpc-js Agent server honouring backpressure) answers one Walk with ${MESSAGES} messages of ${ROWS_PER_MESSAGE.toLocaleString('en-US')} rows; a NATS responder registered as web-1 answers with ${SLICES} slices ignoring Acks. A real agent (\`calm\`) beside them is asked Stat every 100 ms from each call's start, for at least ${STAT_WINDOW_MS / 1000} s. Each row is a fresh \`fleetls serve\` (stdio); peak = its VmHWM after the call. Bounds (the issue's): peak ≤ ${fmtBytes(PEAK_BOUND)}, call ≤ ${fmtMs(CALL_BOUND_MS)}, Stat p99 ≤ ${STAT_P99_BOUND_MS} ms, the flooding host an \`error\` row.`,
    header: [
      'Flood',
      'Call',
      'Flooding host',
      'Sent by the host',
      'Call time',
      'Gateway peak',
      'Stat to calm (n: p50, p99)',
    ],
    rows: rowsOut,
  });
  let met = 0;
  let total = 0;
  const grpcRow = (call: string): FloodRow => ({
    what: `gRPC, ${MESSAGES} × ${ROWS_PER_MESSAGE.toLocaleString('en-US')} rows`,
    call,
    host: 'flood',
    seen: async () => (await floods.ask('report')).grpc,
    of: MESSAGES,
  });
  const natsRow = (what: string, call: string): FloodRow => ({
    what,
    call,
    host: 'web-1',
    seen: async () => (await floods.ask('report')).nats,
    of: SLICES,
  });
  const runs: [FloodRow, string, Record<string, unknown>, number][] = [
    [grpcRow('list_directory depth=1'), 'list_directory', { host: 'calm,flood', path: tree, depth: 1 }, 0],
    [
      grpcRow('list_files order_by=size top_n=10'),
      'list_files',
      { host: 'calm,flood', path: tree, order_by: 'size', sort: 'descending', top_n: 10 },
      0,
    ],
    [
      natsRow(`NATS, ${SLICES} slices of ${fmtBytes(BIG_SLICE)}`, 'list_directory depth=1'),
      'list_directory',
      { host: 'calm,web-1', path: tree, depth: 1 },
      BIG_SLICE,
    ],
    [
      natsRow(`NATS, ${SLICES} slices of ${fmtBytes(CHUNK_BYTES)}`, 'list_directory depth=1'),
      'list_directory',
      { host: 'calm,web-1', path: tree, depth: 1 },
      CHUNK_BYTES,
    ],
    [
      natsRow(`NATS, ${SLICES} slices of ${fmtBytes(CHUNK_BYTES)}`, 'list_files order_by=size top_n=10'),
      'list_files',
      { host: 'calm,web-1', path: tree, order_by: 'size', sort: 'descending', top_n: 10 },
      CHUNK_BYTES,
    ],
  ];
  try {
    for (const [row, tool, args, slice] of runs) {
      if (slice > 0) await floods.ask(`slice ${slice}`);
      total++;
      try {
        const m = await measure(ctx, start, row, args, tool, tree);
        rowsOut.push(m.cells);
        if (m.ok) met++;
      } catch (err) {
        rowsOut.push([row.what, row.call, `failed: ${(err as Error).message.slice(0, 200)}`, '–', '–', '–', '–']);
      }
    }
  } finally {
    floods.stop();
    await calm.stop();
    nats.kill('SIGKILL');
    untrack(nats.pid);
  }
  ctx.report.target(
    `floods: the flooding host an error row, gateway peak ≤ ${fmtBytes(PEAK_BOUND)}, call ≤ ${fmtMs(CALL_BOUND_MS)}, Stat to another host p99 ≤ ${STAT_P99_BOUND_MS} ms`,
    `${met} of ${total} floods within every bound`,
    met === total,
  );
}
