// Answer size: for every tool of the registry, at its defaults and at the largest arguments
// its schema allows, what one answer costs a client (the whole CallToolResult, its text, its
// rows, tokens as o200k counts them) beside DesktopCommander and server-filesystem on the
// same calls; what clients read whole (48,000 characters of a result, 8,000 of an error, 2,048
// of the server's instructions: Claude Code's limits with room); and what paging a whole tree
// with list_files costs against one ranked walk.
import os from 'node:os';
import { createLocalBackend } from '@fleetls/agent';
import { DEFAULT_CEILINGS, DEFAULT_MAX_ANSWER_BYTES, resolveWalkRequest } from '@fleetls/core';
import { inputJsonSchema, TOOLS } from '@fleetls/gateway';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import {
  type CallOutcome,
  type McpServerProc,
  startDesktopCommander,
  startFleetls,
  startServerFilesystem,
} from '../helpers/mcp.js';
import { fmtBytes, fmtInt, fmtMs } from '../helpers/stats.js';
import { ratio } from '../report.js';
import { benchDir, type Tree } from '../trees.js';

export const name = 'answer-size';
export const limitMs = (args: BenchArgs): number => (args.full ? 30 : 15) * 60_000;

/** Claude Code refuses a tool result over this many tokens (MAX_MCP_OUTPUT_TOKENS). */
const CLIENT_TOKEN_CAP = 25_000;
/** A whole result a client reads whole: Claude Code writes one over 50,000 characters to a file instead. */
const WHOLE_CHARS = 48_000;
/** Error text a client reads whole: Claude Code cuts an isError text at about 11,000 characters. */
const ERROR_CHARS = 8000;
/** Claude Code keeps this much of a server's instructions. */
const INSTRUCTIONS_CHARS = 2048;
/** A tree page (list_directory, cut at the budget) holds at least this many rows. */
const TREE_PAGE_ROWS = 400;
/** The arguments that make an answer bigger: each at the largest value its tool's schema allows. */
const GROWS = ['depth', 'max_depth', 'max_items_per_dir', 'limit', 'top_n'];

function largestArguments(tool: (typeof TOOLS)[number]): Record<string, unknown> {
  const props = (inputJsonSchema(tool.input).properties ?? {}) as Record<string, { maximum?: number; enum?: string[] }>;
  const args: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(props)) {
    if (GROWS.includes(k) && p.maximum !== undefined) args[k] = p.maximum;
    if (k === 'type' && p.enum?.includes('any')) args[k] = 'any';
  }
  return args;
}

interface Measured {
  server: string;
  call: string;
  whole: number;
  /** The whole result in characters. */
  chars: number;
  text: number;
  rows: number;
  tokens: number;
  error?: string;
}

/** Rows of an answer: the longest array of its structuredContent (host statuses only for list_hosts, never list_directory's `dirs`), else text lines. */
function rowsOf(tool: string, o: CallOutcome): number {
  const s = o.structured;
  if (!s) return o.text.split('\n').filter((l) => l.trim() !== '').length;
  let n = 0;
  for (const [k, v] of Object.entries(s)) {
    if (
      !Array.isArray(v) ||
      (k === 'hosts' && tool !== 'list_hosts') ||
      k === 'truncations' ||
      k === 'notes' ||
      k === 'dirs' // list_directory's table of its rows' directories
    )
      continue;
    n = Math.max(n, v.length);
  }
  return n;
}

async function measure(srv: McpServerProc, tool: string, args: Record<string, unknown>, label: string) {
  try {
    const o = await srv.call(tool, args, 180_000);
    // What a model is given: Claude Code passes it JSON of structuredContent when there is one
    // (earlier versions the content array), not both; the larger of the two is what its cap meets.
    const content = countTokens(JSON.stringify([{ type: 'text', text: o.text }]));
    const tokens = o.structured ? Math.max(content, countTokens(JSON.stringify(o.structured))) : content;
    return {
      server: srv.name,
      call: `${tool} ${label}`,
      whole: o.jsonBytes,
      chars: o.jsonChars,
      text: o.textBytes,
      rows: o.isError ? 0 : rowsOf(tool, o),
      tokens,
      ...(o.isError ? { error: o.text.slice(0, 120) } : {}),
    } satisfies Measured;
  } catch (err) {
    return {
      server: srv.name,
      call: `${tool} ${label}`,
      whole: 0,
      chars: 0,
      text: 0,
      rows: 0,
      tokens: 0,
      error: String(err),
    };
  }
}

