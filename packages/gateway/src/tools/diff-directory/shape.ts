// diff_directory's arguments, answer schema and the shapes its plan, collection and presenters share.
import {
  COMPARE_ATTRIBUTES,
  type CompareAttribute,
  DEFAULT_COMPARE,
  type DirDiff,
  type DistinctListings,
  type WalkRequest,
} from '@fleetls/core';
import { z } from 'zod';
import type { FleetHost } from '../../fleet/fleet-types.js';
import * as s from '../schemas.js';
import type { ToolResult } from '../tool.js';

export const input = {
  ...s.hostPath,
  depth: s.treeDepth('compared'),
  compare: z
    .array(
      z.enum(COMPARE_ATTRIBUTES, {
        error: (iss) =>
          `compare: ${JSON.stringify(iss.input)} is not an attribute; use any of ${COMPARE_ATTRIBUTES.join(', ')}`,
      }),
      { error: `compare must be a list of ${COMPARE_ATTRIBUTES.join(', ')}` },
    )
    .min(1, { error: 'compare must name at least one attribute' })
    .max(COMPARE_ATTRIBUTES.length * 2, { error: 'compare lists too many attributes' })
    .default([...DEFAULT_COMPARE])
    .describe('Attributes compared (owner: uid and gid)'),
  max_items_per_dir: s.itemsPerDir(1000).describe('Entries compared per nested directory'),
  cursor: s.cursor(2048, 'same arguments'),
};

const valueSchema = z.object({
  hosts: z
    .array(z.string())
    .describe('Hosts with this value; where groups name only their first hosts, the hosts beyond `groups`'),
  groups: z.array(z.string()).optional().describe('Groups whose compared hosts all have this value'),
  present: z.boolean(),
  type: z.string().optional(),
  link_target: z.string().optional(),
  size: z.number().optional(),
  mode: z.string().optional(),
  uid: z.number().optional(),
  gid: z.number().optional(),
  mtime: z.string().optional(),
  error: z.string().optional(),
});

export const output = {
  path: z.string(),
  compare: z.array(z.string()),
  depth: z.number(),
  groups: z.array(
    z.object({
      id: z.string(),
      count: z.number(),
      baseline: z.boolean(),
      hosts: z.array(z.string()).describe('Its hosts; over many hosts the first few (count has them all)'),
    }),
  ),
  differences: z.array(
    z.object({
      path: z.string(),
      values: z.array(valueSchema),
      not_compared: z.array(z.string()).optional(),
      not_compared_count: z.number().optional(),
    }),
  ),
  total: z.number(),
  start_index: z.number(),
  count: z.number(),
  next_cursor: z.string().optional(),
  ...s.cutFields,
  hosts: z.array(s.hostStatusSchema),
  scan: s.scanSchema.optional(),
};

export type ValueJson = z.infer<typeof valueSchema>;
export type DiffDirectoryAnswer = s.Parsed<typeof output>;

export interface Plan {
  hosts: FleetHost[];
  req: WalkRequest;
  compare: CompareAttribute[];
  fingerprint: string;
  start: number;
  /** The call's distinct listings: each host's walk is kept here as it arrives, once per distinct tree. */
  listings: DistinctListings;
}

export interface DirectoryDiff extends ToolResult {
  path: string;
  depth: number;
  compare: readonly string[];
  diff: DirDiff;
  /** Hosts whose listings were compared. */
  compared: number;
  start: number;
  cursorAfter(shown: number): string | undefined;
}
