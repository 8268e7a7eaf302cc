// The zod pieces every tool's arguments and answers are built from. The MCP server
// registers each tool's shapes as inputSchema/outputSchema and every face parses with them,
// so the CLI gets the same defaults, bounds and messages. Messages name the argument and its bounds.
import { ENTRY_ERROR_CODES, HOST_STATUSES, invalidArgument, ORDER_BY, SORT_DIRECTIONS, VIAS } from '@fleetls/core';
import { z } from 'zod';
import { controlByteMessage, findControlBytes } from './shared/control-bytes.js';
import { nearestName } from './shared/nearest-name.js';

export const PATH_LENGTH = 4096;
export const SELECTOR_LENGTH = 4096;
export const TOP_N = { min: 1, max: 1000 } as const;
/** Levels a tree (list_directory, diff_directory, the Fleet API's Walk) goes below its path. */
export const DEPTH = { min: 1, max: 10 } as const;
/** Entries shown or compared per nested directory of such a tree. */
export const ITEMS_PER_DIR = { min: 1, max: 10_000 } as const;

export const int = (name: string, min: number, max: number) => {
  const msg = `${name} must be an integer from ${min} to ${max}`;
  return z.number({ error: msg }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
};

/** A tree's `depth` (list_directory, diff_directory): levels below path, 2 unless asked; `what` the tool does at each. */
export const treeDepth = (what: string) =>
  int('depth', DEPTH.min, DEPTH.max).default(2).describe(`Levels ${what} (1 = the path’s own entries)`);

/** A tree's `max_items_per_dir` (list_directory, diff_directory, the Fleet API's Walk): `dflt` unless asked. */
export const itemsPerDir = (dflt: number) =>
  int('max_items_per_dir', ITEMS_PER_DIR.min, ITEMS_PER_DIR.max).default(dflt);

export const host = (dflt?: string) => {
  const s = z
    .string({
      error: (iss) => (iss.input === undefined ? 'host is required' : 'host must be a string: a host selector'),
    })
    .min(1, {
      error: 'host must not be empty: a name, a comma list, a glob like web-*, @group, label:key=value, or all',
    })
    .max(SELECTOR_LENGTH, { error: `host must be at most ${SELECTOR_LENGTH} characters` })
    .describe('localhost, web-*, @group, label:k=v, all');
  return dflt === undefined ? s : s.default(dflt);
};

export const path = z
  .string({
    error: (iss) => (iss.input === undefined ? 'path is required' : 'path must be a string: an absolute path'),
  })
  .min(1, { error: 'path must be an absolute path starting with /' })
  .max(PATH_LENGTH, { error: `path must be at most ${PATH_LENGTH} characters` })
  .describe('Absolute path');

/** The arguments of a tool that looks at one path on the selected hosts (`SELECTOR:PATH` on the CLI). */
export const hostPath = { host: host(), path };

/**
 * Help for a CLI flag where the argument's `.describe()` is missing or too terse for it
 * (faces/cli/tool-flags.ts reads it). A registry of its own: MCP's inputSchema does not carry it.
 */
export const cliHelp = z.registry<{ help: string }>();

export const orderBy = z
  .enum(ORDER_BY, { error: `order_by must be one of ${ORDER_BY.join(', ')}` })
  .default('name')
  .describe('name = path order')
  .register(cliHelp, { help: 'sort key (name = path order)' });
export const sort = z
  .enum(SORT_DIRECTIONS, { error: `sort must be one of ${SORT_DIRECTIONS.join(', ')}` })
  .default('ascending')
  .describe('descending: largest first')
  .register(cliHelp, { help: 'sort direction' });
export const topN = int('top_n', TOP_N.min, TOP_N.max).optional().describe('The first N only');

export const cursor = (maxLength: number, goesOnWith: string) =>
  z
    .string({ error: 'cursor must be a string from a previous next_cursor' })
    .max(maxLength, { error: `cursor must be at most ${maxLength} characters` })
    .optional()
    .describe(`next_cursor, ${goesOnWith}`);

// ---- answers ----

export const hostStatusSchema = z.object({
  host: z.string(),
  status: z.enum(HOST_STATUSES),
  via: z.enum(VIAS),
  elapsed_ms: z.number(),
  message: z.string().optional(),
});

/** A scan page's `scan`: where the scan that goes on past the call's deadline stands. */
/** Set when the caller's grant narrowed a wide selector (`all`, a glob, @group) to the hosts it may ask. */
export const narrowedSchema = z.string().describe("How the caller's grant narrowed the host selector");

export const scanSchema = z.object({
  id: z.string(),
  /** running: hosts still walking; complete: every host done; cancelled: stopped. */
  state: z.enum(['running', 'complete', 'cancelled']),
  /** Every row of the scan has been on this page or an earlier one: no next_cursor follows. */
  complete: z.boolean(),
  hosts_done: z.number(),
  hosts_total: z.number(),
  hosts_delivered: z.number(),
  /** Done hosts that failed (at most the first 50 names; failed_count counts all). */
  failed: z.array(z.string()),
  failed_count: z.number(),
  entries_seen: z.number(),
  elapsed_ms: z.number(),
  estimate_ms: z.number().optional(),
  /** A ranked order: false while hosts that could add higher rows are pending. */
  ranking_final: z.boolean().optional(),
});

/**
 * A cut: a host's walk (host, dir, reason depth, items_per_dir, max_entries, deadline, top_n),
 * the answer itself cut to its budget (reason bytes or tokens with that budget's limit, no
 * host or dir), as the [WARNING] line beside it says, the host statuses of a call over many
 * hosts (reason host_statuses: `shown` of `total` hosts listed in `hosts`, `by_status` counts
 * all), the listing cut at top_n (reason top_n, no host: `shown` of `total` found) or at the
 * ranking's 100,000 kept rows (reason kept), or the rows after this page (reason page: a
 * next_cursor goes on). diff_directory over many hosts adds: the groups' names cut (reason
 * group_hosts: `shown` of `total` hosts named), one host's cut told for `hosts` hosts, and
 * the kinds of cut past its share counted (reason host_cuts). `truncated` is true exactly
 * when one of these is there.
 */
export const truncationSchema = z.object({
  host: z.string().optional(),
  dir: z.string().optional(),
  shown: z.number(),
  /** Absent where it is not known yet (a page of a name-order listing before its end). */
  total: z.number().optional(),
  reason: z.string(),
  limit: z.number().optional(),
  by_status: z.partialRecord(z.enum(HOST_STATUSES), z.number()).optional(),
  /** The same walk cut on this many hosts, `host` the first of them (diff_directory over many hosts). */
  hosts: z.number().optional(),
});

/** Something about how a host was listed that limits its rows (e.g. the SSH backend's SFTP fallback). */
export const noteSchema = z.object({ host: z.string(), note: z.string() });

/** A page's cuts: whether anything was left out, and what (every listing's answer has both). */
export const cutFields = {
  truncated: z.boolean(),
  truncations: z.array(truncationSchema),
};

/** What ends every fan-out listing's answer: how hosts were listed, their statuses, the scan a page belongs to. */
export const hostFields = {
  notes: z.array(noteSchema).optional(),
  hosts: z.array(hostStatusSchema),
  scan: scanSchema.optional(),
};

/** The tail of a page of rows (list_files, disk_usage): the cursor of the next page, its cuts and hosts. */
export const pageTail = {
  next_cursor: z.string().optional(),
  ...cutFields,
  ...hostFields,
};

export const entryErrorSchema = z.object({ code: z.enum(ENTRY_ERROR_CODES), detail: z.string() });

/** `maxDepth: unknown argument; did you mean max_depth?`, or the known names when none is close. */
export function unknownArgumentMessage(key: string, known: readonly string[]): string {
  const near = nearestName(key, known);
  return near !== undefined
    ? `${key}: unknown argument; did you mean ${near}?`
    : `${key}: unknown argument; known: ${known.join(', ')}`;
}

const argsObjects = new WeakMap<z.ZodRawShape, z.ZodObject>();

/**
 * A tool's arguments as one strict object: its JSON Schema says `additionalProperties:
 * false` to clients, and an unknown argument is an error naming the nearest known one
 * (the MCP SDK validates with this same object before the handler, so nothing is dropped).
 * A string argument holding a C0 control character is refused here too (tools/shared/control-bytes.ts).
 */
export function argsObject<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  let o = argsObjects.get(shape);
  if (!o) {
    const known = Object.keys(shape);
    o = z
      .strictObject(shape, {
        error: (iss) =>
          iss.code === 'unrecognized_keys'
            ? iss.keys.map((k) => unknownArgumentMessage(k, known)).join('; ')
            : undefined,
      })
      // `when`: runs whatever else failed (an enum refusing the same string included), so a
      // control character is always named as such.
      .superRefine(
        (args, ctx) => {
          for (const c of findControlBytes(args)) {
            ctx.addIssue({ code: 'custom', message: controlByteMessage(c), path: [] });
          }
        },
        { when: () => true },
      );
    argsObjects.set(shape, o);
  }
  return o as z.ZodObject<S, z.core.$strict>;
}

function valueAt(args: unknown, path: readonly PropertyKey[]): unknown {
  let v = args;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * What a tool's zod shape parses to, defaults filled: from `input`, the arguments its `plan`
 * takes; from `output`, its structuredContent. Every tool names both so.
 */
export type Parsed<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

/** Parses tool arguments with defaults; a bad one throws invalid_argument naming it and its bounds. */
export function parseArgs<S extends z.ZodRawShape>(shape: S, args: unknown): Parsed<S> {
  const r = argsObject(shape).safeParse(args ?? {});
  if (r.success) return r.data as Parsed<S>;
  throw invalidArgument(
    r.error.issues
      .map((i) => {
        // zod leaves `input` out of its issues: whether the argument was given is read from the call.
        if (i.code === 'invalid_type' && i.path.length > 0 && valueAt(args, i.path) === undefined)
          return `${i.path.join('.')} is required`;
        return i.message;
      })
      .join('; '),
  );
}

/** A tool's arguments as the JSON Schema MCP clients are shown (for faces and tools that describe them). */
export function inputJsonSchema(shape: z.ZodRawShape): Record<string, unknown> {
  return z.toJSONSchema(argsObject(shape), { io: 'input' }) as Record<string, unknown>;
}
