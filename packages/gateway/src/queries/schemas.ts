// The five tools' arguments and answers, as zod shapes: the MCP server registers them as
// inputSchema/outputSchema, and the queries parse with them too, so the CLI gets the same
// defaults, bounds and messages. Every message names the argument and its bounds.
import { ENTRY_ERROR_CODES, invalidArgument, MAX_TREE_CURSOR_LENGTH, ORDER_BY, SORT_DIRECTIONS } from '@fleetls/core';
import { z } from 'zod';

export const BOUNDS = {
  depth: { min: 1, max: 10, default: 2 },
  maxItemsPerDir: { min: 1, max: 10_000, default: 100 },
  topN: { min: 1, max: 1000 },
  maxDepth: { min: 0, max: 10, default: 0 },
  // start_index + limit stays within the agents' top-N ceiling (core DEFAULT_CEILINGS.maxTopN, 100000).
  startIndex: { min: 0, max: 95_000 },
  limit: { min: 1, max: 5000, default: 200 },
  pathLength: 4096,
  selectorLength: 4096,
} as const;

const int = (name: string, min: number, max: number) => {
  const msg = `${name} must be an integer from ${min} to ${max}`;
  return z.number({ error: msg }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
};

const host = (dflt?: string) => {
  const s = z
    .string({ error: 'host must be a string: a host selector' })
    .min(1, {
      error: 'host must not be empty: a name, a comma list, a glob like web-*, @group, label:key=value, or all',
    })
    .max(BOUNDS.selectorLength, { error: `host must be at most ${BOUNDS.selectorLength} characters` })
    .describe(
      'Which hosts: localhost, a name, a comma list, a glob like web-*, @group, label:key=value from the inventory, or all',
    );
  return dflt === undefined ? s : s.default(dflt);
};

const path = z
  .string({ error: 'path must be a string: an absolute path' })
  .min(1, { error: 'path must be an absolute path starting with /' })
  .max(BOUNDS.pathLength, { error: `path must be at most ${BOUNDS.pathLength} characters` })
  .describe('Absolute path on the target hosts');

const orderBy = z
  .enum(ORDER_BY, { error: `order_by must be one of ${ORDER_BY.join(', ')}` })
  .default('name')
  .describe('Sort key: name, size or modified');
const sort = z
  .enum(SORT_DIRECTIONS, { error: `sort must be one of ${SORT_DIRECTIONS.join(', ')}` })
  .default('ascending')
  .describe('ascending or descending');
const topN = int('top_n', BOUNDS.topN.min, BOUNDS.topN.max)
  .optional()
  .describe(`Keep only the first N of the merged order (${BOUNDS.topN.min}-${BOUNDS.topN.max})`);

export const listDirectoryInput = {
  host: host(),
  path,
  depth: int('depth', BOUNDS.depth.min, BOUNDS.depth.max)
    .default(BOUNDS.depth.default)
    .describe('Levels listed: 1 = the path’s own entries (at most 10)'),
  max_items_per_dir: int('max_items_per_dir', BOUNDS.maxItemsPerDir.min, BOUNDS.maxItemsPerDir.max)
    .default(BOUNDS.maxItemsPerDir.default)
    .describe(
      'Entries shown per nested directory; the rest are counted in a [WARNING] line. The path itself is exempt',
    ),
  cursor: z
    .string({ error: 'cursor must be a string from a previous next_cursor' })
    .max(MAX_TREE_CURSOR_LENGTH, { error: `cursor must be at most ${MAX_TREE_CURSOR_LENGTH} characters` })
    .optional()
    .describe('next_cursor of the previous page, to go on from there (same host, path, depth and max_items_per_dir)'),
};

export const FILE_TYPES = ['file', 'directory', 'symlink', 'any'] as const;

export const listFilesInput = {
  host: host(),
  path,
  order_by: orderBy,
  sort,
  top_n: topN,
  max_depth: int('max_depth', BOUNDS.maxDepth.min, BOUNDS.maxDepth.max)
    .default(BOUNDS.maxDepth.default)
    .describe('Levels below path (0 = the path’s own entries, at most 10)'),
  pattern: z
    .string({ error: 'pattern must be a string: a glob' })
    .max(1024, { error: 'pattern must be at most 1024 characters' })
    .default('')
    .describe('Glob over the path relative to path (*.log matches at any depth; ** crosses directories); empty = all'),
  type: z
    .enum(FILE_TYPES, { error: `type must be one of ${FILE_TYPES.join(', ')}` })
    .default('file')
    .describe('Rows of this type only: file, directory, symlink or any'),
  start_index: int('start_index', BOUNDS.startIndex.min, BOUNDS.startIndex.max)
    .default(0)
    .describe('Rows skipped before this page (0-based)'),
  limit: int('limit', BOUNDS.limit.min, BOUNDS.limit.max)
    .default(BOUNDS.limit.default)
    .describe(`Rows in this page (${BOUNDS.limit.min}-${BOUNDS.limit.max})`),
  cursor: z
    .string({ error: 'cursor must be a string from a previous next_cursor' })
    .max(2048, { error: 'cursor must be at most 2048 characters' })
    .optional()
    .describe('next_cursor of the previous page, to go on from there (overrides start_index)'),
};

export const listDirectoriesInput = { host: host(), path, order_by: orderBy, sort, top_n: topN };

export const statInput = { host: host(), path };

export const listHostsInput = {
  host: host('all'),
  check: z
    .boolean({ error: 'check must be true or false' })
    .default(false)
    .describe('Probe each host (in parallel) for reachability and agent version'),
};

// ---- answers ----

export const hostStatusSchema = z.object({
  host: z.string(),
  status: z.enum(['ok', 'unreachable', 'timeout', 'auth', 'denied', 'not_found', 'error']),
  via: z.enum(['agent', 'ssh', 'embedded']),
  elapsed_ms: z.number(),
  message: z.string().optional(),
});

export const truncationSchema = z.object({
  host: z.string(),
  dir: z.string(),
  shown: z.number(),
  total: z.number(),
  reason: z.string(),
});

/** Something about how a host was listed that limits its rows (e.g. the SSH backend's SFTP fallback). */
export const noteSchema = z.object({ host: z.string(), note: z.string() });

const entryError = z.object({ code: z.enum(ENTRY_ERROR_CODES), detail: z.string() });

export const treeEntrySchema = z.object({
  host: z.string(),
  path: z.string(),
  type: z.string(),
  size: z.number().optional(),
  modified: z.string().optional(),
  link_target: z.string().optional(),
  error: entryError.optional(),
  /** A per-directory [WARNING]: how many of its entries were hidden. */
  hidden: z.object({ shown: z.number(), total: z.number() }).optional(),
});

export const listDirectoryOutput = {
  path: z.string(),
  entries: z.array(treeEntrySchema),
  truncated: z.boolean(),
  truncations: z.array(truncationSchema),
  /** Present exactly when the listing was cut: pass it as `cursor` for the next page. */
  next_cursor: z.string().optional(),
  notes: z.array(noteSchema).optional(),
  hosts: z.array(hostStatusSchema),
};

export const FILE_COLUMNS = ['host', 'path', 'name', 'type', 'size', 'modified'] as const;

export const fileItemSchema = z.object({
  host: z.string(),
  path: z.string(),
  name: z.string(),
  type: z.string(),
  size: z.number(),
  modified: z.string(),
  link_target: z.string().optional(),
  error: entryError.optional(),
});

export const listFilesOutput = {
  kind: z.literal('files.list'),
  columns: z.array(z.string()),
  items: z.array(fileItemSchema),
  count: z.number(),
  total: z.number(),
  found: z.number(),
  start_index: z.number(),
  result: z.string(),
  next_cursor: z.string().optional(),
  truncated: z.boolean(),
  truncations: z.array(truncationSchema),
  notes: z.array(noteSchema).optional(),
  hosts: z.array(hostStatusSchema),
};

export const nodeSchema = z.object({
  host: z.string(),
  name: z.string(),
  size: z.number().optional(),
  size_partial: z.boolean().optional(),
  modified: z.string().optional(),
});

export const listDirectoriesOutput = {
  path: z.string(),
  nodes: z.array(nodeSchema),
  total: z.number(),
  found: z.number(),
  shown: z.number(),
  truncated: z.boolean(),
  truncations: z.array(truncationSchema),
  notes: z.array(noteSchema).optional(),
  hosts: z.array(hostStatusSchema),
};

export const statResultSchema = z.object({
  host: z.string(),
  path: z.string(),
  type: z.string(),
  size: z.number(),
  mode: z.string(),
  permissions: z.string(),
  owner: z.string(),
  group: z.string(),
  uid: z.number(),
  gid: z.number(),
  modified: z.string(),
  accessed: z.string(),
  changed: z.string(),
  inode: z.number(),
  nlink: z.number(),
  link_target: z.string().optional(),
  /** What this host's stat could not know (e.g. over SFTP). */
  notes: z.array(z.string()).optional(),
});

export const statOutput = {
  path: z.string(),
  results: z.array(statResultSchema),
  hosts: z.array(hostStatusSchema),
};

export const hostRowSchema = z.object({
  host: z.string(),
  transport: z.enum(['agent', 'ssh', 'embedded']),
  address: z.string(),
  labels: z.record(z.string(), z.string()),
  groups: z.array(z.string()),
  ssh_fallback: z.boolean(),
  reachable: z.boolean().optional(),
  version: z.string().optional(),
  status: hostStatusSchema.shape.status.optional(),
  via: hostStatusSchema.shape.via.optional(),
  elapsed_ms: z.number().optional(),
  message: z.string().optional(),
});

export const listHostsOutput = {
  hosts: z.array(hostRowSchema),
  count: z.number(),
  checked: z.boolean(),
  truncated: z.boolean(),
};

/** Parses tool arguments with defaults; a bad one throws invalid_argument naming it and its bounds. */
export function parseArgs<S extends z.ZodRawShape>(shape: S, args: unknown): z.output<z.ZodObject<S>> {
  const r = z
    .object(shape)
    .strict()
    .safeParse(args ?? {});
  if (r.success) return r.data;
  throw invalidArgument(
    r.error.issues
      .map((i) => {
        if (i.code === 'unrecognized_keys')
          return `unknown argument${i.keys.length > 1 ? 's' : ''}: ${i.keys.join(', ')}`;
        if (i.code === 'invalid_type' && i.input === undefined && i.path.length > 0)
          return `${i.path.join('.')} is required`;
        return i.message;
      })
      .join('; '),
  );
}
