// `npm run bench`: fleetls beside find and the peer MCP servers, in one run, on generated trees.
// Writes bench/RESULTS.md and prints the same markdown. Flags:
//   --full            also the ~1M-entry tree (or FLEETLS_BENCH_FULL=1)
//   --only a,b        sections: walk, mcp, topn, fanout, ssh
//   --fanout 1,10,50,200   agent counts for the fan-out section
//   --runs N          timed runs after the warm-up (default 5)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import {
  type CallOutcome,
  type McpServerProc,
  STOCK_CLIENT_LIMIT,
  startDesktopCommander,
  startFleetls,
  startServerFilesystem,
} from './mcp.js';
import {
  type AgentHostProc,
  type AgentProc,
  killAll,
  memoryOf,
  REPO_ROOT,
  sh,
  startAgent,
  startAgentHost,
  TimeoutError,
  withTimeout,
} from './proc.js';
import { fmtBytes, fmtInt, fmtMs, fmtRate, median, sampled } from './stats.js';
import { benchDir, ensureTree, TREE_SPECS, type Tree } from './trees.js';

// ---------- arguments ----------
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const opt = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const FULL = flag('--full') || process.env.FLEETLS_BENCH_FULL === '1';
const RUNS = Number(opt('--runs') ?? 5);
const ONLY = new Set((opt('--only') ?? 'walk,mcp,topn,fanout,ssh').split(','));
const FANOUT = (opt('--fanout') ?? '1,10,50,200').split(',').map(Number);
const LOAD_START = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const OUT = opt('--out') ?? path.join(REPO_ROOT, 'bench', 'RESULTS.md');

// ---------- report ----------
interface Table {
  title: string;
  intro?: string;
  header: string[];
  rows: string[][];
}
const tables: Table[] = [];
const targets: { name: string; measured: string; ok: boolean | undefined }[] = [];
const notes: string[] = [];
const log = (s: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const verdict = (ok: boolean | undefined) => (ok === undefined ? '– not measured' : ok ? '✅' : '❌');
const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');

function table(t: Table): Table {
  tables.push(t);
  return t;
}
function target(name: string, measured: string, ok: boolean | undefined): void {
  targets.push({ name, measured, ok });
  log(`target ${verdict(ok)} ${name}: ${measured}`);
}

/** Runs one section with a time limit; a failure becomes a "not measured" note. */
async function section(name: string, limitMs: number, fn: () => Promise<void>): Promise<void> {
  if (!ONLY.has(name)) return;
  log(`section ${name} (limit ${Math.round(limitMs / 1000)} s)`);
  const t0 = performance.now();
  try {
    await withTimeout(fn(), limitMs, `section ${name}`);
  } catch (err) {
    const msg = err instanceof TimeoutError ? err.message : ((err as Error).stack ?? String(err));
    notes.push(`**${name}**: not measured (or cut short): ${msg.split('\n').slice(0, 3).join(' ')}`);
    log(`section ${name} failed: ${msg}`);
  }
  log(`section ${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

function machine(): string[][] {
  const cpus = os.cpus();
  const osRelease = (() => {
    try {
      return /PRETTY_NAME="([^"]+)"/.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
    } catch {
      return '';
    }
  })();
  const fsType = (() => {
    try {
      return execFileSync('df', ['-T', benchDir()], { encoding: 'utf8' }).split('\n')[1]?.split(/\s+/)[1] ?? '?';
    } catch {
      return '?';
    }
  })();
  return [
    ['CPU', `${cpus[0]?.model ?? '?'} × ${cpus.length}`],
    ['RAM', fmtBytes(os.totalmem())],
    ['Node', process.version],
    ['Kernel', `${os.type()} ${os.release()}${osRelease ? ` (${osRelease})` : ''}`],
    ['Trees on', `${fsType} (${benchDir().startsWith(os.tmpdir()) ? 'os.tmpdir()' : 'FLEETLS_BENCH_DIR'})`],
    ['Date', new Date().toISOString()],
    [
      'Load average at start / end',
      `${LOAD_START} / ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    ],
    ['User', process.getuid?.() === 0 ? 'root' : 'non-root'],
  ];
}

