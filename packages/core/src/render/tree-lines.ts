// DesktopCommander's tree lines, from a tree walk's rows: `[DIR] a/b`, `[FILE] a/b/c`,
// `[LINK] l -> target`, `[WARNING] a/b: N items hidden (showing first K of M total)`,
// and inline error lines (`[DENIED] a/b — detail`) that leave the rest of the tree listed.

import type { Entry, Row, Truncation } from '../domain/types.js';
import { displayPath } from './display.js';

export interface TreeRenderOptions {
  /** Shown for the requested path itself (an error on the root, a whole-walk cut there). */
  rootLabel?: string;
  /** Put before every line, e.g. `web-1: ` when several hosts answer. */
  prefix?: string;
}

function label(path: Buffer, rootLabel: string): string {
  return path.length === 0 ? rootLabel : displayPath(path);
}

/**
 * One entry's line. An entry carrying an error is its error line only. `shown` replaces its
 * path (a run of siblings shows each name after the first: see list_directory's text).
 */
export function treeEntryLine(entry: Entry, rootLabel = '.', shown?: string): string {
  const p = shown ?? label(entry.path, rootLabel);
  if (entry.error) return `[${entry.error.code}] ${p} — ${entry.error.detail}`;
  switch (entry.type) {
    case 'dir':
      return `[DIR] ${p}`;
    case 'symlink':
      return entry.linkTarget !== undefined ? `[LINK] ${p} -> ${displayPath(entry.linkTarget)}` : `[LINK] ${p}`;
    default:
      // DesktopCommander shows every non-directory as a file; so do we.
      return `[FILE] ${p}`;
  }
}

/** A truncation's warning line: per directory (items_per_dir) or for the whole walk. */
export function treeTruncationLine(truncation: Truncation, rootLabel = '.'): string {
  const p = label(truncation.dir, rootLabel);
  switch (truncation.reason) {
    case 'items_per_dir':
      return `[WARNING] ${p}: ${truncation.total - truncation.shown} items hidden (showing first ${truncation.shown} of ${truncation.total} total)`;
    case 'max_entries':
      return `[WARNING] listing stopped at ${p}: entry limit reached (showing ${truncation.shown} entries of ${truncation.total} seen so far)`;
    case 'deadline':
      return `[WARNING] listing stopped at ${p}: time limit reached (showing ${truncation.shown} entries of ${truncation.total} seen so far)`;
    case 'bytes':
      return `[WARNING] answer cut at its size limit (showing ${truncation.shown} of ${truncation.total} lines)`;
    case 'top_n':
      return `[WARNING] showing the first ${truncation.shown} of ${truncation.total} entries`;
    case 'depth':
      return `[WARNING] ${p}: not listed below this depth`;
  }
}

/**
 * Tree lines for a walk's rows, then a warning for each whole-walk truncation of the
 * summary (those not already placed among the rows).
 */
export function renderTree(
  rows: Iterable<Row>,
  wholeWalk: readonly Truncation[] = [],
  options: TreeRenderOptions = {},
): string[] {
  const rootLabel = options.rootLabel ?? '.';
  const prefix = options.prefix ?? '';
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(
      prefix +
        (row.kind === 'entry' ? treeEntryLine(row.entry, rootLabel) : treeTruncationLine(row.truncation, rootLabel)),
    );
  }
  for (const t of wholeWalk) {
    if (t.reason === 'items_per_dir') continue;
    lines.push(prefix + treeTruncationLine(t, rootLabel));
  }
  return lines;
}
