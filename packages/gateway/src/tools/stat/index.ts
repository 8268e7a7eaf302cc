// stat: one path on each host, everything lstat knows plus owner and group names. One lstat
// per host is a bounded answer: it takes no cursor and does not go on as a scan (a host that
// cannot lstat by the call's deadline is `timeout`); a selector of more hosts than the answer
// budget holds is cut after the last host that fits, the cut reported in `truncations`.
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
import { fanOut, type HostResult } from '../../fleet/fan-out.js';
import type { FleetHost } from '../../fleet/fleet-types.js';
import { fanOutOptions } from '../../scans/call.js';
import * as s from '../schemas.js';
import { type AnswerCut, cutRecord, fitAnswer, rowSize } from '../shared/answer-size.js';
import { formatStat } from '../shared/cli-format.js';
import { statOut } from '../shared/fleet-entries.js';
import { hostStatusToWire } from '../shared/fleet-present.js';
import { fitHostStatuses } from '../shared/host-statuses.js';
import { failureLine, pendingLine, typeWord } from '../shared/present.js';
import { defineTool, hostPathArgument, type McpAnswer, type ToolResult } from '../tool.js';

const input = { ...s.hostPath };

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
  hosts: z.array(s.hostStatusSchema),
  /**
   * Present when something was cut: the results at the answer budget (reason `bytes` or
   * `tokens`: `shown` of `total` hosts), the host statuses over many hosts (how many of each status).
   */
  truncations: z.array(s.truncationSchema).optional(),
};

type StatJson = z.infer<typeof statResultSchema>;
export type StatAnswer = s.Parsed<typeof output>;

interface Plan {
  hosts: FleetHost[];
  path: string;
}

export interface StatListing extends ToolResult {
  path: string;
  multi: boolean;
  /** Per host in selector order: its stat, or none when it failed. */
  rows: { host: string; stat?: StatInfo }[];
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

function merge(p: Plan, results: HostResult<StatInfo>[]): StatListing {
  return {
    path: p.path,
    multi: p.hosts.length > 1,
    rows: results.map((r) => ({ host: r.host.name, ...(r.value ? { stat: r.value } : {}) })),
    hosts: results.map((r) => r.status),
  };
}

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
  };
}

export const statTool = defineTool({
  name: 'stat',
  title: 'File metadata',
  description:
    'What is this path? On each host: type, size, mode, owner, group, times (host’s UTC offset), inode, links, symlink target (not followed). No cursor: hosts past the size limit are cut (truncations).',
  input,
  output,

  plan(a, ctx): Plan {
    const path = normalizeRequestPath(a.path, 'path');
    return { hosts: ctx.fleet.select(a.host), path };
  },

  async collect(p: Plan, ctx): Promise<StatListing> {
    const results = await fanOut(
      ctx.fleet,
      p.hosts,
      (b, _h, signal) => b.stat(p.path, false, signal),
      fanOutOptions(ctx),
    );
    return merge(p, results);
  },

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
      const truncations: z.infer<typeof s.truncationSchema>[] = [];
      if (n < blocks.length) {
        // No cursor: a stat is one lstat per host, so the way to the rest is a narrower selector.
        lines.push(
          `[WARNING] answer cut at ${cut.words}: ${blocks.length - n} of ${blocks.length} hosts not shown (their statuses are in hosts); ask fewer hosts at once with a narrower host selector`,
        );
        truncations.push(cutRecord(cut, n, blocks.length));
      }
      const pending = pendingLine(l.hosts);
      if (pending) lines.push(pending);
      lines.push(...hs.lines);
      const results = blocks.slice(0, n).flatMap((b) => (b.json ? [b.json] : []));
      const structured: StatAnswer = { path: l.path, results, ...hs.json };
      if (hs.truncation) truncations.push(hs.truncation);
      if (truncations.length > 0) structured.truncations = truncations;
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
    argument: hostPathArgument('web-1:/etc/passwd'),
    render(l, style) {
      const items = l.rows.flatMap((r) => (r.stat ? [statJson(r.host, l.path, r.stat)] : []));
      return { out: formatStat(items, { showHost: l.multi, style }), err: [] };
    },
  },

  fleet: {
    method: 'Stat',
    present: statToFleet,
    retired: {
      cursor:
        'stat takes no cursor: one lstat per host answers whole (a cut at the answer budget is said in truncations; ask a narrower host selector)',
    },
  },
});
