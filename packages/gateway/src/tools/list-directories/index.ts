// list_directories: Linux MCP Server's meaning, across hosts. The immediate subdirectories of
// path, merged in the requested order; sizes are recursive (du -b --one-file-system) and
// computed only when ordering by size.
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  baseName,
  displayPath,
  type Entry,
  humanSize,
  renderAligned,
  resolveWalkRequest,
  type TableRow,
  type WalkRequest,
} from '@fleetls/core';
import type { ListDirectoriesResponseSchema } from '@fleetls/proto/fleet_pb';
import { z } from 'zod';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { type ScanFace, type ScanPage, withScan } from '../../scans/face.js';
import { LIMIT } from '../list-files/index.js';
import * as s from '../schemas.js';
import { type AnswerCut, cutRecord, fitAnswer, rowSize } from '../shared/answer-size.js';
import { invalidCursor } from '../shared/cursor-arg.js';
import { entryOut, int64 } from '../shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire, notesToWire } from '../shared/fleet-present.js';
import { fitFailedHosts } from '../shared/host-statuses.js';
import {
  type HostEntry,
  type HostNote,
  type HostTruncation,
  type HostWalk,
  mergeRankedWalks,
  rankedCut,
  walkDeadlineMs,
  walkTask,
} from '../shared/host-walks.js';
import { modified, noteLine, topNRecord, truncationJson, truncationWarning, withNextPage } from '../shared/present.js';
import { defineTool, type McpAnswer, type ToolResult } from '../tool.js';

const input = {
  ...s.hostPath,
  order_by: s.orderBy,
  sort: s.sort,
  top_n: s.topN,
  cursor: s.cursor(64, 'same arguments'),
};

const nodeSchema = z.object({
  /** Only when several hosts were asked. */
  host: z.string().optional(),
  name: z.string(),
  size: z.number().optional(),
  size_partial: z.boolean().optional(),
  modified: z.string().optional(),
});

const output = {
  path: z.string(),
  nodes: z.array(nodeSchema),
  total: z.number(),
  found: z.number(),
  shown: z.number(),
  ...s.cutFields,
  notes: z.array(s.noteSchema).optional(),
  next_cursor: z.string().optional(),
  hosts: z.array(s.hostStatusSchema),
  scan: s.scanSchema.optional(),
};

type NodeJson = z.infer<typeof nodeSchema>;
export type ListDirectoriesAnswer = s.Parsed<typeof output>;

/** Rows asked of each host when no top_n is given: more than any answer's byte budget shows. */
export const DIRECTORIES_FETCH_LIMIT = LIMIT.max;

interface Plan {
  hosts: FleetHost[];
  req: WalkRequest;
  topN?: number;
}

export interface DirectoryListing extends ToolResult {
  path: string;
  multi: boolean;
  /** Whether sizes are recursive sizes (ordering by size). */
  sizes: boolean;
  /** The merged directories, top_n applied. */
  rows: HostEntry[];
  found: number;
  truncations: HostTruncation[];
  notes: HostNote[];
  /** The cursor after the first `shown` rows (a scan page's); undefined when none follows. */
  cursorAfter?(shown: number): string | undefined;
}

/** The rows list_directories shows: directories that could be read. */
const isListedDir = (e: Entry) => e.type === 'dir' && !e.error;

const directoriesScan: ScanFace<Plan, HostWalk, DirectoryListing> = {
  hosts: (p) => p.hosts,
  // With top_n, a host keeps only the directories that may still rank within it over the call's hosts.
  task: (p) => {
    if (p.topN === undefined) return walkTask(p.req);
    const walk = walkTask(p.req);
    const cut = rankedCut(p.req, p.topN, isListedDir);
    return async (b, h, signal, budgetMs) => {
      const w = await walk(b, h, signal, budgetMs);
      return { ...w, rows: cut(h.name, w.rows) };
    };
  },
  entries: (w) => w.summary.entriesSeen,
  rows: (w) => w.rows.length,
  ranked: (p) => p.req.order !== 'name',
  merge(p, results, _ctx, page?: ScanPage) {
    const { merged, found, truncations, notes } = mergeRankedWalks(results, p.req, isListedDir);
    const ranked = p.topN !== undefined ? merged.slice(0, p.topN) : merged;
    const rows = page ? ranked.slice(page.start) : ranked;
    return {
      path: p.req.path,
      multi: p.hosts.length > 1,
      sizes: p.req.dirSizes,
      rows,
      found,
      truncations,
      notes,
      hosts: results.map((r) => r.status),
      ...(page ? { cursorAfter: (shown: number) => page.next(page.start + shown, ranked.length) } : {}),
    };
  },
};

