// list_directory's answer as a model reads it: each host's tree lines within the answer budget, beside their JSON rows.
import { displayPath, type Entry, type Row, treeEntryLine, treeTruncationLine } from '@fleetls/core';
import { type AnswerCut, cutRecord, fitAnswer, rowSize } from '../shared/answer-size.js';
import { fitHostStatuses } from '../shared/host-statuses.js';
import { failureLine, noteLine, truncationJson, typeWord } from '../shared/present.js';
import type { McpAnswer, ToolContext } from '../tool.js';
import { type ListDirectoryAnswer, PENDING_MESSAGE, pending, type TreeEntryJson, type TreeListing } from './shape.js';

/** A row as lean JSON: no host when one host was asked, no type for a plain file, no size for a directory. */
function entryJson(host: string | undefined, e: Entry): TreeEntryJson {
  const out: TreeEntryJson = { ...(host !== undefined ? { host } : {}), path: displayPath(e.path) };
  if (e.type !== 'file') out.type = typeWord(e);
  if (e.error) {
    out.error = { code: e.error.code, detail: e.error.detail };
    return out;
  }
  if (e.type !== 'dir') out.size = e.size;
  if (e.linkTarget !== undefined) out.link_target = displayPath(e.linkTarget);
  return out;
}

export function rowJson(host: string | undefined, row: Row): TreeEntryJson {
  if (row.kind === 'entry') return entryJson(host, row.entry);
  const t = row.truncation;
  return {
    ...(host !== undefined ? { host } : {}),
    path: displayPath(t.dir),
    type: 'warning',
    hidden: { shown: t.shown, total: t.total },
  };
}

export function presentTree(listing: TreeListing, ctx: ToolContext): McpAnswer {
  // Each row's line and lean JSON, once; build(n) lays out the page that shows the first n.
  const rowHost = (host: string) => (listing.multi ? host : undefined);
  const lines = listing.sections.map((sec) => {
    const prefix = listing.multi ? `${sec.status.host}: ` : '';
    return sec.rows.map(
      (row) =>
        prefix +
        (row.kind === 'entry'
          ? treeEntryLine(row.entry, listing.path)
          : treeTruncationLine(row.truncation, listing.path)),
    );
  });
  const items = listing.sections.map((sec) => sec.rows.map((row) => rowJson(rowHost(sec.status.host), row)));
  const flatLines = lines.flat();
  const flatItems = items.flat();
  const build = (n: number, budget: AnswerCut): McpAnswer => {
    const { text, entries, truncations, listedHosts, shown, sent, cut } = sectionsUpTo(listing, lines, items, n);
    const notes = listing.notes.filter((note) => listedHosts.has(note.host));
    for (const note of notes) text.push(noteLine(note, listing.multi));
    // Every host of the call has its status row on this page: those a later page lists are pending.
    const hosts = listing.hosts.map((h) => (listedHosts.has(h.host) ? h : pending(h)));
    const later = hosts.filter((h) => h.status === 'pending').map((h) => h.host);
    if (later.length > 0) {
      const names = later.length > 20 ? `${later.length} hosts: ${later.slice(0, 20).join(', ')}, …` : later.join(', ');
      text.push(`[PENDING] ${names}: ${PENDING_MESSAGE}`);
    }
    const statuses = fitHostStatuses(hosts, ctx.options);
    text.push(...statuses.lines);
    if (statuses.truncation) truncations.push(statuses.truncation);
    const nextCursor = listing.cursorAfter(shown);
    if (nextCursor) {
      const more = `to continue, call list_directory again with the same arguments and cursor: ${nextCursor}`;
      if (cut) {
        text.push(`[WARNING] answer cut at ${budget.words} after ${shown} lines; ${more}`);
        truncations.push(cutRecord(budget, shown, sent));
      } else text.push(`[WARNING] ${more}`);
    }
    const structured: ListDirectoryAnswer = {
      path: listing.path,
      entries,
      truncated: truncations.length > 0,
      truncations,
      ...(nextCursor ? { next_cursor: nextCursor } : {}),
      ...(notes.length > 0 ? { notes } : {}),
      ...statuses.json,
    };
    return { structured, text: text.join('\n') };
  };
  return fitAnswer({
    rows: flatLines.length,
    rowCost: (i) => rowSize(flatLines[i], flatItems[i]),
    build,
    options: ctx.options,
  }).answer;
}

/** The page's first n rows, host after host, with each listed host's failure and cut lines in its place. */
function sectionsUpTo(l: TreeListing, lines: string[][], items: TreeEntryJson[][], n: number) {
  const text: string[] = [];
  const entries: TreeEntryJson[] = [];
  const truncations: ReturnType<typeof truncationJson>[] = [];
  const listedHosts = new Set<string>();
  let shown = 0;
  /** Rows the listed hosts sent for this page (those past a cut included). */
  let sent = 0;
  let cut = false;
  for (const [si, sec] of l.sections.entries()) {
    const host = sec.status.host;
    const prefix = l.multi ? `${host}: ` : '';
    listedHosts.add(host);
    // Failed hosts keep their place in the host order.
    if (sec.status.status !== 'ok') text.push(prefix + failureLine(sec.status, l.path));
    sent += sec.rows.length;
    const take = Math.min(sec.rows.length, n - shown);
    for (let k = 0; k < take; k++) {
      text.push(lines[si][k]);
      entries.push(items[si][k]);
    }
    shown += take;
    if (take < sec.rows.length) {
      cut = true;
      break;
    }
    for (const t of sec.losses) {
      text.push(prefix + treeTruncationLine(t, l.path));
      truncations.push(truncationJson(host, t));
    }
  }
  return { text, entries, truncations, listedHosts, shown, sent, cut };
}
