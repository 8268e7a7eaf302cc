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

/** Tabs and newlines inside a cell would break the row; they are shown escaped. */
function tsvCell(v: Cell): string {
  return cellText(v).replace(/[\t\n\r\\]/g, (c) =>
    c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\\\',
  );
}

/** A header line and one line per row, cells separated by tabs. */
export function renderTsv(
  columns: readonly string[],
  rows: Iterable<TableRow>,
  headers?: AlignedOptions['headers'],
): string[] {
  const lines = [columns.map((c) => tsvCell(headers?.[c] ?? c)).join('\t')];
  for (const row of rows) lines.push(columns.map((c) => tsvCell(row[c])).join('\t'));
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
