// A table: named columns and one record per row, rendered as tab-separated lines (for
// models, as Jupyter MCP's list_files does) or as aligned columns (for people).

export type Cell = string | number | boolean | null | undefined;
export type TableRow = Readonly<Record<string, Cell>>;

export interface AlignedOptions {
  /** Columns aligned to the right (sizes, counts). */
  right?: readonly string[];
  /** Header labels by column key; the key itself by default. */
  headers?: Readonly<Record<string, string>>;
  /** Between columns; two spaces by default. */
  gap?: string;
}

function cellText(v: Cell): string {
  if (v === undefined || v === null) return '';
  return String(v);
}

const TSV_ESCAPES: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' };

function tsvEscape(c: string): string {
  return TSV_ESCAPES[c];
}

/** Tabs and newlines inside a cell would break the row; they are shown escaped. */
function tsvCell(v: Cell): string {
  return cellText(v).replace(/[\t\n\r\\]/g, tsvEscape);
}

/**
 * One row's line, cells separated by tabs (renderTsv's lines after the header). Loops and
 * module functions, not arrows made per call: a page renders each row it shows this way, and
 * a closure's optimized code is dropped at each full collection and compiled again.
 */
export function tsvLine(columns: readonly string[], row: TableRow): string {
  const cells: string[] = [];
  for (const c of columns) cells.push(tsvCell(row[c]));
  return cells.join('\t');
}

/** A header line and one line per row, cells separated by tabs. */
export function renderTsv(
  columns: readonly string[],
  rows: Iterable<TableRow>,
  headers?: AlignedOptions['headers'],
): string[] {
  const lines = [columns.map((c) => tsvCell(headers?.[c] ?? c)).join('\t')];
  for (const row of rows) lines.push(tsvLine(columns, row));
  return lines;
}

/** Code points, a close enough display width for names (wide glyphs aside). */
function width(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A header line and one line per row, each column padded to its widest cell; no trailing blanks. */
export function renderAligned(
  columns: readonly string[],
  rows: readonly TableRow[],
  options: AlignedOptions = {},
): string[] {
  const right = new Set(options.right ?? []);
  const gap = options.gap ?? '  ';
  const cells: string[][] = [columns.map((c) => options.headers?.[c] ?? c)];
  for (const row of rows) cells.push(columns.map((c) => cellText(row[c]).replace(/[\n\r\t]/g, ' ')));
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => width(r[i]))));
  return cells.map((r) =>
    r
      .map((s, i) => {
        const pad = ' '.repeat(widths[i] - width(s));
        if (right.has(columns[i])) return pad + s;
        return i === r.length - 1 ? s : s + pad;
      })
      .join(gap)
      .trimEnd(),
  );
}