function row(tree: string, m: Measured): string[] {
  if (m.error) return [tree, m.server, m.call, `failed: ${m.error.slice(0, 100)}`, '', '', '', ''];
  return [
    tree,
    m.server,
    m.call,
    fmtBytes(m.whole),
    fmtBytes(m.text),
    fmtInt(m.rows),
    m.rows > 0 ? (m.whole / m.rows).toFixed(1) : '–',
    fmtInt(m.tokens),
  ];
}

export async function run(ctx: BenchContext): Promise<void> {
  const list: [string, Tree][] = [
    ['10k', await ctx.tree('small')],
    ['300k', await ctx.tree('medium')],
  ];
  const root = benchDir();
  const fleet = await startFleetls({ cwd: ctx.home('fleetls'), home: ctx.home('fleetls') });
  let dc: McpServerProc | undefined;
  let sf: McpServerProc | undefined;
  try {
    dc = await startDesktopCommander(root, ctx.home('dc'));
  } catch (err) {
    ctx.report.note(`DesktopCommander did not start: ${(err as Error).message.slice(0, 300)}`);
  }
  try {
    sf = await startServerFilesystem(root, ctx.home('sf'));
  } catch (err) {
    ctx.report.note(`server-filesystem did not start: ${(err as Error).message.slice(0, 300)}`);
  }
  try {
    const table = ctx.report.table({
      title: 'One answer: whole result, text, rows and tokens',
      intro:
        'Every tool of the registry on the embedded localhost agent, at its defaults and at the largest arguments its schema allows (each of depth, max_depth, max_items_per_dir, limit, top_n at its schema’s maximum, type any), beside the peers’ nearest calls. Whole = the serialized CallToolResult (text and structuredContent); tokens = o200k (gpt-tokenizer 4.0.0, a stand-in for the model’s tokenizer) of what a model is given: the larger of the content array and structuredContent as JSON (Claude Code passes one of them, structuredContent when there is one), the byte budget holding the two together; B/row = whole bytes per row.',
      header: ['Tree', 'Server', 'Call', 'Whole', 'Text', 'Rows', 'B/row', 'Tokens'],
      rows: [],
    });
    const fleetls: Measured[] = [];
    const treeRows: Record<string, { fleetls?: Measured; dc?: Measured }> = {};
    /** list_directory at its largest arguments, a page cut at the budget, per tree. */
    const treePages: Measured[] = [];
    for (const [label, t] of list) {
      for (const tool of TOOLS) {
        // scan_status names a scan (a cursor), not hosts and a path: nothing to size here.
        if (tool.name === 'scan_status') continue;
        const base: Record<string, unknown> =
          tool.name === 'list_hosts' ? { host: 'localhost' } : { host: 'localhost', path: t.root };
        const largest = largestArguments(tool);
        for (const [how, args] of [
          ['(defaults)', base],
          [
            Object.entries(largest)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ') || '(no size arguments)',
            { ...base, ...largest },
          ],
        ] as const) {
          const m = await measure(fleet, tool.name, args, how);
          fleetls.push(m);
          table.rows.push(row(label, m));
          if (tool.name === 'list_directory' && how === '(defaults)') treeRows[label] = { fleetls: m };
          if (tool.name === 'list_directory' && how !== '(defaults)')
            treePages.push({ ...m, call: `${label} ${m.call}` });
          ctx.log(`${label} ${m.call}: ${fmtBytes(m.whole)} whole, ${m.rows} rows`);
        }
      }
      if (dc) {
        const d2 = await measure(dc, 'list_directory', { path: t.root, depth: 2 }, 'depth=2');
        treeRows[label].dc = d2;
        table.rows.push(row(label, d2));
        table.rows.push(row(label, await measure(dc, 'list_directory', { path: t.root, depth: 10 }, 'depth=10')));
        table.rows.push(row(label, await measure(dc, 'get_file_info', { path: t.root }, '')));
      }
      if (sf) {
        table.rows.push(row(label, await measure(sf, 'list_directory', { path: t.root }, '')));
        table.rows.push(
          row(label, await measure(sf, 'list_directory_with_sizes', { path: t.root, sortBy: 'size' }, 'sortBy=size')),
        );
        if (t.entries <= 20_000) table.rows.push(row(label, await measure(sf, 'directory_tree', { path: t.root }, '')));
        table.rows.push(row(label, await measure(sf, 'get_file_info', { path: t.root }, '')));
      }
    }
    const ok = fleetls.filter((m) => !m.error);
    const biggest = ok.reduce((a, b) => (b.whole > a.whole ? b : a), ok[0]);
    ctx.report.target(
      `Every fleetls answer (${fleetls.length} calls: every tool, defaults and largest arguments, both trees) ≤ ${fmtBytes(DEFAULT_MAX_ANSWER_BYTES)} whole`,
      `largest ${fmtBytes(biggest?.whole ?? Number.NaN)} (${biggest?.call}); ${fleetls.length - ok.length} failed`,
      ok.length === fleetls.length && ok.every((m) => m.whole <= DEFAULT_MAX_ANSWER_BYTES),
    );
    const widest = ok.reduce((a, b) => (b.chars > a.chars ? b : a), ok[0]);
    ctx.report.target(
      `Every fleetls answer ≤ ${fmtInt(WHOLE_CHARS)} characters whole (text and structuredContent): Claude Code reads it whole, not from a file`,
      `largest ${fmtInt(widest?.chars ?? Number.NaN)} characters (${widest?.call})`,
      ok.length === fleetls.length && ok.every((m) => m.chars <= WHOLE_CHARS),
    );
    const fewest = treePages.reduce((a, b) => (b.rows < a.rows ? b : a), treePages[0]);
    ctx.report.target(
      `A tree page cut at the default budget (list_directory at its largest arguments) holds ≥ ${TREE_PAGE_ROWS} rows`,
      treePages
        .map((m) => `${m.call}: ${fmtInt(m.rows)} rows, ${(m.whole / Math.max(1, m.rows)).toFixed(1)} B/row`)
        .join('; '),
      treePages.length > 0 && (fewest?.rows ?? 0) >= TREE_PAGE_ROWS,
    );
    await clientLimits(ctx, fleet);
    const defaults = ok.filter((m) => m.call.endsWith('(defaults)'));
    ctx.report.target(
      `Every fleetls answer at default arguments well under Claude Code's ${fmtInt(CLIENT_TOKEN_CAP)}-token cap (o200k, ≤ 60% of it)`,
      `largest ${fmtInt(Math.max(...defaults.map((m) => m.tokens)))} tokens at defaults; ${fmtInt(Math.max(...ok.map((m) => m.tokens)))} at the largest arguments`,
      defaults.every((m) => m.tokens <= CLIENT_TOKEN_CAP * 0.6),
    );
    ctx.report.target(
      `Every fleetls answer, at any arguments, under Claude Code's ${fmtInt(CLIENT_TOKEN_CAP)}-token cap (o200k)`,
      `largest ${fmtInt(Math.max(...ok.map((m) => m.tokens)))} tokens (${ok.reduce((a, b) => (b.tokens > a.tokens ? b : a), ok[0])?.call})`,
      ok.every((m) => m.tokens < CLIENT_TOKEN_CAP),
    );
    const t300 = treeRows['300k'];
    if (t300?.fleetls && t300.dc && !t300.dc.error && t300.fleetls.rows > 0 && t300.dc.rows > 0) {
      const ours = t300.fleetls.whole / t300.fleetls.rows;
      const theirs = t300.dc.text / t300.dc.rows;
      ctx.report.target(
        'A tree listing (depth 2, 300k) costs ≤ 3× DesktopCommander’s text bytes per entry, as the whole result',
        `fleetls ${ours.toFixed(1)} B/entry whole vs DesktopCommander ${theirs.toFixed(1)} B/entry of text: ${ratio(ours / theirs)}`,
        ours <= 3 * theirs,
      );
    } else
      ctx.report.target(
        'A tree listing (depth 2, 300k) costs ≤ 3× DesktopCommander’s text bytes per entry',
        'DesktopCommander not measured',
        undefined,
      );

    await pagingCost(ctx, fleet, list[1][1]);
  } finally {
    await Promise.all([fleet.close(), dc?.close(), sf?.close()]);
  }
}

