// MCP tools over stdio: fleetls vs DesktopCommander and server-filesystem, on each tree.

import type { BenchArgs } from '../args.js';
import type { BenchContext } from '../context.js';
import { type McpServerProc, startDesktopCommander, startFleetls, startServerFilesystem } from '../helpers/mcp.js';
import { fmtInt, fmtMs, sampled } from '../helpers/stats.js';
import { failedRun, type ToolRun, timeTool, toolRow } from '../helpers/tools.js';
import { ratio } from '../report.js';
import type { Tree } from '../trees.js';
import { benchDir } from '../trees.js';

export const name = 'mcp';
export const limitMs = (args: BenchArgs): number => (args.full ? 30 : 12) * 60_000;

export async function run(ctx: BenchContext): Promise<void> {
  const list: [string, Tree][] = [];
  list.push(['10k', await ctx.tree('small')], ['300k', await ctx.tree('medium')]);
  if (ctx.args.full) list.push(['1M', await ctx.tree('large')]);
  const root = benchDir();
  const fleet = await startFleetls({ cwd: ctx.home('fleetls'), home: ctx.home('fleetls') });
  const peers: McpServerProc[] = [];
  let dc: McpServerProc | undefined;
  let sf: McpServerProc | undefined;
  try {
    try {
      dc = await startDesktopCommander(root, ctx.home('dc'));
      peers.push(dc);
    } catch (err) {
      ctx.report.note(`DesktopCommander did not start: ${(err as Error).message.slice(0, 300)}`);
    }
    try {
      sf = await startServerFilesystem(root, ctx.home('sf'));
      peers.push(sf);
    } catch (err) {
      ctx.report.note(`server-filesystem did not start: ${(err as Error).message.slice(0, 300)}`);
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
    const small = ctx.report.table({
      title: 'MCP tools over stdio: tree listing depth 2, and one level with sizes',
      intro,
      header,
      rows: [],
    });
    const depth2: Record<string, Record<string, ToolRun>> = {};
    for (const [label, t] of list) {
      depth2[label] = {};
      const depth2Args = { host: 'localhost', path: t.root, depth: 2 };
      depth2[label].fleetls = shown(small, label, await timeTool(ctx, fleet, 'list_directory', depth2Args, 'depth=2'));
      if (dc) {
        const r = await timeTool(ctx, dc, 'list_directory', { path: t.root, depth: 2 }, 'depth=2');
        depth2[label].dc = shown(small, label, r);
      }
      const bySizeArgs = {
        host: 'localhost',
        path: t.root,
        max_depth: 0,
        type: 'any',
        order_by: 'size',
        sort: 'descending',
      };
      shown(small, label, await timeTool(ctx, fleet, 'list_files', bySizeArgs, 'max_depth=0 type=any order_by=size'));
      if (sf) {
        const r = await timeTool(ctx, sf, 'list_directory_with_sizes', { path: t.root, sortBy: 'size' }, 'sortBy=size');
        shown(small, label, r);
      }
    }
    const key = depth2['300k'] ? '300k' : list.at(-1)?.[0];
    const bpe = (r?: ToolRun) => (r && !r.error && r.entries > 0 ? r.textBytes / r.entries : Number.NaN);
    if (key) {
      const f = depth2[key].fleetls;
      const dcr = depth2[key].dc;
      const fb = bpe(f);
      const db = bpe(dcr);
      ctx.report.target(
        `Response bytes per entry of a tree listing (depth 2, ${key}) ≤ DesktopCommander's`,
        `fleetls ${fb.toFixed(1)} B/entry of text (${(f.jsonBytes / Math.max(1, f.entries)).toFixed(1)} B/entry as the whole JSON result with structuredContent) vs DesktopCommander ${db.toFixed(1)} B/entry`,
        Number.isFinite(fb) && Number.isFinite(db) ? fb <= db : undefined,
      );
    }

    const big = ctx.report.table({
      title: 'MCP tools over stdio: full listings',
      intro: `${intro} fleetls pages (list_files type=any, following next_cursor) on trees of up to 20,000 entries: the first page ranks the tree once and the gateway keeps that ranking (up to 100,000 rows), later pages are slices of it, each answer cut at 48,000 bytes or 20,000 tokens; on the larger trees its row is one list_directory answer, cut at that budget, so its entries/s is that of one bounded answer, not of a full listing. server-filesystem directory_tree has no depth limit; DesktopCommander depth=10 still caps nested directories at 100 entries.`,
      header,
      rows: [],
    });
    const full: Record<string, Record<string, ToolRun>> = {};
    for (const [label, t] of list) {
      full[label] = {};
      if (t.entries <= 20_000) full[label].fleetls = shown(big, label, await fullListing(ctx, fleet, t.root));
      const deepTree = await timeTool(
        ctx,
        fleet,
        'list_directory',
        { host: 'localhost', path: t.root, depth: 10, max_items_per_dir: 10_000 },
        'depth=10 max_items_per_dir=10000 (one answer, cut at the 64 KiB / 20,000-token budget)',
      );
      full[label].fleetlsTree = shown(big, label, deepTree);
      if (dc) {
        const r = await timeTool(ctx, dc, 'list_directory', { path: t.root, depth: 10 }, 'depth=10');
        full[label].dc = shown(big, label, r);
      }
      if (sf) {
        const r = await timeTool(ctx, sf, 'directory_tree', { path: t.root }, '(whole tree, no depth limit)', 180_000);
        full[label].sf = shown(big, label, r);
      }
      if (label === key) {
        const f = depth2[key].fleetls;
        const faster = (p?: ToolRun) =>
          p && !p.error && !f.error ? f.ms < p.ms : p?.error && !f.error ? true : undefined;
        const dcr = depth2[key].dc;
        const sfr = full[key].sf;
        const fdc = faster(dcr);
        const fsf = faster(sfr);
        ctx.report.target(
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
    ctx.report.target("A full listing ≥ 5× the peers' entries/s", parts.join('; ') || 'no pair measured', ok);
  } finally {
    await fleet.close();
    for (const p of peers) await p.close();
  }
}

/** Adds a run's row to `table` as soon as it is measured (a section cut short keeps what it has); the run. */
function shown(table: { rows: string[][] }, label: string, r: ToolRun): ToolRun {
  table.rows.push(toolRow(label, r));
  return r;
}

/** fleetls's full listing: list_files type=any max_depth=10 in pages of 5000, following next_cursor. */
async function fullListing(ctx: BenchContext, fleet: McpServerProc, root: string): Promise<ToolRun> {
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
    const s = await sampled(once, Math.min(ctx.args.runs, 3));
    const r = s.sample;
    if (r.stop)
      ctx.report.note(`fleetls full listing of ${root} stopped after ${r.entries} of ${r.total} rows: ${r.stop}`);
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
    return failedRun('fleetls', 'list_files', 'all pages', (err as Error).message.slice(0, 200));
  }
}