// ---------- helpers ----------
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-bench-run-'));
const home = (name: string) => {
  const d = path.join(scratch, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
};

/** Rows of each answer shape, counted the same way for every tool. */
function countEntries(tool: string, o: CallOutcome): number {
  if (o.isError) return 0;
  const s = o.structured as Record<string, unknown> | undefined;
  if (tool === 'fleetls:list_directory' && Array.isArray(s?.entries))
    return (s.entries as { hidden?: unknown }[]).filter((e) => e.hidden === undefined).length;
  if (tool === 'fleetls:list_files' && Array.isArray(s?.items)) return (s.items as unknown[]).length;
  if (tool === 'server-filesystem:directory_tree') {
    try {
      const walkNodes = (ns: { children?: unknown[] }[]): number =>
        ns.reduce((n, c) => n + 1 + (Array.isArray(c.children) ? walkNodes(c.children as never) : 0), 0);
      return walkNodes(JSON.parse(o.text));
    } catch {
      return 0;
    }
  }
  return o.text.split('\n').filter((l) => /^\[(DIR|FILE)\]/.test(l)).length;
}

interface ToolRun {
  server: string;
  tool: string;
  args: string;
  ms: number;
  runs: number;
  entries: number;
  textBytes: number;
  jsonBytes: number;
  error?: string;
}

async function timeTool(
  srv: McpServerProc,
  tool: string,
  args: Record<string, unknown>,
  label: string,
  timeoutMs = 150_000,
): Promise<ToolRun> {
  const key = `${srv.name}:${tool}`;
  try {
    const s = await sampled(async () => {
      const o = await srv.call(tool, args, timeoutMs);
      if (o.isError) throw new Error(`${key} returned an error: ${o.text.slice(0, 300)}`);
      return o;
    }, RUNS);
    const r = {
      server: srv.name,
      tool,
      args: label,
      ms: s.ms,
      runs: s.runs,
      entries: countEntries(key, s.sample),
      textBytes: s.sample.textBytes,
      jsonBytes: s.sample.jsonBytes,
    };
    log(`${key} ${label}: ${fmtMs(r.ms)}, ${r.entries} entries, ${fmtBytes(r.textBytes)} text`);
    return r;
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0].slice(0, 200);
    log(`${key} ${label}: FAILED ${msg}`);
    return {
      server: srv.name,
      tool,
      args: label,
      ms: Number.NaN,
      runs: 0,
      entries: 0,
      textBytes: Number.NaN,
      jsonBytes: Number.NaN,
      error: msg,
    };
  }
}

function toolRow(tree: string, r: ToolRun): string[] {
  if (r.error) return [tree, r.server, `${r.tool} ${r.args}`, `failed: ${r.error}`, '', '', '', '', ''];
  return [
    tree,
    r.server,
    `${r.tool} ${r.args}`,
    `${fmtMs(r.ms)} (n=${r.runs})`,
    fmtInt(r.entries),
    fmtRate(r.entries / (r.ms / 1000)),
    fmtBytes(r.textBytes),
    r.entries > 0 ? (r.textBytes / r.entries).toFixed(1) : '–',
    `${fmtBytes(r.jsonBytes)}${r.jsonBytes > STOCK_CLIENT_LIMIT ? ' ⚠ over the stock client’s 10 MiB: it drops the connection' : ''}`,
  ];
}

// ---------- trees ----------
const trees: { small?: Tree; medium?: Tree; large?: Tree } = {};

// ---------- 1. agent Walk vs find ----------
type WalkClient = grpc.Client & {
  Walk(req: Record<string, unknown>, opts: grpc.CallOptions): grpc.ClientReadableStream<Record<string, unknown>>;
};