/**
 * The error text and the instructions, as a client reads them: an error over 2,000 unknown
 * arguments (each named, so its words run to ~200,000 characters before the gateway's cut) and
 * the initialize answer's instructions.
 */
async function clientLimits(ctx: BenchContext, fleet: McpServerProc): Promise<void> {
  const args: Record<string, unknown> = { host: 'localhost', path: '/' };
  for (let i = 0; i < 2000; i++) args[`unknown_argument_${i}`] = i;
  const e = await fleet.call('list_files', args);
  ctx.report.target(
    `Error text ≤ ${fmtInt(ERROR_CHARS)} characters (Claude Code cuts at ~11,000), saying it was cut`,
    `list_files with 2,000 unknown arguments: ${fmtInt(e.text.length)} characters, isError ${e.isError}; ends “${e.text.slice(-60)}”`,
    e.isError && e.text.length <= ERROR_CHARS && /error cut at/.test(e.text),
  );
  const words = fleet.instructions() ?? '';
  ctx.report.target(
    `Server instructions ≤ ${fmtInt(INSTRUCTIONS_CHARS)} characters (Claude Code's cut), the essentials first`,
    `${fmtInt(words.length)} characters, starting “${words.slice(0, 80)}…”`,
    words.length > 0 && words.length <= INSTRUCTIONS_CHARS,
  );
}

