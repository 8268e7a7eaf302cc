// A hostile directory for the hostile section: 1,000,000 empty files in one directory, every
// one tied on size, ranked by size through a real agent (this build, with the node flags the
// shipped executable carries) as `ls HOST:DIR --order-by size --desc --top-n N` asks it
// (issue 35, F6). With the native module loaded (as this build has it) the agent's walk worker
// reads the directory with the packed reader (getdents64 and statx into one Buffer,
// agent fs/packed-dir.ts) and keeps as objects only the entries that can still rank; no find
// or awk runs (find/route.ts), and one flat directory gives the ranked helper thread nothing to
// share. Memory is the agent's resident set (all its threads) plus any children's, as its
// unit's cgroup counts it (MemoryMax=256M), sampled every 50 ms: children only where the find
// route runs (no native module, or FLEETLS_FIND_AFTER_ENTRIES set).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type AgentClient, loadContract, type WireWalkRequest } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import type { BenchContext } from '../context.js';
import { memoryOf, shippedAgentNodeFlags, startAgent } from '../helpers/proc.js';
import { fmtBytes, fmtMs } from '../helpers/stats.js';
import { benchDir } from '../trees.js';

const FILES = 1_000_000;
const MIB = 1024 * 1024;

/** The directory, made once and kept with the bench's trees (a marker says it is whole). */
function millionDir(log: (s: string) => void): string {
  const dir = path.join(benchDir(), 'million-flat', 'million');
  const marker = path.join(benchDir(), 'million-flat', `.complete-${FILES}`);
  if (fs.existsSync(marker)) return dir;
  log(`hostile: making ${FILES} empty files in ${dir} (once)`);
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILES; i++) fs.closeSync(fs.openSync(path.join(dir, `f${String(i).padStart(7, '0')}`), 'w'));
  fs.writeFileSync(marker, '');
  return dir;
}

/** Resident bytes of `pid` and of every child of its threads (find and awk, where the find route runs). */
function residentWithChildren(pid: number): number {
  let total = memoryOf(pid)?.rss ?? 0;
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      let children: string[] = [];
      try {
        children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      } catch {
        // the thread ended
      }
      for (const c of children) total += memoryOf(Number(c))?.rss || 0;
    }
  } catch {
    // the agent ended
  }
  return total;
}

function walk(client: AgentClient, req: WireWalkRequest): Promise<string> {
  return new Promise((resolve) => {
    let rows = 0;
    const call = client.Walk(req, new grpc.Metadata(), { deadline: Date.now() + 300_000 });
    call.on('data', (m: { rows: unknown[] }) => {
      rows += m.rows.length;
    });
    call.on('error', (err: grpc.ServiceError) => resolve(`${grpc.status[err.code]}: ${err.details.slice(0, 90)}`));
    call.on('end', () => resolve(`${rows} rows`));
  });
}

interface Case {
  topN: number;
  offset: number;
  calls: number;
}

const CASES: Case[] = [
  { topN: 10, offset: 0, calls: 1 },
  { topN: 10, offset: 0, calls: 4 },
  { topN: 1000, offset: 99_000, calls: 1 },
  { topN: 1000, offset: 99_000, calls: 4 },
  { topN: 1000, offset: 999_000, calls: 1 },
];

/** The million-file ranked walks: a table, and the targets of issue 35 (F6). */
export async function rankedMillion(ctx: BenchContext): Promise<void> {
  const dir = millionDir(ctx.log);
  const rows: string[][] = [];
  ctx.report.table({
    title: 'Ranked walks of a directory of 1,000,000 equal files (issue 35, F6)',
    intro:
      "One agent (this build, the shipped executable's node flags), `Walk` ranked by size descending, depth 1; " +
      'read by the native packed reader, only entries that can still rank kept as objects (no find or awk runs); ' +
      "memory is the agent's resident set plus any children (the unit's cgroup), peak of 50 ms samples, above the idle agent.",
    header: ['top_n', 'offset', 'Calls at once', 'Answers', 'Peak above idle', 'Peak total', 'Wall time'],
    rows,
  });
  let single = 0;
  let together = 0;
  for (const c of CASES) {
    const agent = await startAgent([path.dirname(dir)], { nodeFlags: shippedAgentNodeFlags(), timeoutMs: 60_000 });
    const { proto } = loadContract();
    const client = new proto.fleetls.v1.Agent(
      agent.address,
      grpc.credentials.createInsecure(),
    ) as unknown as AgentClient;
    try {
      const idle = residentWithChildren(agent.pid);
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, residentWithChildren(agent.pid));
      }, 50);
      const started = performance.now();
      ctx.log(`hostile: top ${c.topN} at offset ${c.offset}, ${c.calls} at once`);
      const req: WireWalkRequest = {
        path: dir,
        shape: 'SHAPE_RANKED',
        order: 'ORDER_SIZE',
        direction: 'DIRECTION_DESCENDING',
        topN: c.topN,
        offset: c.offset,
        maxDepth: 1,
        deadlineMs: 120_000,
      };
      const answers = await Promise.all(Array.from({ length: c.calls }, () => walk(client, req)));
      const ms = performance.now() - started;
      clearInterval(sampler);
      peak = Math.max(peak, residentWithChildren(agent.pid));
      const counted = [...new Set(answers)].map((a) => `${answers.filter((x) => x === a).length}× ${a}`).join('; ');
      rows.push([
        String(c.topN),
        String(c.offset),
        String(c.calls),
        counted,
        fmtBytes(peak - idle),
        fmtBytes(peak),
        fmtMs(ms),
      ]);
      if (c.calls === 1 && c.offset < 999_000) single = Math.max(single, peak - idle);
      if (c.calls === 4) together = Math.max(together, peak);
    } finally {
      client.close();
      await agent.stop();
    }
  }
  ctx.report.target(
    'a ranked walk of 1,000,000 entries: ≤ 128 MiB above the idle agent',
    fmtBytes(single),
    single <= 128 * MIB,
  );
  ctx.report.target('four such calls at once: within MemoryMax=256M', fmtBytes(together), together <= 256 * MIB);
}
