// disk_usage's arguments, answer schema and the shapes its plan, collection and presenters share.
import { DU_MAX_DEPTH, type DuRow, type DuTotal, type WalkRequest } from '@fleetls/core';
import { z } from 'zod';
import type { FleetHost } from '../../fleet/fleet-types.js';
import * as s from '../schemas.js';
import type { HostNote, HostTruncation } from '../shared/host-walks.js';
import type { ToolResult } from '../tool.js';

const TOP = { min: 1, max: 1000, default: 20 } as const;

export const input = {
  ...s.hostPath,
  // Worded as every other integer bound (tree's --depth included), so the CLI says `--depth must be …`.
  depth: s.int('depth', 1, DU_MAX_DEPTH).default(1).describe('Levels below path, as du -d'),
  top_n: s.int('top_n', TOP.min, TOP.max).default(TOP.default).describe('The largest N over all hosts'),
  one_file_system: z
    .boolean({ error: 'one_file_system must be true or false' })
    .default(true)
    .describe('Stay on the file system of path (du -x)'),
  cursor: s.cursor(2048, 'same arguments'),
};

const rowSchema = z.object({
  /** Only when several hosts were asked, as on every tool's rows (path_totals name theirs always). */
  host: z.string().optional(),
  path: z.string(),
  /** Apparent bytes, as du -b. */
  size: z.number(),
  /** On-disk bytes, as du (st_blocks × 512); absent where the host cannot say (SFTP). */
  allocated: z.number().optional(),
  size_partial: z.boolean().optional(),
  /** Why size_partial: directories below that could not be read. */
  unreadable_dirs: z.number().optional(),
});

const totalSchema = z.object({
  host: z.string(),
  size: z.number(),
  size_partial: z.boolean().optional(),
  unreadable_dirs: z.number().optional(),
});

export const output = {
  path: z.string(),
  depth: z.number(),
  rows: z.array(rowSchema),
  /** Each answering host's total of path itself (du's last line), in host order. */
  path_totals: z.array(totalSchema),
  total: z.number(),
  found: z.number(),
  start_index: z.number(),
  count: z.number(),
  ...s.pageTail,
};

export type RowJson = z.infer<typeof rowSchema>;
export type TotalJson = z.infer<typeof totalSchema>;
export type DiskUsageAnswer = s.Parsed<typeof output>;

export interface Plan {
  hosts: FleetHost[];
  /** The listing: directories down to depth, ranked by size (LISTED_FOR_TOTAL of them, the first top_n shown). */
  req: WalkRequest;
  /** path's own entries, every type, unsized: with the listing's depth-1 rows, the total. */
  childrenReq: WalkRequest;
  /** The walk that sums path's own entries (each dir sized) for the total, where the listing cannot give it. */
  totalReq: WalkRequest;
  topN: number;
  start: number;
  fingerprint: string;
}

export interface DiskUsage extends ToolResult {
  path: string;
  depth: number;
  multi: boolean;
  /** The merged top_n, largest first. */
  rows: DuRow[];
  /** Each answering host's total of path, in host order (a host whose total walk failed has none). */
  totals: DuTotal[];
  start: number;
  /** Directories over all hosts. */
  found: number;
  truncations: HostTruncation[];
  notes: HostNote[];
  cursorAfter(shown: number): string | undefined;
}