/**
 * One tree-shape walk of the tree (as list_files name order walks it, no cap biting), through
 * the embedded agent. No deadline either: under load the 1M tree's walk outlasts the 120 s
 * ceiling a call has, and a walk cut short is no baseline (it must see every entry).
 */
async function treeWalk(root: string): Promise<{ ms: number; entries: number }> {
  const backend = createLocalBackend({ allowedRoots: [root] });
  const HOUR = 3_600_000;
  const req = resolveWalkRequest(
    {
      path: root,
      shape: 'tree',
      maxDepth: 11,
      maxItemsPerDir: DEFAULT_CEILINGS.maxItemsPerDir,
      maxEntries: DEFAULT_CEILINGS.maxEntries,
      order: 'name',
      deadlineMs: HOUR,
    },
    { ...DEFAULT_CEILINGS, maxDeadlineMs: HOUR },
  );
  const t0 = performance.now();
  let entries = 0;
  const it = backend.walk(req, new AbortController().signal);
  for (let r = await it.next(); !r.done; r = await it.next()) entries += r.value.length;
  return { ms: performance.now() - t0, entries };
}

/**
 * list_files in name order followed page by page over the whole tree (every entry exactly
 * once, by resuming the walk), against one tree-shape walk of it in the same run.
 */
export async function pagingCost(ctx: BenchContext, fleet: McpServerProc, tree: Tree): Promise<void> {
  const args = { host: 'localhost', path: tree.root, max_depth: 10, type: 'any', order_by: 'name' };
  const load0 = os.loadavg()[0];
  const walk = await treeWalk(tree.root);
  const p0 = performance.now();
  const seen = new Set<string>();
  let rows = 0;
  let pages = 0;
  let whole = 0;
  let total: number | undefined;
  let cursor: string | undefined;
  do {
    const page = await fleet.call('list_files', { ...args, ...(cursor ? { cursor } : {}) }, 180_000);
    if (page.isError) throw new Error(`page ${pages + 1}: ${page.text.slice(0, 200)}`);
    for (const it of (page.structured?.items ?? []) as { path: string }[]) seen.add(it.path);
    rows += Number(page.structured?.count ?? 0);
    whole = Math.max(whole, page.jsonBytes);
    total = page.structured?.total as number | undefined;
    cursor = page.structured?.next_cursor as string | undefined;
    pages++;
  } while (cursor);
  const pagingMs = performance.now() - p0;
  const load1 = os.loadavg()[0];
  const mem = fleet.memory();
  const once = seen.size === rows && rows === walk.entries;
  ctx.report.table({
    title:
      'Paging a whole tree with list_files in name order (type=any, max_depth=10, default limit), following next_cursor',
    intro: `The ${fmtInt(tree.entries)}-entry tree on the embedded localhost agent. Pages resume the walk after the last row shown; a gateway keeps a 20,000-row chunk for the pages that follow a cursor. One tree-shape walk = the embedded agent's Walk of the same tree (tree shape, no cap biting, 11 levels as max_depth=10 lists), in the bench process, in the same run. Load average (1 min) ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end. Memory = the gateway process's peak RSS (VmHWM).`,
    header: ['What', 'Time', 'Pages', 'Rows', 'Largest page', 'Peak RSS'],
    rows: [
      ['one tree-shape walk', fmtMs(walk.ms), '1', fmtInt(walk.entries), '–', '–'],
      [
        'every page, following next_cursor',
        fmtMs(pagingMs),
        fmtInt(pages),
        `${fmtInt(rows)} (${fmtInt(seen.size)} distinct; last page total ${total ?? '–'})`,
        fmtBytes(whole),
        fmtBytes(mem?.hwm ?? Number.NaN),
      ],
    ],
  });
  ctx.report.target(
    `Paging the whole ${fmtInt(tree.entries)}-entry tree in name order lists every entry exactly once at ≤ 3× one tree-shape walk`,
    `${fmtMs(pagingMs)} for ${fmtInt(pages)} pages vs ${fmtMs(walk.ms)} for one walk: ${ratio(pagingMs / walk.ms)}; ${fmtInt(rows)} rows, ${fmtInt(seen.size)} distinct, the walk ${fmtInt(walk.entries)} (load ${load0.toFixed(1)}–${load1.toFixed(1)})`,
    pagingMs <= 3 * walk.ms && once,
  );
}
