// list_files' answer as a model reads it: a TSV page within the answer budget, beside its JSON rows.
import { baseName, displayPath, type Entry, humanSize, renderTsv, type TableRow, tsvLine } from '@fleetls/core';
import { rowSize } from '../shared/answer-size.js';
import { fitPage, type PageEnds, type PageLayout } from '../shared/page-answer.js';
import { modified, noteLine, type TruncationJson, topNRecord, typeWord, withNextPage } from '../shared/present.js';
import type { McpAnswer, ToolContext } from '../tool.js';
import { FILE_COLUMNS, type FileItem, type FileListing, type ListFilesAnswer, NOUN } from './shape.js';

/** A row as JSON: lean (no host when one host was asked, no type for a plain file) or whole, for people. */
export function itemJson(host: string | undefined, entry: Entry): FileItem {
  return {
    ...(host !== undefined ? { host } : {}),
    path: displayPath(entry.path),
    name: displayPath(baseName(entry.path)),
    ...(entry.type !== 'file' ? { type: typeWord(entry) } : {}),
    size: entry.size,
    modified: modified(entry),
    ...(entry.linkTarget !== undefined ? { link_target: displayPath(entry.linkTarget) } : {}),
    ...(entry.error ? { error: { code: entry.error.code, detail: entry.error.detail } } : {}),
  };
}

/** "Showing 1-200 of 5000 files", or why nothing is shown. */
export function headline(listing: FileListing, count: number): string {
  const noun = NOUN[listing.type];
  let line: string;
  const of = listing.total !== undefined ? ` of ${listing.total}` : '';
  if (count > 0) line = `Showing ${listing.start + 1}-${listing.start + count}${of} ${noun}`;
  else if (listing.pathOrder && listing.total === undefined)
    line = `No ${noun} from ${listing.start + 1} listed in this call (see below); call again with next_cursor`;
  else if (listing.start > 0 && (listing.total ?? 1) > 0)
    line = `[WARNING] start_index ${listing.start} is past the last${of} ${noun}`;
  else if (listing.pattern !== '')
    line = `No ${noun} matching pattern '${listing.pattern}' found in path '${listing.path}'`;
  else line = `No ${noun} found in path '${listing.path}'`;
  if (count === 0 && listing.total === 0 && listing.filters.length > 0)
    line += ` (filtered by ${listing.filters.join(', ')})`;
  if (listing.pathOrder) {
    if (count > 0) line += ' in path order';
    if (listing.topCut)
      line += ` (top_n ${listing.total}: ${listing.found !== undefined ? `of ${listing.found} found` : 'more were found'})`;
    else if (count > 0 && (listing.total === undefined || listing.start + count < listing.total))
      line += '; more follow: call again with next_cursor';
  } else if (listing.total !== undefined && listing.found !== undefined && listing.total < listing.found) {
    line +=
      listing.topN !== undefined
        ? ` (top ${listing.total} of ${listing.found} found)`
        : ` (ranked: only the first ${listing.total} of ${listing.found} found are kept; order_by=name pages through all)`;
  }
  return line;
}

/** The record of what top_n (or the kept ranking's 100,000) left out, if anything. */
function topCut(listing: FileListing): TruncationJson[] {
  const { total, found } = listing;
  if (listing.pathOrder) return listing.topCut && total !== undefined ? [topNRecord(total, found)] : [];
  if (total === undefined || found === undefined || total >= found) return [];
  return [listing.topN !== undefined ? topNRecord(total, found) : { reason: 'kept', shown: total, total: found }];
}

export function presentFiles(listing: FileListing, ctx: ToolContext): McpAnswer {
  return fitPage(listing, new FilesPage(listing, ctx.options));
}

const HEADERS = { host: 'Host', path: 'Path', type: 'Type', size: 'Size', modified: 'Last_Modified' };
const MULTI_COLUMNS = ['host', 'path', 'type', 'size', 'modified'];
const ONE_HOST_COLUMNS = ['path', 'type', 'size', 'modified'];
/** Each layout's header line, rendered once; a row's line is core's tsvLine. */
const MULTI_HEADER = renderTsv(MULTI_COLUMNS, [], HEADERS)[0];
const ONE_HOST_HEADER = renderTsv(ONE_HOST_COLUMNS, [], HEADERS)[0];

/**
 * A listing's page layout: a class, not closures made per call, so that the code V8 optimizes
 * for the rows' layout lives as long as the class does (a closure's was dropped at each full
 * collection and compiled again; shared/answer-size.ts, AnswerFit).
 */
class FilesPage implements PageLayout {
  readonly multi: boolean;
  readonly rows: number;
  readonly noun = 'rows';
  readonly hostCuts: FileListing['truncations'];
  private readonly columns: readonly string[];
  private readonly header: string;
  // Rows are laid out as the budget reaches them: a page of a 5,000-row limit shows a few
  // hundred, and laying out the rest was most of a page's time.
  private readonly items: FileItem[] = [];
  private readonly rowLines: string[] = [];

  constructor(
    private readonly listing: FileListing,
    readonly options: ToolContext['options'],
  ) {
    this.multi = listing.multi;
    this.rows = listing.rows.length;
    this.hostCuts = listing.truncations;
    this.columns = listing.multi ? MULTI_COLUMNS : ONE_HOST_COLUMNS;
    this.header = listing.multi ? MULTI_HEADER : ONE_HOST_HEADER;
  }

  private item(i: number): FileItem {
    const { host, entry } = this.listing.rows[i];
    this.items[i] ??= itemJson(this.listing.multi ? host : undefined, entry);
    return this.items[i];
  }

  private line(i: number): string {
    if (this.rowLines[i] === undefined) {
      const { host, entry } = this.listing.rows[i];
      const row: TableRow = {
        host,
        path: displayPath(entry.path),
        type: entry.error ? `error: ${entry.error.code} ${entry.error.detail}` : typeWord(entry),
        size: entry.type === 'dir' ? '' : humanSize(entry.size),
        modified: modified(entry),
      };
      this.rowLines[i] = tsvLine(this.columns, row);
    }
    return this.rowLines[i];
  }

  rowCost(i: number): { bytes: number; tokens: number } {
    return rowSize(this.line(i), this.item(i));
  }

  lines(): readonly string[] {
    return this.listing.notes.map((n) => noteLine(n, true));
  }

  page(count: number, { next, truncations, hosts }: PageEnds): { structured: ListFilesAnswer; text: string[] } {
    const { listing } = this;
    const body = count > 0 ? ['', this.header] : [];
    const items: FileItem[] = [];
    for (let i = 0; i < count; i++) {
      body.push(this.line(i));
      items.push(this.item(i));
    }
    const cuts = withNextPage([...truncations, ...topCut(listing)], next, count, listing.total);
    const structured: ListFilesAnswer = {
      kind: 'files.list',
      columns: listing.multi ? [...FILE_COLUMNS] : FILE_COLUMNS.filter((c) => c !== 'host'),
      items,
      count,
      ...(listing.total !== undefined ? { total: listing.total } : {}),
      ...(listing.found !== undefined ? { found: listing.found } : {}),
      start_index: listing.start,
      truncated: cuts.length > 0,
      truncations: cuts,
      ...hosts,
    };
    if (next !== undefined) structured.next_cursor = next;
    if (listing.notes.length > 0) structured.notes = listing.notes;
    return { structured, text: [headline(listing, count), ...body] };
  }
}