function walkClient(address: string): WalkClient {
  const { proto } = loadContract();
  const Ctor = proto.fleetls.v1.Agent as unknown as new (
    a: string,
    c: grpc.ChannelCredentials,
    o: Record<string, unknown>,
  ) => WalkClient;
  return new Ctor(address, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
}

function walkOnce(client: WalkClient, req: Record<string, unknown>) {
  return new Promise<{ ms: number; entries: number; seen: number; truncations: number }>((resolve, reject) => {
    const t0 = performance.now();
    let entries = 0;
    let truncations = 0;
    let seen = 0;
    const call = client.Walk(req, { deadline: Date.now() + 180_000 });
    call.on('data', (m: { rows?: { kind?: string; entry?: unknown }[]; summary?: { entriesSeen?: number } | null }) => {
      for (const r of m.rows ?? []) {
        if (r.kind === 'entry' || (r.kind === undefined && r.entry)) entries++;
        else truncations++;
      }
      if (m.summary) seen = Number(m.summary.entriesSeen ?? 0);
    });
    call.on('error', reject);
    call.on('end', () => resolve({ ms: performance.now() - t0, entries, seen, truncations }));
  });
}

async function walkSection(): Promise<void> {
  const t = trees.medium!;
  const agent = await startAgent([benchDir()]);
  const client = walkClient(agent.address);
  try {
    const printf = `%y %s %T@ %m %U %G %i %n %p\\n`;
    const find = await sampled(async () => {
      const r = await sh(`find '${t.root}' -printf '${printf}' | wc -l`, { timeoutMs: 180_000 });
      return { ms: r.ms, lines: Number(r.stdout.trim()) };
    }, RUNS);
    const findRate = find.sample.lines / (find.ms / 1000);
    const base = {
      path: t.root,
      maxDepth: 64,
      maxItemsPerDir: 100_000,
      maxEntries: 1_000_000,
      deadlineMs: 120_000,
    };
    const tree = await sampled(() => walkOnce(client, { ...base, shape: 'SHAPE_TREE', order: 'ORDER_NAME' }), RUNS);
    const ranked = await sampled(
      () =>
        walkOnce(client, {
          ...base,
          shape: 'SHAPE_RANKED',
          order: 'ORDER_SIZE',
          direction: 'DIRECTION_DESCENDING',
          topN: 100,
        }),
      RUNS,
    );
    const treeRate = tree.sample.entries / (tree.ms / 1000);
    const rankedRate = ranked.sample.seen / (ranked.ms / 1000);
    const agentMem = memoryOf(agent.pid);
    table({
      title: `Agent Walk over gRPC vs find (${fmtInt(t.entries)}-entry tree, warm cache)`,
      intro:
        "Baseline: `find PATH -printf '%y %s %T@ %m %U %G %i %n %p\\n' | wc -l`. The Walk client is a raw grpc-js client in the bench process (plaintext loopback), counting rows as they arrive. Tree shape: max_depth 64, max_items_per_dir 100000, max_entries 1000000 (no cap bites). Ranked: order size descending, top_n 100, entries/s counts entries the walk looked at.",
      header: ['Measure', 'Median', 'Entries', 'Entries/s', 'Ratio to find'],
      rows: [
        ['find -printf', `${fmtMs(find.ms)} (n=${find.runs})`, fmtInt(find.sample.lines), fmtRate(findRate), '1.00×'],
        [
          'Walk, tree shape, full metadata',
          `${fmtMs(tree.ms)} (n=${tree.runs})`,
          `${fmtInt(tree.sample.entries)}${tree.sample.truncations ? ` (+${tree.sample.truncations} truncation rows)` : ''}`,
          fmtRate(treeRate),
          ratio(treeRate / findRate),
        ],
        [
          'Walk, ranked (top 100 by size)',
          `${fmtMs(ranked.ms)} (n=${ranked.runs})`,
          `${fmtInt(ranked.sample.seen)} seen, ${fmtInt(ranked.sample.entries)} sent`,
          fmtRate(rankedRate),
          ratio(rankedRate / findRate),
        ],
        ['Agent peak RSS after the walks', fmtBytes(agentMem?.hwm ?? Number.NaN), '', '', ''],
      ],
    });
    target('Agent Walk ≥ 0.8× find entries/s (tree shape)', ratio(treeRate / findRate), treeRate / findRate >= 0.8);
  } finally {
    client.close();
    await agent.stop();
  }
}

// ---------- 2. MCP tools vs peers ----------
async function mcpSection(): Promise<void> {
  const list: [string, Tree][] = [];
  if (trees.small) list.push(['10k', trees.small]);
  if (trees.medium) list.push(['300k', trees.medium]);
  if (trees.large) list.push(['1M', trees.large]);
  const root = benchDir();
  const fleet = await startFleetls({ cwd: home('fleetls'), home: home('fleetls') });
  const peers: McpServerProc[] = [];
  let dc: McpServerProc | undefined;
  let sf: McpServerProc | undefined;
  try {
    try {
      dc = await startDesktopCommander(root, home('dc'));
      peers.push(dc);
    } catch (err) {
      notes.push(`DesktopCommander did not start: ${(err as Error).message.slice(0, 300)}`);
    }
    try {
      sf = await startServerFilesystem(root, home('sf'));
      peers.push(sf);
    } catch (err) {
      notes.push(`server-filesystem did not start: ${(err as Error).message.slice(0, 300)}`);
    }
    const header = [
      'Tree',
      'Server',
      'Tool and arguments',
      'Median',
      'Entries',
      'Entries/s',
      'Text',
      'Text B/entry',
      'JSON',
    ];
    const intro =
      'Each server is a child process on stdio, driven by the MCP SDK Client (1.32.2); time is client-side, call to result. fleetls answers from its embedded localhost agent (no inventory). Text = the content text a model reads; JSON = the whole result (fleetls also returns structuredContent). Entries are counted from each answer ([DIR]/[FILE] lines, tree nodes, rows). Peers run under `unshare -n` (no network) with a throwaway HOME.';
    // Rows are added as they are measured, so a section cut short keeps what it has.
    const small = table({
      title: 'MCP tools over stdio: tree listing depth 2, and one level with sizes',
      intro,
      header,
      rows: [],
    });
    const depth2: Record<string, Record<string, ToolRun>> = {};
    for (const [label, t] of list) {
      depth2[label] = {};
      const f2 = await timeTool(fleet, 'list_directory', { host: 'localhost', path: t.root, depth: 2 }, 'depth=2');
      depth2[label].fleetls = f2;
      small.rows.push(toolRow(label, f2));
      if (dc) {
        const r = await timeTool(dc, 'list_directory', { path: t.root, depth: 2 }, 'depth=2');
        depth2[label].dc = r;
        small.rows.push(toolRow(label, r));
      }
      small.rows.push(
        toolRow(
          label,
          await timeTool(
            fleet,
            'list_files',
            { host: 'localhost', path: t.root, max_depth: 0, type: 'any', order_by: 'size', sort: 'descending' },
            'max_depth=0 type=any order_by=size',
          ),
        ),
      );
      if (sf)
        small.rows.push(
          toolRow(
            label,
            await timeTool(sf, 'list_directory_with_sizes', { path: t.root, sortBy: 'size' }, 'sortBy=size'),
          ),
        );
    }
    const key = depth2['300k'] ? '300k' : list.at(-1)?.[0];
    const bpe = (r?: ToolRun) => (r && !r.error && r.entries > 0 ? r.textBytes / r.entries : Number.NaN);
    if (key) {
      const f = depth2[key].fleetls;
      const dcr = depth2[key].dc;
      const fb = bpe(f);
      const db = bpe(dcr);
      target(
        `Response bytes per entry of a tree listing (depth 2, ${key}) ≤ DesktopCommander's`,
        `fleetls ${fb.toFixed(1)} B/entry of text (${(f.jsonBytes / Math.max(1, f.entries)).toFixed(1)} B/entry as the whole JSON result with structuredContent) vs DesktopCommander ${db.toFixed(1)} B/entry`,
        Number.isFinite(fb) && Number.isFinite(db) ? fb <= db : undefined,
      );
    }

    const big = table({
      title: 'MCP tools over stdio: full listings',
      intro: `${intro} fleetls pages (list_files type=any, following next_cursor) only on trees of up to 20,000 entries: every page is a new ranked walk of start+limit rows, so paging a 300k tree costs O(pages × tree). server-filesystem directory_tree has no depth limit; DesktopCommander depth=10 still caps nested directories at 100 entries.`,
      header,
      rows: [],
    });
    const full: Record<string, Record<string, ToolRun>> = {};
    for (const [label, t] of list) {
      full[label] = {};
      if (t.entries <= 20_000) {
        const ff = await fullListing(fleet, t.root);
        full[label].fleetls = ff;
        big.rows.push(toolRow(label, ff));
      }
      const deepTree = await timeTool(
        fleet,
        'list_directory',
        { host: 'localhost', path: t.root, depth: 10, max_items_per_dir: 10_000 },
        'depth=10 max_items_per_dir=10000 (one answer, cut at the 256 KiB budget)',
      );
      full[label].fleetlsTree = deepTree;
      big.rows.push(toolRow(label, deepTree));
      if (dc) {
        const r = await timeTool(dc, 'list_directory', { path: t.root, depth: 10 }, 'depth=10');
        full[label].dc = r;
        big.rows.push(toolRow(label, r));
      }
      if (sf) {
        const r = await timeTool(sf, 'directory_tree', { path: t.root }, '(whole tree, no depth limit)', 180_000);
        full[label].sf = r;
        big.rows.push(toolRow(label, r));
      }
      if (label === key) {
        const f = depth2[key].fleetls;
        const faster = (p?: ToolRun) =>
          p && !p.error && !f.error ? f.ms < p.ms : p?.error && !f.error ? true : undefined;
        const dcr = depth2[key].dc;
        const sfr = full[key].sf;
        const fdc = faster(dcr);
        const fsf = faster(sfr);
        target(
          `list_directory depth 2 on the ${key} tree faster than both peers (server-filesystem has no depth: its directory_tree)`,
          `fleetls ${fmtMs(f.ms)}; DesktopCommander list_directory depth=2 ${dcr?.error ? 'failed' : fmtMs(dcr?.ms ?? Number.NaN)}; server-filesystem directory_tree ${sfr?.error ? `failed (${sfr.error.slice(0, 80)})` : fmtMs(sfr?.ms ?? Number.NaN)}`,
          fdc === false || fsf === false ? false : fdc === undefined || fsf === undefined ? undefined : true,
        );
      }
    }
    // full listing ≥ 5× peers' entries/s: fleetls's best full-listing rate on each tree vs each peer's
    const parts: string[] = [];
    let ok: boolean | undefined;
    for (const [label] of list) {
      const mine = [full[label].fleetls, full[label].fleetlsTree].filter((r): r is ToolRun => !!r && !r.error);
      if (mine.length === 0) continue;
      const rate = Math.max(...mine.map((r) => r.entries / (r.ms / 1000)));
      for (const pk of ['dc', 'sf']) {
        const pr = full[label][pk];
        if (!pr) continue;
        if (pr.error) {
          parts.push(`${label}: ${pr.server} failed`);
          continue;
        }
        const x = rate / (pr.entries / (pr.ms / 1000));
        parts.push(`${label} vs ${pr.server}: ${ratio(x)}`);
        ok = (ok ?? true) && x >= 5;
      }
    }
    target("A full listing ≥ 5× the peers' entries/s", parts.join('; ') || 'no pair measured', ok);
  } finally {
    await fleet.close();
    for (const p of peers) await p.close();
  }
}

/** fleetls's full listing: list_files type=any max_depth=10 in pages of 5000, following next_cursor. */
async function fullListing(fleet: McpServerProc, root: string): Promise<ToolRun> {
  const once = async () => {
    const t0 = performance.now();
    let cursor: string | undefined;
    let entries = 0;
    let textBytes = 0;
    let jsonBytes = 0;
    let pages = 0;
    let total = 0;
    let stop = '';
    do {
      const args: Record<string, unknown> = { host: 'localhost', path: root, type: 'any', max_depth: 10, limit: 5000 };
      if (cursor) args.cursor = cursor;
      const o = await fleet.call('list_files', args, 120_000);
      if (o.isError) {
        stop = o.text.slice(0, 160);
        break;
      }
      pages++;
      const s = o.structured as { items?: unknown[]; next_cursor?: string; total?: number };
      entries += s.items?.length ?? 0;
      total = s.total ?? total;
      textBytes += o.textBytes;
      jsonBytes += o.jsonBytes;
      cursor = s.next_cursor;
    } while (cursor && pages < 400);
    return { ms: performance.now() - t0, entries, textBytes, jsonBytes, pages, total, stop };
  };
  try {
    const s = await sampled(once, Math.min(RUNS, 3));
    const r = s.sample;
    if (r.stop) notes.push(`fleetls full listing of ${root} stopped after ${r.entries} of ${r.total} rows: ${r.stop}`);
    return {
      server: 'fleetls',
      tool: 'list_files',
      args: `type=any max_depth=10 limit=5000, all pages (${r.pages} pages, ${fmtInt(r.entries)} of ${fmtInt(r.total)} rows)`,
      ms: s.ms,
      runs: s.runs,
      entries: r.entries,
      textBytes: r.textBytes,
      jsonBytes: r.jsonBytes,
    };
  } catch (err) {
    return {
      server: 'fleetls',
      tool: 'list_files',
      args: 'all pages',
      ms: Number.NaN,
      runs: 0,
      entries: 0,
      textBytes: Number.NaN,
      jsonBytes: Number.NaN,
      error: (err as Error).message.slice(0, 200),
    };
  }
}

// ---------- 3. the 10 largest files of the 50,000-entry directory ----------
async function topnSection(): Promise<void> {
  const dir = trees.medium?.flatDir;
  if (!dir) throw new Error('the 300k tree (with its flat directory) is not there');
  const find = await sampled(async () => {
    const r = await sh(`find '${dir}' -mindepth 1 -maxdepth 1 -type f -printf '%s %p\\n' | sort -n | tail -n 10`, {
      timeoutMs: 60_000,
    });
    return { ms: r.ms, out: r.stdout };
  }, RUNS);
  const fleet = await startFleetls({ cwd: home('fleetls-topn'), home: home('fleetls-topn') });
  let sf: McpServerProc | undefined;
  try {
    const fr = await timeTool(
      fleet,
      'list_files',
      { host: 'localhost', path: dir, order_by: 'size', sort: 'descending', top_n: 10 },
      'order_by=size sort=descending top_n=10',
    );
    // same answer?
    const o = await fleet.call('list_files', {
      host: 'localhost',
      path: dir,
      order_by: 'size',
      sort: 'descending',
      top_n: 10,
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
      sf = await startServerFilesystem(benchDir(), home('sf-topn'));
      const sr = await timeTool(sf, 'list_directory_with_sizes', { path: dir, sortBy: 'size' }, 'sortBy=size');
      rows.push([
        'server-filesystem list_directory_with_sizes sortBy=size (all 50,000 rows)',
        sr.error ? `failed: ${sr.error}` : `${fmtMs(sr.ms)} (n=${sr.runs})`,
        `${fmtBytes(sr.textBytes)} text`,
        ratio(find.ms / sr.ms),
      ]);
    } catch (err) {
      notes.push(`top-10: server-filesystem not measured: ${(err as Error).message.slice(0, 200)}`);
    }
    table({
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

// ---------- 4. fan-out ----------
function writeInventory(file: string, hosts: Record<string, string>, extra = ''): void {
  const lines = ['agent_tls: insecure', 'hosts:'];
  for (const [name, spec] of Object.entries(hosts)) lines.push(`  ${name}:`, `    ${spec}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n${extra}`);
}

async function startAgents(n: number, pool: AgentProc[]): Promise<void> {
  while (pool.length < n) {
    const batch = Math.min(8, n - pool.length);
    const started = await Promise.all(Array.from({ length: batch }, () => startAgent([benchDir()], 60_000)));
    pool.push(...started);
  }
}

async function fanoutSection(): Promise<void> {
  const small = trees.small ? path.join(trees.small.root, 'deep') : undefined;
  if (!small) throw new Error('the 10k tree is missing');
  const q = { path: small, order_by: 'size', sort: 'descending', top_n: 10, max_depth: 10, type: 'file' };
  const pool: AgentProc[] = [];
  const hostsProcs: AgentHostProc[] = [];
  const rows: string[][] = [];
  const fanTable = table({
    title: 'Fan-out: merged top_n over N agents on loopback',
    header: ['Agents', 'How they run', 'Median latency', 'Hosts ok', 'Gateway peak RSS', 'Answer text'],
    rows,
  });
  const lat: Record<string, Record<number, number>> = { real: {}, stub: {} };

  /** One fresh gateway over `addresses`; a row in the table. */
  const measure = async (kind: 'real' | 'stub', how: string, addresses: string[], p: string, label = '') => {
    const n = addresses.length;
    const inv = path.join(scratch, `fanout-${kind}-${n}.yaml`);
    const hosts: Record<string, string> = {};
    addresses.forEach((a, i) => {
      hosts[`a${i + 1}`] = `agent: "${a}"`;
    });
    writeInventory(inv, hosts, `defaults:\n  concurrency: ${Math.max(32, n)}\n  deadline_ms: 120000\n`);
    const gw = await startFleetls({ inventory: inv, cwd: home(`gw-${kind}-${n}`), home: home(`gw-${kind}-${n}`) });
    try {
      const r = await timeTool(gw, 'list_files', { host: 'all', ...q, path: p }, `host=all (${n} ${kind} agents)`);
      const sample = await gw.call('list_files', { host: 'all', ...q, path: p });
      const okHosts = ((sample.structured?.hosts ?? []) as { status: string }[]).filter(
        (h) => h.status === 'ok',
      ).length;
      const mem = gw.memory();
      rows.push([
        `${n}${label}`,
        how,
        r.error ? `failed: ${r.error}` : `${fmtMs(r.ms)} (n=${r.runs})`,
        `${okHosts}/${n}`,
        fmtBytes(mem?.hwm ?? Number.NaN),
        fmtBytes(r.textBytes),
      ]);
      return { ms: r.error ? Number.NaN : r.ms, hwm: mem?.hwm ?? Number.NaN, allOk: okHosts === n };
    } finally {
      await gw.close();
    }
  };

  /** Memory independence: the same agents and query over tiny vs 50,000-entry directories. */
  let memDone = false;
  const memoryCheck = async () => {
    const big = trees.medium?.flatDir;
    const nMem = Math.min(10, pool.length);
    if (memDone) return;
    memDone = true;
    if (big && nMem > 0) {
      const addresses = pool.slice(0, nMem).map((a) => a.address);
      const memTable = table({
        title: `Gateway memory of a merged top_n vs the hosts' directory sizes (${nMem} agents)`,
        intro: 'The rows of the fan-out table with this label: same agents, same query, a fresh gateway each.',
        header: ['Directory on every host', 'Median latency', 'Gateway peak RSS'],
        rows: [],
      });
      const a = await measure('real', `${nMem} agent processes`, addresses, small, ' (~160 entries/host)');
      memTable.rows.push(['~160 entries', fmtMs(a.ms), fmtBytes(a.hwm)]);
      const b = await measure('real', `${nMem} agent processes`, addresses, big, ' (50,000 entries/host)');
      memTable.rows.push(['50,000 entries (the flat directory)', fmtMs(b.ms), fmtBytes(b.hwm)]);
      target(
        "Gateway memory of a merged top_n independent of the hosts' directory sizes",
        `${fmtBytes(a.hwm)} (~160 entries/host) vs ${fmtBytes(b.hwm)} (50,000 entries/host): ${ratio(b.hwm / a.hwm)} (met if within 1.2× or 16 MiB)${a.allOk && b.allOk ? '' : '; some hosts failed, so no verdict'}`,
        a.allOk && b.allOk && Number.isFinite(a.hwm) && Number.isFinite(b.hwm)
          ? b.hwm <= a.hwm * 1.2 || b.hwm - a.hwm <= 16 * 1024 ** 2
          : undefined,
      );
    }
  };

  try {
    // Real agents: one process each while that fits in memory, else 25 servers per process.
    await startAgents(1, pool);
    const perAgent = (memoryOf(pool[0].pid)?.rss ?? 80 * 1024 ** 2) * 1.5;
    const fits = (n: number) => perAgent * n <= os.freemem() * 0.5;
    for (const n of FANOUT) {
      let addresses: string[];
      let how: string;
      if (fits(n)) {
        const t0 = performance.now();
        await startAgents(n, pool);
        log(`fan-out: ${n} agent processes up (${((performance.now() - t0) / 1000).toFixed(1)} s for the new ones)`);
        addresses = pool.slice(0, n).map((a) => a.address);
        how = `${n} agent process${n > 1 ? 'es' : ''}`;
      } else {
        await Promise.all(pool.splice(1).map((a) => a.stop()));
        // Few servers per process: 25 walks at once in one process (a worker thread each) was
        // measured to be far slower than the same number of separate agent processes.
        const per = 10;
        const procs = Math.ceil(n / per);
        const started: AgentHostProc[] = [];
        for (let i = 0; i < procs; i += 4) {
          const batch = Array.from({ length: Math.min(4, procs - i) }, (_, j) =>
            startAgentHost('real', Math.min(per, n - (i + j) * per), benchDir(), 120_000),
          );
          started.push(...(await Promise.all(batch)));
        }
        hostsProcs.push(...started);
        addresses = started.flatMap((h) => h.addresses);
        how = `${procs} processes × ≤${per} agent servers (createAgentServer)`;
        notes.push(
          `fan-out: ${n} agent processes would need ~${fmtBytes(perAgent * n)} (1.5 × ${fmtBytes(perAgent / 1.5)} RSS each) of ${fmtBytes(os.freemem())} free, so ${n} real agents ran as ${how}.`,
        );
      }
      lat.real[n] = (await measure('real', how, addresses, small)).ms;
      if (pool.length >= 10) await memoryCheck();
      for (const h of hostsProcs.splice(0)) await h.stop();
    }
    await memoryCheck();
    // Stub agents: canned answers, no file system: the gateway's own fan-out and merge.
    for (const n of FANOUT) {
      const per = 50;
      const procs = Math.ceil(n / per);
      const started = await Promise.all(
        Array.from({ length: procs }, (_, i) => startAgentHost('stub', Math.min(per, n - i * per), benchDir())),
      );
      hostsProcs.push(...started);
      lat.stub[n] = (
        await measure(
          'stub',
          `stub Agent servers (canned 160-row answer, no fs), ${procs} process${procs > 1 ? 'es' : ''}`,
          started.flatMap((h) => h.addresses),
          small,
        )
      ).ms;
      for (const h of hostsProcs.splice(0)) await h.stop();
    }
    const agentRss = pool.map((a) => memoryOf(a.pid)?.rss ?? Number.NaN).filter(Number.isFinite);
    fanTable.intro = `list_files host=all order_by=size sort=descending top_n=10 max_depth=10 on ${path.relative(benchDir(), small)} (~160 entries per host), through \`fleetls serve\` with an inventory of N plaintext agents on 127.0.0.1. A real agent process has a median RSS of ${fmtBytes(median(agentRss))}. All agents share this machine's ${os.cpus().length} cores, so the real agents' own work (a walk each, in a worker thread of the agent process) grows with N here, while on a fleet it runs on N machines; the stub rows take the agents' work away and leave the gateway's fan-out, gRPC and merge. Gateway peak = VmHWM of the gateway process (a fresh gateway per row). Gateway concurrency = max(32, N).`;
    const maxN = Math.max(...FANOUT);
    for (const kind of ['real', 'stub'] as const) {
      const one = lat[kind][1];
      const many = lat[kind][maxN];
      if (one && many) {
        const x = many / one;
        target(
          kind === 'real'
            ? `Fan-out to ${maxN} agents within 2× one agent's latency (real agents, all on this machine)`
            : `Fan-out to ${maxN} agents within 2× one agent's latency (stub agents: the gateway's part alone)`,
          `${fmtMs(many)} vs ${fmtMs(one)} = ${ratio(x)}`,
          x <= 2,
        );
      }
    }
  } finally {
    await Promise.all(pool.map((a) => a.stop()));
    await Promise.all(hostsProcs.map((h) => h.stop()));
  }
}

// ---------- 5. SSH ----------
interface SshdLike {
  host: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
  stop(): Promise<void>;
}

async function sshSection(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root to start a throwaway sshd and its login user');
  const helper = path.join(REPO_ROOT, 'test', 'dist', 'helpers', 'sshd.js');
  if (!fs.existsSync(helper)) throw new Error('test/dist/helpers/sshd.js is not built (npm run build)');
  const { startSshd } = (await import(helper)) as { startSshd: () => Promise<SshdLike> };
  const sshd = await withTimeout(startSshd(), 30_000, 'startSshd');
  const agent = await startAgent([benchDir()]);
  const ctl = path.join(scratch, 'ssh-ctl');
  const sshBase = `ssh -F /dev/null -i '${sshd.identityFile}' -o UserKnownHostsFile='${sshd.knownHostsFile}' -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=10 -p ${sshd.port}`;
  const dest = `${sshd.user}@127.0.0.1`;
  let master: Promise<unknown> | undefined;
  try {
    const small = path.join(trees.small!.root, 'deep');
    const big = trees.medium!.root;
    const findSmall = `find '${small}' -type f -printf '%s %p\\n' | sort -n | tail -n 10`;
    const inv = path.join(scratch, 'ssh.yaml');
    writeInventory(
      inv,
      {
        s1: `ssh: { host: 127.0.0.1, port: ${sshd.port}, user: ${sshd.user}, identity_file: "${sshd.identityFile}", known_hosts: "${sshd.knownHostsFile}" }`,
        a1: `agent: "${agent.address}"`,
      },
      'defaults:\n  deadline_ms: 120000\n',
    );
    const q = { order_by: 'size', sort: 'descending', top_n: 10, max_depth: 10, type: 'file' };
    // cold: a fresh gateway each time, first call
    const colds: number[] = [];
    let warm: ToolRun | undefined;
    let big1: ToolRun | undefined;
    let bigAgent: ToolRun | undefined;
    let bigTotal = 0;
    for (let i = 0; i < 3; i++) {
      const gw = await startFleetls({ inventory: inv, cwd: home('gw-ssh'), home: home('gw-ssh') });
      try {
        const o = await gw.call('list_files', { host: 's1', path: small, ...q }, 60_000);
        if (o.isError) throw new Error(`fleetls over SSH failed: ${o.text.slice(0, 300)}`);
        colds.push(o.ms);
        if (i === 2) {
          warm = await timeTool(gw, 'list_files', { host: 's1', path: small, ...q }, 'warm');
          const full = { order_by: 'size', sort: 'descending', limit: 10, max_depth: 10, type: 'any' };
          big1 = await timeTool(
            gw,
            'list_files',
            { host: 's1', path: big, ...full },
            'type=any order_by=size limit=10 (300k tree)',
          );
          bigAgent = await timeTool(
            gw,
            'list_files',
            { host: 'a1', path: big, ...full },
            'type=any order_by=size limit=10 (300k tree)',
          );
          const s = await gw.call('list_files', { host: 's1', path: big, ...full }, 150_000);
          bigTotal = Number((s.structured as { total?: number } | undefined)?.total ?? 0);
        }
      } finally {
        await gw.close();
      }
    }
    // OpenSSH: cold = new connection per call; warm = over a ControlMaster we started (and kill)
    const sshCold = await sampled(
      async () => ({ ms: (await sh(`${sshBase} ${dest} "${findSmall}"`, { timeoutMs: 30_000 })).ms }),
      3,
    );
    master = sh(`${sshBase} -M -N -S '${ctl}' ${dest}`, { timeoutMs: 600_000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 50 && !fs.existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 100));
    const sshWarm = await sampled(
      async () => ({
        ms: (await sh(`${sshBase} -S '${ctl}' -o ControlMaster=no ${dest} "${findSmall}"`, { timeoutMs: 30_000 })).ms,
      }),
      RUNS,
    );
    const sshBig = await sampled(async () => {
      const r = await sh(
        `${sshBase} -S '${ctl}' -o ControlMaster=no ${dest} "find '${big}' -printf '%y %s %T@ %p\\n'" | wc -l`,
        {
          timeoutMs: 120_000,
        },
      );
      return { ms: r.ms, lines: Number(r.stdout.trim()) };
    }, 3);
    const rate = (n: number, ms: number) => n / (ms / 1000);
    table({
      title: 'SSH: fleetls over ssh2 vs OpenSSH, and vs the agent',
      intro: `A throwaway OpenSSH sshd on 127.0.0.1 (test/src/helpers/sshd.ts), login user with /bin/sh. fleetls: \`fleetls serve\` with an inventory host that has only \`ssh:\`; cold = first call of a fresh gateway (connect + auth + find), median of 3 gateways. Small query: list_files top_n=10 order_by=size on ${path.relative(benchDir(), small)}. OpenSSH: \`ssh host "find … | sort -n | tail"\`, cold = a new connection per call, warm = over a ControlMaster.`,
      header: ['Measure', 'fleetls', 'OpenSSH ssh + find', 'Ratio (OpenSSH time ÷ fleetls time)'],
      rows: [
        [
          'Cold call (connect + auth + top 10)',
          fmtMs(median(colds)),
          fmtMs(sshCold.ms),
          ratio(sshCold.ms / median(colds)),
        ],
        [
          'Warm call (reused connection)',
          warm?.error ? `failed: ${warm.error}` : fmtMs(warm?.ms ?? Number.NaN),
          fmtMs(sshWarm.ms),
          ratio(sshWarm.ms / (warm?.ms ?? Number.NaN)),
        ],
        [
          `300k tree, entries/s (fleetls: list_files type=any order_by=size limit=10, ranking ${fmtInt(bigTotal)} entries; OpenSSH: find -printf | wc -l)`,
          big1?.error
            ? `failed: ${big1.error}`
            : `${fmtRate(rate(bigTotal, big1?.ms ?? Number.NaN))} (${fmtMs(big1?.ms ?? Number.NaN)})`,
          `${fmtRate(rate(sshBig.sample.lines, sshBig.ms))} (${fmtMs(sshBig.ms)})`,
          ratio(rate(bigTotal, big1?.ms ?? Number.NaN) / rate(sshBig.sample.lines, sshBig.ms)),
        ],
        [
          '300k tree through the gateway: over the agent (same query)',
          bigAgent?.error
            ? `failed: ${bigAgent.error}`
            : `${fmtRate(rate(bigTotal, bigAgent?.ms ?? Number.NaN))} (${fmtMs(bigAgent?.ms ?? Number.NaN)}); SSH/agent = ${ratio((bigAgent?.ms ?? Number.NaN) / (big1?.ms ?? Number.NaN))}`,
          '',
          '',
        ],
      ],
    });
  } finally {
    if (master) {
      await sh(`${sshBase} -S '${ctl}' -O exit ${dest}`, { timeoutMs: 5000 }).catch(() => {});
      await withTimeout(master, 5000, 'ssh master exit').catch(() => {});
    }
    await agent.stop();
    await sshd.stop();
  }
}

// ---------- markdown ----------
function markdown(): string {
  const out: string[] = [];
  out.push('# fleetls benchmark results', '');
  out.push(
    'Written by `npm run bench` (bench/src/main.ts). Medians of several runs after one warm-up (n = timed runs).',
    '',
  );
  out.push('## Machine', '', '| | |', '|---|---|', ...machine().map(([k, v]) => `| ${k} | ${v} |`), '');
  const treeLines = Object.values(trees)
    .filter(Boolean)
    .map(
      (t) =>
        `- \`${t!.spec.name}\`: ${fmtInt(t!.entries)} entries${t!.generatedSec ? ` (generated in ${t!.generatedSec.toFixed(1)} s)` : ' (reused)'}`,
    );
  out.push('## Trees', '', ...treeLines);
  if (!FULL)
    out.push(
      '- The ~1M-entry tree is opt-in (`npm run bench -- --full` or `FLEETLS_BENCH_FULL=1`) to keep the default run near 10 minutes.',
    );
  out.push(
    '',
    'Shape (bench/src/trees.ts, seeded): a 50,000-file flat directory (300k and 1M trees), a 40-level chain, nested project directories (fan-out 0–7, 2–60 files each), symlinks to files and directories and a dangling one, a hidden directory, one file name that is not UTF-8, log-normal sizes with multi-GB sparse files, mtimes over three years.',
    '',
  );
  out.push('## Targets', '', '| Target | Measured | Met |', '|---|---|---|');
  for (const t of targets) out.push(`| ${t.name} | ${t.measured} | ${verdict(t.ok)} |`);
  out.push('');
  for (const t of tables) {
    out.push(`## ${t.title}`, '');
    if (t.intro) out.push(t.intro, '');
    out.push(`| ${t.header.join(' | ')} |`, `|${t.header.map(() => '---').join('|')}|`);
    for (const r of t.rows) out.push(`| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
    out.push('');
  }
  if (notes.length) out.push('## Notes', '', ...notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

// ---------- main ----------
async function main(): Promise<void> {
  const t0 = performance.now();
  trees.small = ensureTree(TREE_SPECS.small, log);
  trees.medium = ensureTree(TREE_SPECS.medium, log);
  if (FULL) trees.large = ensureTree(TREE_SPECS.large, log);
  // warm the page cache once so the first measured tool does not pay for it
  for (const t of Object.values(trees)) if (t) await sh(`find '${t.root}' > /dev/null`, { timeoutMs: 300_000 });
  await section('walk', 8 * 60_000, walkSection);
  await section('mcp', (FULL ? 30 : 12) * 60_000, mcpSection);
  await section('topn', 3 * 60_000, topnSection);
  await section('fanout', 10 * 60_000, fanoutSection);
  await section('ssh', 6 * 60_000, sshSection);
  notes.push(`Whole run: ${((performance.now() - t0) / 1000).toFixed(0)} s.`);
  const md = markdown();
  fs.writeFileSync(OUT, md);
  process.stdout.write(md);
  log(`wrote ${path.relative(process.cwd(), OUT)}`);
}

main()
  .catch((err) => {
    log(`bench failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(() => {
    killAll();
    fs.rmSync(scratch, { recursive: true, force: true });
    // grpc channels and timers must not keep the process alive
    setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  });