function directoriesToFleet(l: DirectoryListing): MessageInitShape<typeof ListDirectoriesResponseSchema> {
  return {
    path: l.path,
    entries: l.rows.map((r) => ({ host: r.host, entry: entryOut(r.entry) })),
    recursiveSizes: l.sizes,
    found: int64(l.found),
    truncations: l.truncations.map(hostTruncationToWire),
    notes: notesToWire(l.notes),
    hosts: l.hosts.map(hostStatusToWire),
    nextCursor: l.cursorAfter?.(l.rows.length) ?? '',
  };
}

export const listDirectoriesTool = defineTool({
  name: 'list_directories',
  title: 'Subdirectories',
  description:
    'Which subdirectories does path have, and which are largest? Its immediate subdirectories on hosts, merged; order_by=size sizes each recursively (du -b).',
  input,
  output,

  plan(a, ctx): Plan {
    // Only a scan's cursor continues list_directories (run-tool.ts takes those before the plan).
    if (a.cursor !== undefined) throw invalidCursor('the same host, path, order_by, sort and top_n');
    const req = resolveWalkRequest({
      path: a.path,
      shape: 'ranked',
      maxDepth: 1,
      order: a.order_by,
      direction: a.sort,
      topN: a.top_n ?? DIRECTORIES_FETCH_LIMIT,
      types: ['dir'],
      dirSizes: a.order_by === 'size',
      oneFileSystem: true,
      deadlineMs: walkDeadlineMs(ctx.options),
    });
    return { hosts: ctx.fleet.select(a.host), req, topN: a.top_n };
  },

  ...withScan(directoriesScan),

  mcp(l: DirectoryListing, ctx) {
    const nodes: NodeJson[] = [];
    const rows: TableRow[] = [];
    for (const { host, entry } of l.rows) {
      const name = displayPath(baseName(entry.path));
      const node: NodeJson = { ...(l.multi ? { host } : {}), name, modified: modified(entry) };
      if (l.sizes) {
        node.size = entry.size;
        if (entry.sizePartial) node.size_partial = true;
      }
      nodes.push(node);
      rows.push({
        host,
        name,
        // A lower bound is marked as disk_usage marks it: ≥ before the size.
        size: l.sizes ? `${entry.sizePartial ? '≥' : ''}${humanSize(entry.size)}` : undefined,
        modified: node.modified,
      });
    }
    const columns = [...(l.multi ? ['host'] : []), 'name', ...(l.sizes ? ['size'] : []), 'modified'];
    const hs = fitFailedHosts(l.hosts, l.path, l.multi, ctx.options);
    const build = (shown: number, cut: AnswerCut): McpAnswer => {
      const truncations = l.truncations.map((t) => truncationJson(t.host, t.truncation));
      if (hs.truncation) truncations.push(hs.truncation);
      const warnings = l.truncations.map((t) => truncationWarning(t, l.path));
      for (const n of l.notes) warnings.push(noteLine(n, true));
      // What top_n left out of what was found.
      if (l.rows.length < l.found) truncations.push(topNRecord(l.rows.length, l.found));
      const next = l.cursorAfter?.(shown);
      if (shown < l.rows.length) {
        truncations.push(cutRecord(cut, shown, l.rows.length));
        warnings.push(
          next === undefined
            ? `[WARNING] answer cut at ${cut.words} after ${shown} of ${l.rows.length} directories; ask with a smaller top_n, or page with list_files type=directory`
            : `[WARNING] answer cut at ${cut.words} after ${shown} of ${l.rows.length} directories; next_cursor goes on from there`,
        );
      }
      const headline =
        l.found === 0
          ? `No directories found in '${l.path}'`
          : `${l.found} ${l.found === 1 ? 'directory' : 'directories'} in '${l.path}'${shown < l.found ? `, showing ${shown}` : ''}` +
            (l.sizes ? ' (sizes: recursive, one file system; + = lower bound)' : '');
      const table =
        shown > 0
          ? renderAligned(columns, rows.slice(0, shown), {
              right: ['size'],
              headers: { host: 'HOST', name: 'NAME', size: 'SIZE', modified: 'MODIFIED' },
            })
          : [];
      const cuts = withNextPage(truncations, next, shown, l.rows.length);
      const structured: ListDirectoriesAnswer = {
        path: l.path,
        nodes: nodes.slice(0, shown),
        total: shown,
        found: l.found,
        shown,
        truncated: cuts.length > 0,
        truncations: cuts,
        ...(l.notes.length > 0 ? { notes: l.notes } : {}),
        ...(next !== undefined ? { next_cursor: next } : {}),
        ...hs.json,
      };
      return { structured, text: [headline, ...table, ...warnings, ...hs.failures].join('\n') };
    };
    return fitAnswer({
      rows: l.rows.length,
      // An aligned line costs about its cells and their padding.
      rowCost: (i) => rowSize(Object.values(rows[i]).join('    '), nodes[i]),
      build,
      options: ctx.options,
    }).answer;
  },

  fleet: { method: 'ListDirectories', present: directoriesToFleet },
});
