// The agent's footprint as installed: start to SERVING, idle RSS, peak RSS over a full
// walk of the 300k tree, for the workspace build and the one-file bundle (run by this
// machine's node), and the self-contained executable the packages ship (dist/fleetls-agent,
// its own Node runtime and V8 flags inside), started as the unit's ExecStart starts it.
// node_exporter's published footprint is the anchor.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { AGENT_MAIN, memoryOf, REPO_ROOT, shippedAgentNodeFlags, track } from '../helpers/proc.js';
import { fmtBytes, fmtInt, fmtMs } from '../helpers/stats.js';

export const name = 'footprint';
// Packaging the executables alone takes about a minute; at load 20 the whole section took 233 s.
export const limitMs = (_args: BenchArgs): number => 9 * 60_000;

const MiB = 1024 * 1024;
const UNIT = path.join(REPO_ROOT, 'deploy/systemd/fleetls-agent.service');

type Health = grpc.Client & {
  Check(req: { service: string }, opts: grpc.CallOptions, cb: (e: Error | null, r?: { status: string }) => void): void;
};

async function untilServing(address: string, deadline: number): Promise<void> {
  const { service } = await import('grpc-health-check');
  const Ctor = grpc.makeGenericClientConstructor(service, 'Health');
  const client = new Ctor(address, grpc.credentials.createInsecure()) as unknown as Health;
  try {
    while (Date.now() < deadline) {
      const status = await new Promise<string | undefined>((resolve) =>
        client.Check({ service: '' }, { deadline: Date.now() + 1000 }, (e, r) => resolve(e ? undefined : r?.status)),
      );
      if (status === 'SERVING') return;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`not SERVING at ${address}`);
  } finally {
    client.close();
  }
}

interface Measured {
  startMs: number;
  idle: number;
  peak: number;
  walkMs: number;
  rows: number;
}

