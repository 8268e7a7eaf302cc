// Fleet.Walk: one walk over a selector, streamed as hosts answer, for live dashboards:
// each host's `walking` then `done` state, its rows in batches as its backend yields them,
// and the merged summary last. Arguments are parsed with the tools' own schema pieces, so
// bad ones get the same messages; a host's failure is its status, never the call's, by the
// tools' rules (a root that cannot be listed included).
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { type Row, resolveWalkRequest, type WalkRequest } from '@fleetls/core';
import { type FleetWalkEvent, FleetWalkEventSchema } from '@fleetls/proto/fleet_pb';
import { z } from 'zod';
import { fanOut } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { fanOutOptions } from '../../scans/call.js';
import { runTool } from '../../tools/run-tool.js';
import * as s from '../../tools/schemas.js';
import { int64, rowOut } from '../../tools/shared/fleet-entries.js';
import { hostStatusToWire, hostTruncationToWire, notesToWire } from '../../tools/shared/fleet-present.js';
import {
  type HostNote,
  type HostTruncation,
  lossTruncations,
  streamHostWalk,
  walkDeadlineMs,
  withinBudget,
} from '../../tools/shared/host-walks.js';
import { defineTool, type Tool, type ToolContext, type ToolResult } from '../../tools/tool.js';

export const WALK_INPUT = {
  ...s.hostPath,
  max_depth: s.int('max_depth', s.DEPTH.min, s.DEPTH.max).default(2),
  max_items_per_dir: s.itemsPerDir(100),
  dir_sizes: z.boolean({ error: 'dir_sizes must be true or false' }).default(false),
};

/** Rows one host may stream at most: a dashboard's view, not an export. */
const WALK_MAX_ENTRIES = 50_000;

/** One message of the stream (FleetWalkEvent's oneof, by case). */
function event(e: MessageInitShape<typeof FleetWalkEventSchema>['event']): FleetWalkEvent {
  return create(FleetWalkEventSchema, { event: e });
}

interface WalkPlan {
  hosts: FleetHost[];
  req: WalkRequest;
}

interface WalkResult extends ToolResult {
  /** Rows streamed, for the audit line (audit.ts). */
  rowsSent: number;
  entries: number;
  truncations: HostTruncation[];
  notes: HostNote[];
}

/**
 * Walk as a tool of its own (not in the registry: no MCP or CLI face), so a call runs through
 * runTool like the others (parsed, deadline, metrics, audit line), and each host through the
 * tools' streamHostWalk (a root that cannot be listed is the host's status). Each event goes
 * to `send`, which resolves when the client can take more, so a slow reader slows the hosts'
 * walks rather than filling the gateway's memory.
 */
function walkTool(send: (e: FleetWalkEvent) => Promise<void>): Tool<typeof WALK_INPUT, WalkPlan, WalkResult> {
  return defineTool({
    name: 'walk',
    // A grant allows the tree stream with the tree tool.
    grantedAs: 'list_directory',
    title: 'Walk (Fleet API stream)',
    description: 'The tree under path on each host, streamed as hosts answer.',
    input: WALK_INPUT,
    output: {},
    plan: (a, ctx) => ({
      hosts: ctx.fleet.select(a.host),
      req: resolveWalkRequest({
        path: a.path,
        shape: 'tree',
        maxDepth: a.max_depth,
        maxItemsPerDir: a.max_items_per_dir,
        capRoot: false,
        maxEntries: WALK_MAX_ENTRIES,
        dirSizes: a.dir_sizes,
        deadlineMs: walkDeadlineMs(ctx.options),
      }),
    }),
    async collect({ hosts, req }, ctx) {
      const truncations: HostTruncation[] = [];
      const notes: HostNote[] = [];
      let rowsSent = 0;
      let entries = 0;
      const results = await fanOut(
        ctx.fleet,
        hosts,
        async (backend, host, signal, budgetMs) => {
          await send(event({ case: 'host', value: { host: host.name, state: 'walking' } }));
          const summary = await streamHostWalk(
            backend.walk.bind(backend),
            withinBudget(req, budgetMs),
            signal,
            (batch: Row[]) => {
              rowsSent += batch.length;
              entries += batch.filter((row) => row.kind === 'entry').length;
              return send(event({ case: 'rows', value: { host: host.name, rows: batch.map(rowOut) } }));
            },
          );
          for (const truncation of lossTruncations(summary)) truncations.push({ host: host.name, truncation });
          for (const note of summary.notes ?? []) notes.push({ host: host.name, note });
          return summary;
        },
        {
          ...fanOutOptions(ctx),
          onHostDone: (status) => {
            void send(
              event({ case: 'host', value: { host: status.host, state: 'done', status: hostStatusToWire(status) } }),
            );
          },
        },
      );
      const hostStatuses = results.map((r) => r.status);
      await send(
        event({
          case: 'summary',
          value: {
            hosts: hostStatuses.map(hostStatusToWire),
            truncations: truncations.map(hostTruncationToWire),
            notes: notesToWire(notes),
            entries: int64(entries),
          },
        }),
      );
      return { hosts: hostStatuses, rowsSent, entries, truncations, notes };
    },
    // Only the audit line reads it (the answer's size): the summary, as the stream ends with it.
    mcp: (r) => ({
      structured: { entries: r.entries, truncations: r.truncations, notes: r.notes },
      text: `${r.entries} entries from ${r.hosts.length} hosts`,
    }),
  });
}

/** Runs the walk through runTool, handing each event to `send`. */
export async function streamWalk(
  args: Record<string, unknown>,
  ctx: ToolContext,
  send: (e: FleetWalkEvent) => Promise<void>,
): Promise<void> {
  await runTool(walkTool(send), args, ctx);
}
