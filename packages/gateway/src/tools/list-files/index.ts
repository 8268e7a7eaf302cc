// list_files: one list over every host (Jupyter MCP's TableAnswer), paged with
// start_index/limit or a cursor. In name order it is path order, paged by resuming the
// hosts' walks (tools/list-files/paths.ts), so every entry is reachable. In a ranked order (size,
// modified) each host returns its best start+limit rows; the gateway merges them and cuts
// the page, so pages cover the merged ranking exactly once, up to the kept top-K.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { encodeCursor } from '@fleetls/core';
import type { ListFilesResponseSchema } from '@fleetls/proto/fleet_pb';
import type { HostResult } from '../../fleet/fan-out.js';
import type { ScanPage } from '../../scans/face.js';
import { type FileItem as CliFileItem, formatFileTable, pathFailed } from '../shared/cli-format.js';
import { entryOut, int64 } from '../shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire, notesToWire } from '../shared/fleet-present.js';
import { type HostWalk, rankedWalkTask, walkHosts, walkTask } from '../shared/host-walks.js';
import { defineTool, hostPathArgument } from '../tool.js';
import { firstChunkRequest } from './paths.js';
import {
  collectPathPage,
  finishPathPage,
  firstPagePerHost,
  listingOf,
  planListFiles,
  rankingOf,
  scanPathPage,
  wholePathPage,
} from './plan.js';
import { headline, itemJson, presentFiles } from './present.js';
import { type FileListing, input, output, type Plan } from './shape.js';

export {
  FILE_COLUMNS,
  FILE_TYPES,
  type FileListing,
  LIMIT,
  type ListFilesAnswer,
  START_INDEX,
} from './shape.js';

function filesToFleet(l: FileListing): MessageInitShape<typeof ListFilesResponseSchema> {
  return {
    path: l.path,
    entries: l.rows.map((r) => ({ host: r.host, entry: entryOut(r.entry) })),
    startIndex: int64(l.start),
    total: int64(l.total ?? 0),
    found: int64(l.found ?? 0),
    truncations: l.truncations.map(hostTruncationToWire),
    notes: notesToWire(l.notes),
    nextCursor: l.cursorAfter(l.rows.length) ?? '',
    hosts: l.hosts.map(hostStatusToWire),
  };
}

/** A ranked first page over every host's walk: the tool's own answer, its cursor re-ranking from there. */
function wholeRanking(p: Plan, results: HostResult<HostWalk>[]): FileListing {
  const ranking = rankingOf(p, results);
  const total = Math.min(p.cap, ranking.found);
  return listingOf(p, ranking, 0, total, (shown) => (shown < total ? encodeCursor(shown, p.fingerprint) : undefined));
}

export const listFilesTool = defineTool({
  name: 'list_files',
  title: 'Find and rank files',
  description:
    'What is under path (all types; type=file: files), or which files are largest, newest? One table over hosts, find-like filters. Name order is path order, next_cursor reaching every entry; size, modified rank a top 100,000.',
  input,
  output,

  plan: planListFiles,

  async collect(p: Plan, ctx): Promise<FileListing> {
    if (p.path) return collectPathPage(p, ctx);
    let ranking = p.snapshot !== undefined ? await ctx.pages?.get(p.snapshot, p.fingerprint) : undefined;
    let handle = ranking ? p.snapshot : undefined;
    if (!ranking) {
      ranking = rankingOf(p, await walkHosts(ctx, p.hosts, p.req, p.cap));
      if (p.keep && ranking.hosts.some((h) => h.status === 'ok')) handle = await ctx.pages?.put(ranking);
    }
    const total = Math.min(p.cap, ranking.found);
    return listingOf(p, ranking, p.start, total, (shown) =>
      p.start + shown < total ? encodeCursor(p.start + shown, p.fingerprint, handle) : undefined,
    );
  },

  scan: {
    hosts: (p: Plan) => p.hosts,
    // Name order: each host's first page of rows (collectPathPage's first chunk); a host cut
    // there says so on a scan page, and the whole answer walks on from the chunk's end.
    // Ranked: each host keeps only what may rank within the cap, as the call's own collect does.
    task: (p: Plan) =>
      p.path ? walkTask(firstChunkRequest(p.req, firstPagePerHost(p))) : rankedWalkTask(p.req, p.cap),
    entries: (w: HostWalk) => w.summary.entriesSeen,
    rows: (w: HostWalk) => w.rows.length,
    ranked: (p: Plan) => p.path === undefined,
    // A first call, in either order: a cursor of the tool's own pages (resumed walks, a kept
    // ranking) or a start_index pages a whole answer.
    scannable: (p: Plan) => p.start === 0 && !p.keep,
    finish: (p: Plan, results: HostResult<HostWalk>[], ctx): Promise<FileListing> =>
      p.path ? finishPathPage(p, results, ctx) : Promise.resolve(wholeRanking(p, results)),
    merge(p: Plan, results: HostResult<HostWalk>[], _ctx, page?: ScanPage): FileListing {
      if (p.path) return page ? scanPathPage(p, results, page) : wholePathPage(p, results);
      if (!page) return wholeRanking(p, results);
      // A scan page: the batch's hosts' rows, all of them (up to the ranking's cap), in order.
      const ranking = rankingOf({ ...p, keep: true }, results);
      const total = ranking.rows.length;
      return listingOf(p, ranking, page.start, total, (shown) => page.next(page.start + shown, total));
    },
  },
  mcp: presentFiles,

  cli: {
    command: 'ls',
    description:
      'list the entries under PATH on the selected hosts (every type, as ls; in path order, or ranked by size or modified), paged',
    argument: hostPathArgument('localhost:/var/log, web-*:/etc, @prod:/srv'),
    // Every type, as ls lists them: the tool's own default, stated for the command whatever it becomes.
    defaults: { type: 'any' },
    switches: [{ flag: '--desc', help: 'same as --sort descending', sets: { sort: 'descending' } }],
    follows: true,
    render(l, style) {
      const items = l.rows.map((r) => ({ type: 'file', ...itemJson(r.host, r.entry) }) as CliFileItem);
      const out = formatFileTable(items, { showHost: l.multi, style });
      const err = l.rows.length > 0 ? [style.dim(headline(l, l.rows.length))] : [];
      const next = l.cursorAfter(l.rows.length);
      if (next) err.push(style.dim(`more: --cursor ${next}`));
      return { out, err, failed: pathFailed(items) };
    },
  },

  fleet: { method: 'ListFiles', present: filesToFleet },
});
