// stat: one path on each host, everything lstat knows plus owner and group names.
import {
  displayPath,
  formatMtime,
  humanSize,
  modeString,
  normalizeRequestPath,
  octalMode,
  type StatInfo,
  TextBudget,
} from '@fleetls/core';
import type { z } from 'zod';
import { fanOut } from '../fan-out.js';
import { failureLine, fanOutOptions, hostStatusJson, type QueryContext, type QueryResult, typeWord } from './common.js';
import { parseArgs, statInput, type statOutput, type statResultSchema } from './schemas.js';

type StatJson = z.infer<typeof statResultSchema>;
export type StatAnswer = z.infer<z.ZodObject<typeof statOutput>>;

function statJson(host: string, path: string, s: StatInfo): StatJson {
  const e = s.entry;
  const out: StatJson = {
    host,
    path,
    type: typeWord(e),
    size: e.size,
    mode: octalMode(e.mode),
    permissions: modeString(e.mode, e.type),
    owner: s.owner,
    group: s.group,
    uid: e.uid,
    gid: e.gid,
    modified: formatMtime(e.mtimeSec, e.mtimeNsec, e.utcOffsetMin),
    accessed: formatMtime(s.atimeSec, s.atimeNsec, e.utcOffsetMin),
    changed: formatMtime(s.ctimeSec, s.ctimeNsec, e.utcOffsetMin),
    inode: e.inode,
    nlink: e.nlink,
  };
  if (e.linkTarget !== undefined) out.link_target = displayPath(e.linkTarget);
  if (s.notes && s.notes.length > 0) out.notes = [...s.notes];
  return out;
}

function statLines(s: StatJson): string[] {
  const lines = [
    `path: ${s.path}`,
    `type: ${s.type}`,
    `size: ${s.size} (${humanSize(s.size)})`,
    `mode: ${s.mode} (${s.permissions})`,
    `owner: ${s.owner} (uid ${s.uid})`,
    `group: ${s.group} (gid ${s.gid})`,
    `modified: ${s.modified}`,
    `accessed: ${s.accessed}`,
    `changed: ${s.changed}`,
    `inode: ${s.inode}`,
    `links: ${s.nlink}`,
  ];
  if (s.link_target !== undefined) lines.push(`target: ${s.link_target}`);
  for (const n of s.notes ?? []) lines.push(`[NOTE] ${n}`);
  return lines;
}

export async function statPaths(ctx: QueryContext, args: unknown): Promise<QueryResult<StatAnswer>> {
  const a = parseArgs(statInput, args);
  const path = normalizeRequestPath(a.path, 'path');
  const hosts = ctx.fleet.select(a.host);
  const results = await fanOut(ctx.fleet, hosts, (b, _h, signal) => b.stat(path, false, signal), fanOutOptions(ctx));
  const multi = hosts.length > 1;
  const lines: string[] = [];
  const out: StatJson[] = [];
  const budget = new TextBudget(ctx.options.maxAnswerBytes, 512);
  let cut = 0;
  for (const r of results) {
    const prefix = multi ? `${r.host.name}: ` : '';
    const hostLines = r.value ? statLines(statJson(r.host.name, path, r.value)) : [failureLine(r.status, path)];
    // A host's block is shown whole or not at all.
    if (!budget.take(hostLines.map((l) => prefix + l).join('\n'))) {
      cut++;
      continue;
    }
    for (const l of hostLines) lines.push(prefix + l);
    if (r.value) out.push(statJson(r.host.name, path, r.value));
  }
  if (cut > 0) {
    lines.push(
      `[WARNING] answer cut at ${ctx.options.maxAnswerBytes} bytes: ${cut} of ${results.length} hosts not shown; ask fewer hosts at once`,
    );
  }
  return {
    structured: { path, results: out, hosts: results.map((r) => hostStatusJson(r.status)) },
    text: lines.join('\n'),
  };
}
