// Every row filter of a walk request, declared once. A filter is a test on an Entry plus
// whether it reads anything a directory read does not give (a name and a type): if it
// does, every entry is lstat'd before it is tested, so a lazy entry is never tested with
// the zeros it holds until it is filled. A new filter is one more `RowTest` below.

import type { Entry, EntryType, RawEntry, WalkRequest } from '../domain/types.js';
import { compileFindFilter, filterNeedsStat } from '../find/filter.js';
import { compileGlobs } from '../glob/glob.js';

const DOT = 0x2e;

export interface WalkFilter {
  /** Does `prunes` read the path (an exclude glob)? If not, it is given none. */
  prunesByPath: boolean;
  /** Left out before anything else: not shown, not descended into, not lstat'd. */
  prunes(name: Buffer, path: Buffer | undefined): boolean;
  /** Must this lazy entry be filled before it is ranked, tested or descended into? */
  needsStat(raw: RawEntry): boolean;
  /** Does every entry need its lstat (an order or a filter reading metadata), whatever its type? */
  statsAll: boolean;
  /** Is the row shown? Error rows always are. Directories are walked whatever this says. */
  accepts(entry: Entry): boolean;
  /** Does `accepts` refuse any row? Then a directory's children are not all rows. */
  refuses: boolean;
}

interface RowTest {
  test(entry: Entry): boolean;
  /** Reads more than the name (path) and type. */
  readsMetadata: boolean;
}

function rowTests(req: WalkRequest): RowTest[] {
  const tests: RowTest[] = [];
  if (req.types.length > 0) {
    const types = new Set<EntryType>(req.types);
    tests.push({ readsMetadata: false, test: (e) => types.has(e.type) });
  }
  if (req.include.length > 0) {
    const include = compileGlobs(req.include);
    tests.push({ readsMetadata: false, test: (e) => include(e.path.toString('utf8')) });
  }
  if (req.filter !== undefined) {
    tests.push({ readsMetadata: filterNeedsStat(req.filter), test: compileFindFilter(req.filter) });
  }
  return tests;
}

export function compileFilter(req: WalkRequest): WalkFilter {
  const tests = rowTests(req);
  const exclude = req.exclude.length > 0 ? compileGlobs(req.exclude) : undefined;
  // Names are enough to rank by name, hide, exclude or match a glob; lstat is needed for
  // other orders and metadata filters, and for directories (descent needs their device,
  // inode and error) and followed symlinks.
  const statAll = req.order !== 'name' || tests.some((t) => t.readsMetadata);
  return {
    prunesByPath: exclude !== undefined,
    prunes: (name, path) =>
      (req.excludeHidden && name[0] === DOT) || (exclude?.((path as Buffer).toString('utf8')) ?? false),
    statsAll: statAll,
    needsStat: (raw) =>
      statAll || raw.type === 'dir' || raw.type === 'unknown' || (req.followSymlinks && raw.type === 'symlink'),
    accepts: tests.length === 0 ? () => true : (e) => e.error !== undefined || tests.every((t) => t.test(e)),
    refuses: tests.length > 0,
  };
}
