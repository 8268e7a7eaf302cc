// Fleet.Walk: one walk over a selector, streamed as hosts answer, for live dashboards:
// each host's `walking` then `done` state, its rows in batches as its backend yields them,
// and the merged summary last. Arguments are parsed with the tools' own schema pieces, so
// bad ones get the same messages; a host's failure is its status, never the call's.
import { type Row, resolveWalkRequest, type Truncation, type WalkRequest } from '@fleetls/core';
import { rowToWire } from '@fleetls/proto';
import { z } from 'zod';
import { fanOut } from '../fan-out.js';
import {
  fanOutOptions,
  type HostNote,
  type HostTruncation,
  lossTruncations,
  walkDeadlineMs,
} from '../tools/host-walks.js';
import * as s from '../tools/schemas.js';
import type { ToolContext } from '../tools/tool.js';
import { hostStatusToWire, hostTruncationToWire } from './present.js';

export const WALK_INPUT = {
  host: s.host(),
  path: s.path,
  max_depth: s.int('max_depth', 1, 10).default(2),
  max_items_per_dir: s.int('max_items_per_dir', 1, 10_000).default(100),
  dir_sizes: z.boolean({ error: 'dir_sizes must be true or false' }).default(false),
};

/** Rows one host may stream at most: a dashboard's view, not an export. */
const WALK_MAX_ENTRIES = 50_000;

export type WalkEvent =
  | { host: { host: string; state: 'walking' | 'done'; status?: ReturnType<typeof hostStatusToWire> } }
  | { rows: { host: string; rows: ReturnType<typeof rowToWire>[] } }
  | {
      summary: {
        hosts: ReturnType<typeof hostStatusToWire>[];
        truncations: ReturnType<typeof hostTruncationToWire>[];
        notes: HostNote[];
        entries: number;
      };
    };

/**
 * Runs the walk, handing each event to `send` (which resolves when the client can take more,
 * so a slow reader slows the hosts' walks rather than filling the gateway's memory).
 */
export async function streamWalk(
  args: Record<string, unknown>,
  ctx: ToolContext,
  send: (e: WalkEvent) => Promise<void>,
): Promise<void> {
  const a = s.parseArgs(WALK_INPUT, args);
  const hosts = ctx.fleet.select(a.host);
  const req: WalkRequest = resolveWalkRequest({
    path: a.path,
    shape: 'tree',
    maxDepth: a.max_depth,
    maxItemsPerDir: a.max_items_per_dir,
    capRoot: false,
    maxEntries: WALK_MAX_ENTRIES,
    dirSizes: a.dir_sizes,
    deadlineMs: walkDeadlineMs(ctx.options),
  });
  const truncations: HostTruncation[] = [];
  const notes: HostNote[] = [];
  let entries = 0;
  const results = await fanOut(
    ctx.fleet,
    hosts,
    async (backend, host, signal) => {
      await send({ host: { host: host.name, state: 'walking' } });
      const it = backend.walk(req, signal);
      let r = await it.next();
      while (!r.done) {
        const batch: Row[] = r.value;
        entries += batch.filter((row) => row.kind === 'entry').length;
        await send({ rows: { host: host.name, rows: batch.map(rowToWire) } });
        r = await it.next();
      }
      const lost: Truncation[] = lossTruncations(r.value);
      for (const truncation of lost) truncations.push({ host: host.name, truncation });
      for (const note of r.value.notes ?? []) notes.push({ host: host.name, note });
      return r.value;
    },
    {
      ...fanOutOptions(ctx),
      onHostDone: (status) => {
        void send({ host: { host: status.host, state: 'done', status: hostStatusToWire(status) } });
      },
    },
  );
  await send({
    summary: {
      hosts: results.map((r) => hostStatusToWire(r.status)),
      truncations: truncations.map(hostTruncationToWire),
      notes,
      entries,
    },
  });
}
