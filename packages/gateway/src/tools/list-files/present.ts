// list_files' answer as a model reads it: a TSV page within the answer budget, beside its JSON rows.
import { baseName, displayPath, type Entry, humanSize, renderTsv, type TableRow } from '@fleetls/core';
import { type AnswerCut, fitAnswer, rowSize } from '../shared/answer-size.js';
import { fitHostStatuses } from '../shared/host-statuses.js';
import { failureLines, hostFailureLine, modified, noteLine, pageCuts, typeWord } from '../shared/present.js';
import type { McpAnswer, ToolContext } from '../tool.js';
import { FILE_COLUMNS, type FileItem, type FileListing, type ListFilesAnswer, NOUN } from './shape.js';

/** A row as JSON: lean (no host when one host was asked, no type for a plain file) or whole, for people. */
export function itemJson(host: string | undefined, e: Entry): FileItem {
  return {
    ...(host !== undefined ? { host } : {}),
    path: displayPath(e.path),
    name: displayPath(baseName(e.path)),
    ...(e.type !== 'file' ? { type: typeWord(e) } : {}),
    size: e.size,
    modified: modified(e),
    ...(e.linkTarget !== undefined ? { link_target: displayPath(e.linkTarget) } : {}),
    ...(e.error ? { error: { code: e.error.code, detail: e.error.detail } } : {}),
  };
}

/** "Showing 1-200 of 5000 files", or why nothing is shown. */
export function headline(l: FileListing, count: number): string {
  const noun = NOUN[l.type];
  let line: string;
  const of = l.total !== undefined ? ` of ${l.total}` : '';
  if (count > 0) line = `Showing ${l.start + 1}-${l.start + count}${of} ${noun}`;
  else if (l.pathOrder && l.total === undefined)
    line = `No ${noun} from ${l.start + 1} listed in this call (see below); call again with next_cursor`;
  else if (l.start > 0 && (l.total ?? 1) > 0) line = `[WARNING] start_index ${l.start} is past the last${of} ${noun}`;
  else if (l.pattern !== '') line = `No ${noun} matching pattern '${l.pattern}' found in path '${l.path}'`;
  else line = `No ${noun} found in path '${l.path}'`;
  if (count === 0 && l.total === 0 && l.filters.length > 0) line += ` (filtered by ${l.filters.join(', ')})`;
  if (l.pathOrder) {
    if (count > 0) line += ' in path order';
    if (l.total === undefined && count > 0) line += '; more follow: call again with next_cursor';
  } else if (l.total !== undefined && l.found !== undefined && l.total < l.found) {
    line +=
      l.topN !== undefined
        ? ` (top ${l.total} of ${l.found} found)`
        : ` (ranked: only the first ${l.total} of ${l.found} found are kept; order_by=name pages through all)`;
  }
  return line;
}

export function presentFiles(l: FileListing, ctx: ToolContext): McpAnswer {
  const columns = l.multi ? ['host', 'path', 'type', 'size', 'modified'] : ['path', 'type', 'size', 'modified'];
  const headers = { host: 'Host', path: 'Path', type: 'Type', size: 'Size', modified: 'Last_Modified' };
  const [header] = renderTsv(columns, [], headers);
  // Rows are laid out as the budget reaches them: a page of a 5,000-row limit shows a few
  // hundred, and laying out the rest was most of a page's time.
  const items: ReturnType<typeof itemJson>[] = [];
  const lines: string[] = [];
  const item = (i: number) => {
    const { host, entry } = l.rows[i];
    items[i] ??= itemJson(l.multi ? host : undefined, entry);
    return items[i];
  };
  const line = (i: number) => {
    if (lines[i] === undefined) {
      const { host, entry } = l.rows[i];
      const row: TableRow = {
        host,
        path: displayPath(entry.path),
        type: entry.error ? `error: ${entry.error.code} ${entry.error.detail}` : typeWord(entry),
        size: entry.type === 'dir' ? '' : humanSize(entry.size),
        modified: modified(entry),
      };
      lines[i] = renderTsv(columns, [row])[1];
    }
    return lines[i];
  };
  const first = <T>(count: number, at: (i: number) => T) => Array.from({ length: count }, (_, i) => at(i));
  const hs = fitHostStatuses(l.hosts, ctx.options, (h) => hostFailureLine(h, l.path, l.multi));
  const failures = [...failureLines(hs.listed, l.path, l.multi), ...hs.lines];
  const build = (count: number, cut: AnswerCut): McpAnswer => {
    const nextCursor = l.cursorAfter(count);
    const { truncations, warnings } = pageCuts({
      hostCuts: l.truncations,
      path: l.path,
      statusCut: hs.truncation,
      lines: l.notes.map((n) => noteLine(n, true)),
      count,
      total: l.rows.length,
      noun: 'rows',
      cut,
    });
    const body = count > 0 ? ['', header, ...first(count, line)] : [];
    const structured: ListFilesAnswer = {
      kind: 'files.list',
      columns: l.multi ? [...FILE_COLUMNS] : FILE_COLUMNS.filter((c) => c !== 'host'),
      items: first(count, item),
      count,
      ...(l.total !== undefined ? { total: l.total } : {}),
      ...(l.found !== undefined ? { found: l.found } : {}),
      start_index: l.start,
      truncated: truncations.length > 0 || nextCursor !== undefined,
      truncations,
      ...hs.json,
    };
    if (nextCursor !== undefined) structured.next_cursor = nextCursor;
    if (l.notes.length > 0) structured.notes = l.notes;
    return { structured, text: [headline(l, count), ...body, ...warnings, ...failures].join('\n') };
  };
  return fitAnswer({
    rows: l.rows.length,
    rowCost: (i) => rowSize(line(i), item(i)),
    build,
    options: ctx.options,
  }).answer;
}
