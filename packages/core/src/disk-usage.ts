// disk_usage's pure part: directories with their recursive apparent size (du -b
// --one-file-system), merged across hosts largest first, and the compact table a person
// reads at a glance: human sizes, `#` bars proportional to size, host, path.
import { displayPath, humanSize } from './display.js';
import { invalidArgument } from './errors.js';
import { renderAligned } from './render-table.js';

/** disk_usage lists 1 to 3 levels below the path. */
export const DU_MAX_DEPTH = 3;
/** Widest bar, in `#`. */
export const DU_BAR_WIDTH = 24;

export function parseDuDepth(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > DU_MAX_DEPTH) {
    throw invalidArgument(
      `depth: an integer from 1 to ${DU_MAX_DEPTH} (levels below path), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export interface DuRow {
  host: string;
  /** Relative to the requested path, raw bytes. */
  path: Buffer;
  size: number;
  /** The walk ran out of time or met an unreadable directory: the size is a lower bound. */
  partial: boolean;
}

/** The whole of the path on one host, as du's last line: its recursive apparent size. */
export interface DuTotal {
  host: string;
  size: number;
  /** Some of it could not be sized (deadline, unreadable entries, more entries than one walk ranks): a lower bound. */
  partial: boolean;
}

/** `12 GiB`, or `≥12 GiB` for a lower bound. */
export function duSizeText(r: { size: number; partial: boolean }): string {
  return `${r.partial ? '≥' : ''}${humanSize(r.size)}`;
}

/** A bar of `#` for `size` against the largest size shown: at least one for any non-empty directory. */
export function duBar(size: number, largest: number, width = DU_BAR_WIDTH): string {
  if (size <= 0 || largest <= 0) return '';
  return '#'.repeat(Math.max(1, Math.round((size / largest) * width)));
}

/**
 * The table: one line per row in the given order (largest first), paths shown under `root`
 * (the requested path), and a HOST column when the rows come from more than one host.
 */
export function renderDuTable(rows: readonly DuRow[], root: string, withHost: boolean): string[] {
  const largest = rows.reduce((m, r) => Math.max(m, r.size), 0);
  const base = root.endsWith('/') ? root : `${root}/`;
  const columns = withHost ? ['size', 'bar', 'host', 'path'] : ['size', 'bar', 'path'];
  return renderAligned(
    columns,
    rows.map((r) => ({
      size: duSizeText(r),
      bar: duBar(r.size, largest),
      host: r.host,
      path: r.path.length === 0 ? root : base + displayPath(r.path),
    })),
    { right: ['size'], headers: { size: 'SIZE', bar: '', host: 'HOST', path: 'PATH' } },
  );
}

/** du's last line for each host: `total  12 GiB (12884901888 bytes)  [host  ]/srv`. */
export function renderDuTotals(totals: readonly DuTotal[], root: string, withHost: boolean): string[] {
  return totals.map(
    (t) => `total  ${duSizeText(t)} (${t.partial ? '≥' : ''}${t.size} bytes)  ${withHost ? `${t.host}  ` : ''}${root}`,
  );
}
