// list_directory's arguments, answer schema and the shapes its plan, collection and presenters share.
import {
  type HostStatus,
  MAX_TREE_CURSOR_LENGTH,
  type Row,
  type TreeCursor,
  type Truncation,
  type WalkRequest,
} from '@fleetls/core';
import { z } from 'zod';
import type { FleetHost } from '../../fleet/fleet-types.js';
import * as s from '../schemas.js';
import type { HostNote } from '../shared/host-walks.js';
import type { ToolResult } from '../tool.js';

export const input = {
  ...s.hostPath,
  depth: s.treeDepth('listed'),
  max_items_per_dir: s.itemsPerDir(100).describe('Entries shown per nested directory (not path)'),
  cursor: s.cursor(MAX_TREE_CURSOR_LENGTH, 'same arguments'),
};

const treeEntrySchema = z.object({
  /** Only when several hosts were asked. */
  host: z.string().optional(),
  name: z.string().describe('path under `path`: dirs[dir]/name (name when no dir)'),
  /** Index in `dirs` of the directory holding it; absent = directly in `path`. */
  dir: z.number().optional(),
  type: z
    .string()
    .optional()
    .describe('directory, symlink, fifo, socket, char, block, or warning (a capped directory); absent = file'),
  /** Bytes (lstat), for everything but directories. */
  size: z.number().optional(),
  link_target: z.string().optional(),
  error: s.entryErrorSchema.optional(),
  /** A per-directory [WARNING]: how many of its entries were hidden. */
  hidden: z.object({ shown: z.number(), total: z.number() }).optional(),
});

export const output = {
  path: z.string(),
  /**
   * The directories this page's rows are in, each once, as paths under `path` (the same on
   * every host): a row names its directory by index, so a deep row costs its name, not its path.
   */
  dirs: z.array(z.string()),
  entries: z.array(treeEntrySchema),
  ...s.cutFields,
  /** Present exactly when the listing was cut: pass it as `cursor` for the next page. */
  next_cursor: z.string().optional(),
  ...s.hostFields,
};

/**
 * A page's rows with their paths under `path` put back: `dirs[dir]/name`, or `name` when `dir`
 * is absent (for a caller of the structured answer, or of `fleetls tree --json`).
 */
export function treeEntryPaths<E extends { name: string; dir?: number }>(answer: {
  dirs: readonly string[];
  entries: readonly E[];
}): (E & { path: string })[] {
  return answer.entries.map((e) => ({ ...e, path: e.dir === undefined ? e.name : `${answer.dirs[e.dir]}/${e.name}` }));
}

export type TreeEntryJson = z.infer<typeof treeEntrySchema>;
export type ListDirectoryAnswer = s.Parsed<typeof output>;

export interface Plan {
  /** Every host the selector names (the cursor's host index counts in this list). */
  allHosts: FleetHost[];
  /** The hosts this page lists: from the cursor's host on. */
  hosts: FleetHost[];
  start: TreeCursor;
  req: WalkRequest;
  /** The first host's request: resumed after the cursor's row. */
  resumed: WalkRequest;
  fingerprint: string;
}

/** One host's part of a tree page. */
export interface TreeSection {
  status: HostStatus;
  /** Its rows in depth-first order (none when the host failed). */
  rows: Row[];
  /** Whole-walk caps that bit (max_entries, deadline). */
  losses: Truncation[];
}

/** A page of trees, host after host. */
export interface TreeListing extends ToolResult {
  path: string;
  multi: boolean;
  sections: TreeSection[];
  notes: HostNote[];
  /**
   * The cursor after the first `shown` rows of the page (over all sections, in order);
   * undefined when nothing follows them.
   */
  cursorAfter(shown: number): string | undefined;
}

/** Why a host has no rows on this page: a later page lists it. */
export const PENDING_MESSAGE = 'continued on the next page: call again with next_cursor';

/** A host this page does not list (it comes after the cut, or after a host that stopped early). */
export function pending(status: HostStatus): HostStatus {
  // No message per host: the status says it, and the text says it once for all of them.
  return status.status === 'pending' ? status : { host: status.host, status: 'pending', via: status.via, elapsedMs: 0 };
}
