// The domain of fleetls, shared by the agent, the SSH backend and the gateway.
// Wire types are converted to these at two edges only (agent service, agent client).
import type { FilterFeature, FindFilter } from '../filter/filter-types.js';

export const ENTRY_TYPES = ['file', 'dir', 'symlink', 'fifo', 'socket', 'char', 'block', 'unknown'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

/** Per-entry problems: the walk goes on and the entry is listed with its error. */
/**
 * TIMEOUT: a directory read or lstat that did not answer in time (a hung mount); the rest is listed.
 * PRUNED: a directory not walked by policy (a pseudo file system the walk crossed into); ask for it by path.
 */
export const ENTRY_ERROR_CODES = ['NOT_FOUND', 'DENIED', 'ERROR', 'TIMEOUT', 'PRUNED'] as const;

export type EntryErrorCode = (typeof ENTRY_ERROR_CODES)[number];

export interface EntryError {
  code: EntryErrorCode;
  detail: string;
}

export const ORDER_BY = ['name', 'size', 'modified'] as const;
export type OrderBy = (typeof ORDER_BY)[number];
export const SORT_DIRECTIONS = ['ascending', 'descending'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export const TRUNCATION_REASONS = ['depth', 'items_per_dir', 'max_entries', 'deadline', 'top_n', 'bytes'] as const;
export type TruncationReason = (typeof TRUNCATION_REASONS)[number];

/** What lstat (or stat when following symlinks) says of an object, as an Entry and a RawEntry carry it. */
export interface StatFields {
  type: EntryType;
  /** lstat size; in an Entry of a directory walked with dirSizes, the recursive apparent size. */
  size: number;
  mtimeSec: number;
  mtimeNsec: number;
  /** The host's UTC offset at mtime, minutes east of UTC. */
  utcOffsetMin: number;
  mode: number;
  uid: number;
  gid: number;
  inode: number;
  nlink: number;
  linkTarget?: Buffer;
}

/** One file system object, as seen by lstat (or stat when following symlinks). */
export interface Entry extends StatFields {
  /** Relative to the requested path, raw bytes, '/'-separated; empty for the path itself. */
  path: Buffer;
  /** 1 for the requested path's children. */
  depth: number;
  error?: EntryError;
  /** A recursive directory size that is only a lower bound. */
  sizePartial?: boolean;
  /**
   * Beside a directory's recursive size: the bytes it takes on disk (st_blocks × 512 summed,
   * as `du` without -b; a sparse file counts its allocated blocks only). Unset where the source
   * cannot know it (SFTP).
   */
  allocated?: number;
  /** Beside a partial recursive size: how many directories at or below it could not be read. */
  unreadableDirs?: number;
}

/** A directory's recursive size as a source measures it (du -b; `allocated` as du; why it is partial). */
export interface DirSize {
  size: number;
  partial: boolean;
  allocated?: number;
  unreadableDirs?: number;
}

/** A cap that bit: what was shown, what there was, and why. */
export interface Truncation {
  /** Directory the cap bit in (relative, raw bytes); empty for the whole walk. */
  dir: Buffer;
  shown: number;
  total: number;
  reason: TruncationReason;
}

/** A walk streams rows: entries, and per-directory truncations placed after that directory's rows. */
export type Row = { kind: 'entry'; entry: Entry } | { kind: 'truncation'; truncation: Truncation };

export interface WalkSummary {
  /** Entry rows emitted. */
  entriesSent: number;
  /** Entries the walk looked at. */
  entriesSeen: number;
  /** Entries that passed the filters: the full length of a ranked list. */
  entriesMatched: number;
  /** Whole-walk truncations (max_entries, deadline, depth, top_n). */
  truncations: Truncation[];
  elapsedMs: number;
  /** Directories left unopened because they sit at maxDepth. */
  depthLimitedDirs: number;
  /** How the host was listed, when that limits the answer (e.g. the SSH backend's SFTP fallback). Never set by the agent. */
  notes?: string[];
  /**
   * The request features the walk applied (the filters it was given and honoured). An agent
   * that does not know a feature cannot echo it, so the gateway refuses its rows.
   */
  applied?: FilterFeature[];
}

export type Shape = 'tree' | 'ranked';

/** A walk request after validation and defaults: every field is set and within bounds. */
export interface WalkRequest {
  /** Absolute, normalised path on the target host. */
  path: string;
  /** Levels listed: 1 = the path's children. */
  maxDepth: number;
  /** Children kept per nested directory (tree shape). */
  maxItemsPerDir: number;
  /** Apply maxItemsPerDir to the path itself too. */
  capRoot: boolean;
  /** Entry rows a tree walk emits at most. */
  maxEntries: number;
  order: OrderBy;
  direction: SortDirection;
  shape: Shape;
  /** Ranked shape: rows returned after skipping `offset`. */
  topN: number;
  offset: number;
  /** Globs over the relative path: include selects rows, exclude prunes (rows and descent). */
  include: string[];
  exclude: string[];
  /** Row types returned; empty = all. Directories are walked whatever their type filter. */
  types: EntryType[];
  excludeHidden: boolean;
  followSymlinks: boolean;
  oneFileSystem: boolean;
  dirSizes: boolean;
  /** Walk budget in ms, measured from the walk's start. */
  deadlineMs: number;
  /** Find-like row filters (size, mtime, owner, group, perm, base name); absent = none. */
  filter?: FindFilter;
  /**
   * Tree shape: resume after this row of an earlier page (a relative path; see `afterRow`).
   * Rows up to and including it are skipped, and directories wholly before it are not read.
   */
  after?: Buffer;
  /** Which row at `after` was shown last: its entry (default), its error row, or its [WARNING]. */
  afterRow?: ResumeRow;
}

/** The kind of row a tree walk resumes after (rows sharing one path come entry, error, warning). */
export type ResumeRow = 'entry' | 'error' | 'warning';
export const RESUME_ROWS = ['entry', 'error', 'warning'] as const satisfies readonly ResumeRow[];

/** What a source yields for one directory entry; the walk engine turns it into an Entry. */
export interface RawEntry extends StatFields {
  name: Buffer;
  /** Device id, for one_file_system and symlink-loop detection. */
  dev: number;
  /** lstat (or the allowed-roots check of a followed symlink) failed. */
  error?: EntryError;
  /**
   * Only `name` and `type` are known yet (from the directory read itself); the source's
   * `fill` completes the entry. The engine fills only what it must rank or show, so a
   * directory of a million names costs a million names, and lstat only for what is kept.
   */
  lazy?: boolean;
}

/**
 * What a ranked walk by size or time lets a source drop as it reads (walk/ranked.ts), without
 * making an object of it: an entry its heap would refuse whatever its path (its key strictly
 * worse than the worst kept, once the heap is full), or one of a type no row shows. A source
 * that cannot tell cheaply gives every entry, as without it. Directories, symlinks and
 * entries with an error are never dropped (the walk descends, follows or shows them).
 */
export interface RankCut {
  order: 'size' | 'modified';
  /** 1: the smallest (oldest) are kept; -1: the largest (newest). */
  sign: 1 | -1;
  /** The worst kept entry's key once the heap is full; undefined until then. */
  worst: { size: number; mtimeSec: number; mtimeNsec: number } | undefined;
  /** The types rows show (undefined: every type): an entry of another is dropped unmatched. */
  types: ReadonlySet<EntryType> | undefined;
  /** Entries the source dropped since the engine counted them: of a shown type (matched), and not. */
  droppedMatched: number;
  droppedUnmatched: number;
}

/**
 * Where a walk reads from: the agent's file system, or an SSH listing loaded in memory.
 * The engine in `walk.ts` applies every limit, filter and order on top of it, so the
 * same tree gives the same rows through both.
 */
export interface TreeSource {
  /** The requested path itself (lstat, or stat when following symlinks). */
  root(): RawEntry;
  /**
   * Children of a directory (relative raw path; empty = root), in any order. `stats`: how
   * many of them the walk may lstat (fill) at most, Infinity (the default) when it needs every
   * one's: a source that stats as it reads may stat that many now, and leave the rest lazy.
   * `cut`: what a ranked walk lets the source drop unseen (RankCut).
   */
  list(dir: Buffer, stats?: number, cut?: RankCut): Iterable<RawEntry> | { error: EntryError };
  /** Completes a `lazy` entry that `list(dir)` gave. */
  fill?(dir: Buffer, raw: RawEntry): RawEntry;
  /**
   * Recursive apparent size of a directory on one file system, as `du -b --one-file-system`
   * (each inode counted once per walk). Stops at the deadline and says so with `partial`.
   * `levels`: how many levels below `dir` the walk will still ask about (the source may size
   * them in the same pass).
   */
  dirSize(dir: Buffer, deadlineAt: number, levels?: number): DirSize;
}

/** Fields of `stat` beyond an Entry. */
export interface StatInfo {
  entry: Entry;
  owner: string;
  group: string;
  atimeSec: number;
  atimeNsec: number;
  ctimeSec: number;
  ctimeNsec: number;
  /** What this stat could not know (e.g. over SFTP: ctime, inode). */
  notes?: string[];
}

/**
 * How a host is reached: its agent over gRPC (TCP), its agent's Unix socket through the
 * host's SSH connection, `find` over SSH, or the gateway's embedded agent.
 */
export const VIAS = ['agent', 'agent+ssh', 'agent+nats', 'ssh', 'embedded'] as const;
export type Via = (typeof VIAS)[number];

export function isVia(value: unknown): value is Via {
  return (VIAS as readonly unknown[]).includes(value);
}

/** `pending`: not on this page yet (a paged answer lists the host on a later page); not a failure. */
export const HOST_STATUSES = [
  'ok',
  'unreachable',
  'timeout',
  'auth',
  'denied',
  'not_found',
  'error',
  'pending',
] as const;
export type HostStatusCode = (typeof HOST_STATUSES)[number];

export interface HostStatus {
  host: string;
  status: HostStatusCode;
  via: Via;
  elapsedMs: number;
  message?: string;
}
