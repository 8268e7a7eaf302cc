// list_files' arguments, answer schema and the shapes its plan, collection and presenters share.
import {
  type EntryType,
  type FilterFeature,
  MAX_PATH_CURSOR_LENGTH,
  type PathCursor,
  type WalkRequest,
} from '@fleetls/core';
import { z } from 'zod';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { SNAPSHOT_ROWS } from '../../fleet/page-store.js';
import * as s from '../schemas.js';
import { filterInput } from '../shared/filter-args.js';
import type { HostEntry, HostNote, HostTruncation } from '../shared/host-walks.js';
import type { ToolResult } from '../tool.js';

export const LIMIT = { min: 1, max: 5000, default: 200 } as const;
// start_index + limit stays within what a ranking keeps: the agents' top-N ceiling.
export const START_INDEX = { min: 0, max: SNAPSHOT_ROWS - LIMIT.max } as const;
const MAX_DEPTH = { min: 0, max: s.DEPTH.max, default: 0 } as const;
export const FILE_TYPES = ['file', 'directory', 'symlink', 'any'] as const;
export type FileType = (typeof FILE_TYPES)[number];

export const input = {
  ...s.hostPath,
  order_by: s.orderBy,
  sort: s.sort,
  top_n: s.topN,
  max_depth: s
    .int('max_depth', MAX_DEPTH.min, MAX_DEPTH.max)
    .default(MAX_DEPTH.default)
    .describe('Levels below path (0 = its own entries)'),
  pattern: z
    .string({ error: 'pattern must be a string: a glob' })
    .max(1024, { error: 'pattern must be at most 1024 characters' })
    .default('')
    .describe('Glob on the relative path (*.log at any depth, ** crosses /)'),
  // Every type by default, as `fleetls ls` and ls: asked what is in /var/log, a model is shown
  // apt/ and journal/ beside the files (type=file for files only, e.g. the largest files).
  type: z
    .enum(FILE_TYPES, { error: `type must be one of ${FILE_TYPES.join(', ')}` })
    .default('any')
    .describe('Row type'),
  start_index: s.int('start_index', START_INDEX.min, START_INDEX.max).default(0).describe('Rows skipped'),
  limit: s.int('limit', LIMIT.min, LIMIT.max).default(LIMIT.default).describe('Rows per page'),
  cursor: s.cursor(MAX_PATH_CURSOR_LENGTH, 'same arguments; overrides start_index'),
  ...filterInput,
};

export const FILE_COLUMNS = ['host', 'path', 'name', 'type', 'size', 'modified'] as const;

const fileItemSchema = z.object({
  /** Only when several hosts were asked. */
  host: z.string().optional(),
  path: z.string(),
  name: z.string(),
  type: z.string().optional().describe('entry type: directory, symlink, fifo, socket, char, block; absent = file'),
  size: z.number(),
  modified: z.string(),
  link_target: z.string().optional(),
  error: s.entryErrorSchema.optional(),
});

export const output = {
  kind: z.literal('files.list'),
  columns: z.array(z.string()),
  items: z.array(fileItemSchema),
  count: z.number(),
  total: z
    .number()
    .optional()
    .describe('Rows in the whole listing; in name order absent until a page reaches the end (follow next_cursor)'),
  found: z
    .number()
    .optional()
    .describe('Entries that matched on all hosts; in a ranked order beyond total when top-K kept only total'),
  start_index: z.number(),
  ...s.pageTail,
};

export type Args = s.Parsed<typeof input>;
export type FileItem = z.infer<typeof fileItemSchema>;
export type ListFilesAnswer = s.Parsed<typeof output>;

export const TYPES: Record<FileType, EntryType[]> = {
  file: ['file'],
  directory: ['dir'],
  symlink: ['symlink'],
  any: [],
};
export const NOUN = { file: 'files', directory: 'directories', symlink: 'symlinks', any: 'entries' } as const;

export interface Plan {
  hosts: FleetHost[];
  req: WalkRequest;
  /** Name order: path order, paged by resuming the walks from here. Absent: a ranked order. */
  path?: PathCursor;
  fingerprint: string;
  /** Index of the page's first row in the merged ranking. */
  start: number;
  /** The kept ranking the cursor names, if any. */
  snapshot?: string;
  /** Keep the ranking this page makes, for the pages after it. */
  keep: boolean;
  limit: number;
  cap: number;
  topN?: number;
  type: FileType;
  pattern: string;
}

/** A page of the merged ranking. */
export interface FileListing extends ToolResult {
  /** The requested root as the hosts were asked it. */
  path: string;
  multi: boolean;
  type: FileType;
  pattern: string;
  /** The find-like filters the hosts applied (their argument names). */
  filters: FilterFeature[];
  /** The page: merged rows from `start`, at most `limit`. */
  rows: HostEntry[];
  start: number;
  /** Rows in the whole list (top_n applied); undefined in path order until its end is in sight. */
  total?: number;
  /** Entries that passed the filters, over all hosts (undefined when not known yet). */
  found?: number;
  /** Path order (name): rows are not ranked, nothing is left out but by top_n. */
  pathOrder: boolean;
  /** Path order: top_n cut the listing (more entries follow its first top_n). */
  topCut?: boolean;
  /** top_n as asked. */
  topN?: number;
  truncations: HostTruncation[];
  notes: HostNote[];
  /** The cursor of the row after the page's first `shown` rows; undefined when the ranking ends there. */
  cursorAfter(shown: number): string | undefined;
}
