// disk_usage's pure part: directories with their recursive apparent size (du -b
// --one-file-system), merged across hosts largest first, and the compact table a person
// reads at a glance: human sizes, `#` bars proportional to size, host, path.

import type { Entry, Row, WalkSummary } from '../domain/types.js';
import { invalidArgument } from '../errors/errors.js';
import { displayPath, humanSize } from '../render/display.js';
import { renderAligned } from '../render/table.js';

/** disk_usage lists 1 to 3 levels below the path. */
export const DU_MAX_DEPTH = 3;
/** Widest bar, in `#`. */
export const DU_BAR_WIDTH = 24;

export function parseDuDepth(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > DU_MAX_DEPTH) {
    throw invalidArgument(`depth must be an integer from 1 to ${DU_MAX_DEPTH}, got ${JSON.stringify(value)}`);
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
  /** On-disk bytes (st_blocks × 512, as du without -b); unset where the host cannot say (SFTP). */
  allocated?: number;
  /** Directories at or below it that could not be read (why it is partial). */
  unreadableDirs?: number;
}

/** The whole of the path on one host, as du's last line: its recursive apparent size. */
export interface DuTotal {
  host: string;
  size: number;
  /** Some of it could not be sized (deadline, unreadable entries, more entries than one walk ranks): a lower bound. */
  partial: boolean;
  /** Directories below it that could not be read. */
  unreadableDirs?: number;
}

/** `12 GiB`, or `≥12 GiB` for a lower bound. */
export function duSizeText(measured: { size: number; partial: boolean }): string {
  return `${measured.partial ? '≥' : ''}${humanSize(measured.size)}`;
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
  // ON DISK beside SIZE (du beside du -b) once any host could say it; `?` where one cannot (SFTP).
  const onDisk = rows.some((r) => r.allocated !== undefined);
  const columns = ['size', ...(onDisk ? ['disk'] : []), 'bar', ...(withHost ? ['host'] : []), 'path'];
  return renderAligned(
    columns,
    rows.map((r) => ({
      size: duSizeText(r),
      disk: r.allocated === undefined ? '?' : duSizeText({ size: r.allocated, partial: r.partial }),
      bar: duBar(r.size, largest),
      host: r.host,
      path: duPath(r.path, root),
    })),
    { right: ['size', 'disk'], headers: { size: 'SIZE', disk: 'ON DISK', bar: '', host: 'HOST', path: 'PATH' } },
  );
}

function duPath(path: Buffer, root: string): string {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.length === 0 ? root : base + displayPath(path);
}

/**
 * Why the ≥ sizes shown are lower bounds, one line: each such directory with its count of
 * unreadable directories, or "time ran out" (a deadline, or entries that could not be
 * read); at most `max` named, the rest counted.
 */
export function duPartialNote(rows: readonly DuRow[], root: string, withHost: boolean, max = 5): string | undefined {
  const partial = rows.filter((r) => r.partial);
  if (partial.length === 0) return undefined;
  const why = (r: DuRow) =>
    `${withHost ? `${r.host}: ` : ''}${duPath(r.path, root)} (${
      r.unreadableDirs
        ? `${r.unreadableDirs} unreadable director${r.unreadableDirs === 1 ? 'y' : 'ies'}`
        : 'time ran out, or entries unreadable'
    })`;
  const named = partial.slice(0, max).map(why);
  if (partial.length > max) named.push(`${partial.length - max} more`);
  return `[NOTE] ≥ marks a lower bound: ${named.join(', ')}`;
}

/** du's last line for each host: `total  12 GiB (12884901888 bytes)  [host  ]/srv[; N unreadable directories]`. */
export function renderDuTotals(totals: readonly DuTotal[], root: string, withHost: boolean): string[] {
  return totals.map(
    (t) =>
      `total  ${duSizeText(t)} (${t.partial ? '≥' : ''}${t.size} bytes)  ${withHost ? `${t.host}  ` : ''}${root}${
        t.unreadableDirs ? `; ${t.unreadableDirs} unreadable director${t.unreadableDirs === 1 ? 'y' : 'ies'}` : ''
      }`,
  );
}

/** One walk of a host as the gateway holds it: its rows and how it ended. */
export interface DuWalkRows {
  rows: readonly Row[];
  summary: WalkSummary;
}

/**
 * du's total of path without a second read of the tree: path's own size, its depth-1
 * directories' recursive sizes as the listing already has them, and its other children's
 * sizes (`children`: a walk of path's own entries, not sized). Undefined where that sum might
 * not be du's, so the caller walks for the total instead: a depth-1 directory is missing from
 * the listing (ranked out of its top N), a walk was cut short (deadline, caps) or could not
 * read an entry, a size is a lower bound, or a child has hard links whose other names may lie
 * below (du counts an inode once over the whole tree; only a walk that saw them can say).
 */
export function duTotalFromListing(own: number, listing: DuWalkRows, children: DuWalkRows): DuTotalSize | undefined {
  const cutShort = (w: DuWalkRows) => w.summary.truncations.some((t) => t.reason !== 'top_n');
  if (cutShort(listing) || cutShort(children)) return undefined;
  // Every child must be in `children`: its own top N left none out.
  if (children.summary.entriesMatched > children.summary.entriesSent) return undefined;
  const sized = new Map<string, Entry>();
  for (const row of listing.rows) {
    if (row.kind === 'entry' && row.entry.depth === 1) sized.set(row.entry.path.toString('latin1'), row.entry);
  }
  let size = own;
  // Inodes with more than one name: how many of those names are path's own children.
  const linked = new Map<number, { nlink: number; names: number }>();
  for (const row of children.rows) {
    if (row.kind !== 'entry' || row.entry.error) return undefined;
    const e = row.entry;
    if (e.type === 'dir') {
      const d = sized.get(e.path.toString('latin1'));
      if (d === undefined || d.error || d.sizePartial) return undefined;
      size += d.size;
      continue;
    }
    if (e.nlink > 1) {
      // A host that cannot say inodes (SFTP, 0) cannot say which names are one file.
      if (e.inode === 0) return undefined;
      const l = linked.get(e.inode);
      if (l !== undefined) {
        l.names++;
        continue;
      }
      linked.set(e.inode, { nlink: e.nlink, names: 1 });
    }
    size += e.size;
  }
  // An inode all of whose names are here was counted once; one with a name elsewhere may have been counted below too.
  for (const l of linked.values()) if (l.names !== l.nlink) return undefined;
  return { size, partial: false };
}

/** A host's total without the host: what duTotalFromListing and the total walk give. */
export type DuTotalSize = Omit<DuTotal, 'host'>;