/** `command` is node with a program and its flags, or the executable alone. */
async function measure(command: string[], root: string, allow: string): Promise<Measured> {
  const t0 = performance.now();
  const [exe, ...pre] = command as [string, ...string[]];
  const child: ChildProcess = spawn(
    exe,
    [...pre, '--config', '/dev/null', '--listen', '127.0.0.1:0', '--insecure-loopback', '--allow', allow],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  track(child.pid);
  try {
    let buf = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr?.on('data', (c: Buffer) => {
        buf += c.toString();
        const m = /"port":(\d+)/.exec(buf);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`agent exited (${code}): ${buf.slice(-300)}`)));
    });
    const address = `127.0.0.1:${port}`;
    await untilServing(address, Date.now() + 30_000);
    const startMs = performance.now() - t0;
    // Idle: settled after start, before any walk (so no walk worker thread).
    await new Promise((r) => setTimeout(r, 3000));
    const idle = memoryOf(child.pid!)?.rss ?? Number.NaN;
    const { proto } = loadContract();
    const client = new proto.fleetls.v1.Agent(address, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': 64 * MiB,
    });
    const tw = performance.now();
    let rows = 0;
    await new Promise<void>((resolve, reject) => {
      const call = client.Walk({
        path: root,
        maxDepth: 64,
        maxItemsPerDir: 100_000,
        maxEntries: 1_000_000,
        deadlineMs: 120_000,
        shape: 'SHAPE_TREE',
        order: 'ORDER_NAME',
      });
      call.on('data', (m: { rows: unknown[] }) => {
        rows += m.rows.length;
      });
      call.on('error', reject);
      call.on('end', () => resolve());
    });
    const walkMs = performance.now() - tw;
    client.close();
    const peak = memoryOf(child.pid!)?.hwm ?? Number.NaN;
    return { startMs, idle, peak, walkMs, rows };
  } finally {
    // Gone before the caller drops the executable's page cache: pages a dying process still
    // maps are not dropped, and the next row would start with all of them cached.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const t = await ctx.tree('medium');
  const out = ctx.home('footprint-bundle');
  execFileSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts/package/main.mjs'), '--out', out, '--only', 'bundles,exe'],
    { stdio: 'ignore' },
  );
  const bundle = path.join(out, 'fleetls-agent.mjs');
  const shipped = path.join(out, 'fleetls-agent');
  // The unit runs the executable itself, with no node flags: they are inside it.
  const execStart = fs
    .readFileSync(UNIT, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ExecStart='));
  if (!execStart?.startsWith('ExecStart=/usr/bin/fleetls-agent --config')) {
    throw new Error(`footprint: the unit no longer runs /usr/bin/fleetls-agent (${execStart}); measure what it runs`);
  }
  const node = process.execPath;
  // The flags the shipped executable carries (scripts/package/exec-argv.json).
  const flags = shippedAgentNodeFlags();
  const variants: [string, string[]][] = [
    [`workspace build (packages/agent/dist/main.js, node ${process.version})`, [node, AGENT_MAIN]],
    [`one-file bundle (dist/fleetls-agent.mjs, node ${process.version})`, [node, bundle]],
    [`one-file bundle, ${flags.join(' ')} (node ${process.version})`, [node, ...flags, bundle]],
    ['shipped: self-contained executable (dist/fleetls-agent, as the unit runs it)', [shipped]],
  ];
  const results: [string, Measured][] = [];
  for (const [label, command] of variants) {
    ctx.log(`footprint: ${label}`);
    results.push([label, await measure(command, t.root, path.dirname(t.root))]);
  }
  // RSS counts the executable's mapped pages, and the kernel maps up to 16 pages around each
  // one faulted in when they are in the page cache: all of them, for a file just written (by
  // this build, or by dpkg before the unit starts). With its pages dropped first, the agent
  // maps only what it reads, as after a reboot. GNU dd's documented way to drop one file's cache.
  ctx.log('footprint: shipped, page cache of the executable dropped');
  // Written back first (its pages must be clean to be dropped), by sync rather than dd's
  // oflag: opening an executable for writing fails (ETXTBSY) while the last agent is still exiting.
  execFileSync('sync', [shipped], { stdio: 'ignore' });
  execFileSync('dd', [`if=${shipped}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' });
  const cold = await measure([shipped], t.root, path.dirname(t.root));
  ctx.report.table({
    title: `Agent footprint (${fmtInt(t.entries)}-entry tree)`,
    intro:
      'Start to SERVING: spawn until grpc.health.v1 Check answers SERVING. Idle RSS: 3 s after that (no walk worker yet: the first walk starts one, kept 30 s idle). Peak RSS: VmHWM after one full tree-shape Walk (max_depth 64, no cap bites), read by a raw grpc-js client. One run each. RSS counts the mapped file pages of the executable too: the shipped row runs it right after it was written (every page in the page cache, so the kernel maps up to 16 around each page faulted in, as right after a package install); the row after it runs it again with its page cache dropped first (`dd iflag=nocache`), as after a reboot. Anchor: node_exporter, one static Go binary, runs in about 15 MiB RSS (its published footprint, as the issue quotes it); a bare `node` is about 39 MiB on this machine, 51 MiB with one idle worker thread, before any fleetls code.',
    header: ['Agent', 'Start to SERVING', 'Idle RSS', 'Peak RSS (full walk)', 'Walk', 'Rows'],
    rows: [
      ...results.map(([label, m]) => [
        label,
        fmtMs(m.startMs),
        fmtBytes(m.idle),
        fmtBytes(m.peak),
        fmtMs(m.walkMs),
        fmtInt(m.rows),
      ]),
      [
        'shipped, its page cache dropped first (as after a reboot)',
        fmtMs(cold.startMs),
        fmtBytes(cold.idle),
        fmtBytes(cold.peak),
        fmtMs(cold.walkMs),
        fmtInt(cold.rows),
      ],
      ['node_exporter (anchor, published)', '—', '≈ 15 MiB', '—', '—', '—'],
    ],
  });
  // Issue 39's memory targets are judged on the executable as it starts after a reboot (its page
  // cache dropped): the state the figures were taken in. Right after it was written the
  // kernel maps ~17 MiB more of its file pages around each fault (the row above), which a bare
  // `node` of the same runtime shows too. The start is judged as the unit starts it just written.
  const asShipped = results.at(-1)![1];
  ctx.report.target(
    'Agent idle RSS ≤ 64 MiB (as shipped, page cache dropped)',
    fmtBytes(cold.idle),
    cold.idle <= 64 * MiB,
  );
  ctx.report.target(
    'Agent peak RSS ≤ 128 MiB over a full 300k walk (as shipped, page cache dropped)',
    fmtBytes(cold.peak),
    cold.peak <= 128 * MiB,
  );
  ctx.report.target('Agent start to SERVING ≤ 500 ms (as shipped)', fmtMs(asShipped.startMs), asShipped.startMs <= 500);
}
