// list_directory's answer as a model reads it: each host's tree lines within the answer budget, beside their JSON rows.
import { displayPath, type Entry, type Row, treeEntryLine, treeTruncationLine } from '@fleetls/core';
import { type AnswerCut, cutRecord, fitAnswer, rowSize } from '../shared/answer-size.js';
import type { TreeItem } from '../shared/cli-format.js';
import { fitHostStatuses } from '../shared/host-statuses.js';
import { failureLine, noteLine, truncationJson, typeWord } from '../shared/present.js';
import type { McpAnswer, ToolContext } from '../tool.js';
import { type ListDirectoryAnswer, PENDING_MESSAGE, pending, type TreeEntryJson, type TreeListing } from './shape.js';

/** A row's path under the listing's path, split at its last `/`: the directory holding it ('' = the path itself) and its name. */
function splitPath(path: Buffer): { dir: string; name: string } {
  const cut = path.lastIndexOf(0x2f);
  return cut < 0
    ? { dir: '', name: displayPath(path) }
    : { dir: displayPath(path.subarray(0, cut)), name: displayPath(path.subarray(cut + 1)) };
}

/** What a row says besides where it is: no type for a plain file, no size for a directory. */
function rowFacts(row: Row): Omit<TreeEntryJson, 'host' | 'name' | 'dir'> {
  if (row.kind === 'truncation') {
    const t = row.truncation;
    return { type: 'warning', hidden: { shown: t.shown, total: t.total } };
  }
  const e: Entry = row.entry;
  const out: Omit<TreeEntryJson, 'host' | 'name' | 'dir'> = {};
  if (e.type !== 'file') out.type = typeWord(e);
  if (e.error) {
    out.error = { code: e.error.code, detail: e.error.detail };
    return out;
  }
  if (e.type !== 'dir') out.size = e.size;
  if (e.linkTarget !== undefined) out.link_target = displayPath(e.linkTarget);
  return out;
}

/** Where a row is: an entry's own path, a per-directory warning's capped directory. */
const rowPath = (row: Row): Buffer => (row.kind === 'entry' ? row.entry.path : row.truncation.dir);

/** A row with its whole path under the listing's path (the CLI draws its tree from these). */
export function rowItem(host: string, row: Row): TreeItem {
  return { host, path: displayPath(rowPath(row)), type: 'file', ...rowFacts(row) };
}

/**
 * The page's directory table: each directory a row is in gets the next index the first time a
 * row names it, so the table of the first n rows is the first entries of the whole table and
 * a row's JSON is the same whichever n a page shows.
 */
class DirTable {
  readonly dirs: string[] = [];
  private readonly index = new Map<string, number>();
  /** Its index, and whether this row added it (what it costs the page). */
  of(dir: string): { at: number; added: boolean } {
    const at = this.index.get(dir);
    if (at !== undefined) return { at, added: false };
    this.index.set(dir, this.dirs.length);
    this.dirs.push(dir);
    return { at: this.dirs.length - 1, added: true };
  }
}

/** A row as lean JSON: its name and its directory's index in `dirs` (none in the path itself); host only over several hosts. */
function leanRow(host: string | undefined, row: Row, table: DirTable): { json: TreeEntryJson; addedDir?: string } {
  const { dir, name } = splitPath(rowPath(row));
  const json: TreeEntryJson = { ...(host !== undefined ? { host } : {}), name };
  if (dir === '') return { json: { ...json, ...rowFacts(row) } };
  const { at, added } = table.of(dir);
  return { json: { ...json, dir: at, ...rowFacts(row) }, ...(added ? { addedDir: dir } : {}) };
}

/** A row's cost and its directory's entry in `dirs` (rowSize of '' and the directory, less the empty line's 3 bytes besides the comma). */
function addCost(a: { bytes: number; tokens: number }, b: { bytes: number; tokens: number }) {
  return { bytes: a.bytes + b.bytes - 3, tokens: a.tokens + b.tokens };
}

export function presentTree(listing: TreeListing, ctx: ToolContext): McpAnswer {
  // Each row's line and lean JSON, once; build(n) lays out the page that shows the first n.
  const rowHost = (host: string) => (listing.multi ? host : undefined);
  const lines = listing.sections.map((sec) => {
    const prefix = listing.multi ? `${sec.status.host}: ` : '';
    // An entry in the same directory as the entry on the line above shows its name only,
    // indented: a run of siblings costs their names, not their directory's path each time.
    // An error line keeps its whole path (the one to look for), as the page's first line does.
    let above: string | undefined;
    return sec.rows.map((row) => {
      if (row.kind !== 'entry') {
        above = undefined;
        return prefix + treeTruncationLine(row.truncation, listing.path);
      }
      const { dir, name } = splitPath(row.entry.path);
      const sibling = dir !== '' && dir === above && !row.entry.error;
      above = dir;
      return (
        prefix +
        (sibling ? `  ${treeEntryLine(row.entry, listing.path, name)}` : treeEntryLine(row.entry, listing.path))
      );
    });
  });
  const table = new DirTable();
  const leans = listing.sections.map((sec) => sec.rows.map((row) => leanRow(rowHost(sec.status.host), row, table)));
  const items = leans.map((sec) => sec.map((r) => r.json));
  const flatLines = lines.flat();
  const flatLeans = leans.flat();
  // The directories the first n rows are in: the table's first entries, up to the last one they added.
  const dirsUpTo = (n: number) => table.dirs.slice(0, flatLeans.slice(0, n).filter((r) => r.addedDir).length);
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
      dirs: dirsUpTo(shown),
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
    // A row that adds a directory to the table pays for its entry there too.
    rowCost: (i) => {
      const r = rowSize(flatLines[i], flatLeans[i].json);
      const added = flatLeans[i].addedDir;
      return added === undefined ? r : addCost(r, rowSize('', added));
    },
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
