// stat: one path on each host, everything lstat knows plus owner and group names.
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  displayPath,
  formatMtime,
  humanSize,
  modeString,
  normalizeRequestPath,
  octalMode,
  type StatInfo,
} from '@fleetls/core';
import type { FleetStatResponseSchema } from '@fleetls/proto/fleet_pb';
import { z } from 'zod';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { type ScanFace, type ScanPage, withScan } from '../../scans/face.js';
import * as s from '../schemas.js';
import { type AnswerCut, fitAnswer, rowSize } from '../shared/answer-size.js';
import { formatStat } from '../shared/cli-format.js';
import { invalidCursor } from '../shared/cursor-arg.js';
import { statOut } from '../shared/fleet-entries.js';
import { hostStatusToWire } from '../shared/fleet-present.js';
import { fitHostStatuses } from '../shared/host-statuses.js';
import { failureLine, pendingLine, typeWord } from '../shared/present.js';
import { defineTool, type McpAnswer, type ToolResult } from '../tool.js';

const input = {
  host: s.host(),
  path: s.path,
  cursor: s.cursor(64, 'same arguments'),
};

const statResultSchema = z.object({
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

const output = {
  path: z.string(),
  results: z.array(statResultSchema),
  next_cursor: z.string().optional(),
  hosts: z.array(s.hostStatusSchema),
  /** Present when the host statuses were cut (over many hosts): its record says how many of each status. */
  truncations: z.array(s.truncationSchema).optional(),
  scan: s.scanSchema.optional(),
};

type Args = z.output<z.ZodObject<typeof input>>;
type StatJson = z.infer<typeof statResultSchema>;
export type StatAnswer = z.infer<z.ZodObject<typeof output>>;

interface Plan {
  hosts: FleetHost[];
  path: string;
}

export interface StatListing extends ToolResult {
  path: string;
  multi: boolean;
  /** Per host in selector order: its stat, or none when it failed. */
  rows: { host: string; stat?: StatInfo }[];
  /** The cursor after the first `shown` rows (a scan page's); undefined when none follows. */
  cursorAfter?(shown: number): string | undefined;
}

function statJson(host: string, path: string, st: StatInfo): StatJson {
  const e = st.entry;
  const out: StatJson = {
    host,
    path,
    type: typeWord(e),
    size: e.size,
    mode: octalMode(e.mode),
    permissions: modeString(e.mode, e.type),
    owner: st.owner,
    group: st.group,
    uid: e.uid,
    gid: e.gid,
    modified: formatMtime(e.mtimeSec, e.mtimeNsec, e.utcOffsetMin),
    accessed: formatMtime(st.atimeSec, st.atimeNsec, e.utcOffsetMin),
    changed: formatMtime(st.ctimeSec, st.ctimeNsec, e.utcOffsetMin),
    inode: e.inode,
    nlink: e.nlink,
  };
  if (e.linkTarget !== undefined) out.link_target = displayPath(e.linkTarget);
  if (st.notes && st.notes.length > 0) out.notes = [...st.notes];
  return out;
}

function statLines(j: StatJson): string[] {
  const lines = [
    `path: ${j.path}`,
    `type: ${j.type}`,
    `size: ${j.size} (${humanSize(j.size)})`,
    `mode: ${j.mode} (${j.permissions})`,
    `owner: ${j.owner} (uid ${j.uid})`,
    `group: ${j.group} (gid ${j.gid})`,
    `modified: ${j.modified}`,
    `accessed: ${j.accessed}`,
    `changed: ${j.changed}`,
    `inode: ${j.inode}`,
    `links: ${j.nlink}`,
  ];
  if (j.link_target !== undefined) lines.push(`target: ${j.link_target}`);
  for (const n of j.notes ?? []) lines.push(`[NOTE] ${n}`);
  return lines;
}

const statScan: ScanFace<Plan, StatInfo, StatListing> = {
  hosts: (p) => p.hosts,
  task: (p) => (b, _h, signal) => b.stat(p.path, false, signal),
  entries: () => 1,
  merge(p, results, _ctx, page?: ScanPage) {
    // A scan page's rows: the batch's hosts' stats, statuses of the pending ones after them.
    const listed = page ? results.filter((r) => r.status.status !== 'pending') : results;
    const rows = listed
      .map((r) => ({ host: r.host.name, ...(r.value ? { stat: r.value } : {}) }))
      .slice(page?.start ?? 0);
    const total = listed.length;
    return {
      path: p.path,
      multi: p.hosts.length > 1,
      rows,
      hosts: [
        ...listed.slice(page?.start ?? 0).map((r) => r.status),
        ...results.filter((r) => r.status.status === 'pending').map((r) => r.status),
      ],
      ...(page ? { cursorAfter: (shown: number) => page.next(page.start + shown, total) } : {}),
    };
  },
};

function statToFleet(l: StatListing): MessageInitShape<typeof FleetStatResponseSchema> {
  return {
    path: l.path,
    results: l.rows.map((r) =>
      r.stat
        ? {
            host: r.host,
            stat: statOut(r.stat),
            notes: r.stat.notes ?? [],
          }
        : { host: r.host, notes: [] },
    ),
    hosts: l.hosts.map(hostStatusToWire),
    nextCursor: l.cursorAfter?.(l.rows.length) ?? '',
  };
}

export const statTool = defineTool({
  name: 'stat',
  title: 'File metadata',
  description:
    'What is this path? On each host: type, size, mode, owner, group, times (host’s UTC offset), inode, links, symlink target (not followed).',
  input,
  output,

  plan(a: Args, ctx): Plan {
    // Only a scan's cursor continues a stat (run-tool.ts takes those before the plan).
    if (a.cursor !== undefined) throw invalidCursor('the same host and path');
    const path = normalizeRequestPath(a.path, 'path');
    return { hosts: ctx.fleet.select(a.host), path };
  },

  ...withScan(statScan),

  mcp(l: StatListing, ctx) {
    // One row per host: its block of lines (or its failure line) and its result.
    const blocks = l.rows.map((r, i) => {
      const prefix = l.multi ? `${r.host}: ` : '';
      const j = r.stat ? statJson(r.host, l.path, r.stat) : undefined;
      const lines = j ? statLines(j) : [failureLine(l.hosts[i], l.path)];
      return { text: lines.map((line) => prefix + line).join('\n'), json: j };
    });
    // The failed hosts' lines are blocks above: the host statuses add only their JSON.
    const hs = fitHostStatuses(l.hosts, ctx.options);
    const build = (n: number, cut: AnswerCut): McpAnswer => {
      const lines = blocks.slice(0, n).map((b) => b.text);
      const next = l.cursorAfter?.(n);
      if (n < blocks.length) {
        lines.push(
          next === undefined
            ? `[WARNING] answer cut at ${cut.words}: ${blocks.length - n} of ${blocks.length} hosts not shown; ask fewer hosts at once`
            : `[WARNING] answer cut at ${cut.words} after ${n} of ${blocks.length} hosts; next_cursor goes on from there`,
        );
      }
      const pending = pendingLine(l.hosts);
      if (pending) lines.push(pending);
      lines.push(...hs.lines);
      const results = blocks.slice(0, n).flatMap((b) => (b.json ? [b.json] : []));
      const structured: StatAnswer = { path: l.path, results, ...hs.json };
      if (hs.truncation) structured.truncations = [hs.truncation];
      if (next !== undefined) structured.next_cursor = next;
      return { structured, text: lines.join('\n') };
    };
    return fitAnswer({
      rows: blocks.length,
      rowCost: (i) => rowSize(blocks[i].text, blocks[i].json ?? null),
      build,
      options: ctx.options,
    }).answer;
  },

  cli: {
    command: 'stat',
    description: 'describe PATH on the selected hosts',
    argument: { syntax: '<SELECTOR:PATH>', description: 'hosts and absolute path, e.g. web-1:/etc/passwd' },
    omits: ['cursor'],
    render(l, style) {
      const items = l.rows.flatMap((r) => (r.stat ? [statJson(r.host, l.path, r.stat)] : []));
      return { out: formatStat(items, { showHost: l.multi, style }), err: [] };
    },
  },

  fleet: { method: 'Stat', present: statToFleet },
});
