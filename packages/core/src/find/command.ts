// A listing as one shell command, pure: GNU find with NUL-separated -printf records,
// bounded by `timeout` and a record cap (find/records.ts parses what it prints). The SSH
// backend runs it on the remote host, the agent locally. Every argument is single-quoted
// and every path validated (find/remote-shell.ts).

import type { WalkRequest } from '../domain/types.js';
import { PSEUDO_FS_TYPES } from '../policy/pseudo-fs.js';
import { filterPredicates } from './filter-predicates.js';
import { AWK_PROBE, AWK_PROBE_OK, CANDIDATE_TYPES, candidateFormat, directoriesAreRows, rankArgs } from './rank.js';
import { EXIT_MARK, shellQuote, timeoutSeconds, validateRemotePath } from './remote-shell.js';

// One record = FIELDS NUL-terminated fields; the first says what it is:
// R = an entry, D = a directory find could not read (pruned; listed as a DENIED dir),
// P = the mount point of a pseudo file system (pruned; its %l field holds the type, %F),
// X = a directory that can be read but not searched (pruned; FindArgsOptions.unsearchable).
const FIELD_FORMAT = ['%y', '%Y', '%s', '%T@', '%Tz', '%m', '%U', '%G', '%i', '%n', '%D', '%d', '%l', '%P'];
export const FIELDS = FIELD_FORMAT.length + 1;
// %Y stats every entry's target, a second stat per entry: it is read only when following
// symlinks (toRecord), so a walk that does not follow prints a placeholder instead.
const printf = (kind: string, follow: boolean) =>
  `${kind}\\0${FIELD_FORMAT.map((f) => (f === '%Y' && !follow ? '-' : f)).join('\\0')}\\0`;
const prunedFormat = (follow: boolean) => printf('P', follow).replace('\\0%l\\0', '\\0%F\\0');

/** Marks, on stderr, whether one half of a split listing split the tree. */
const SPLIT_MARK = 'fleetls-split:';

/**
 * How the kept candidates of a stub listing are stat'ed again inside the listing's own
 * exec: GNU find 4.9's `-files0-from -` reads their paths itself (one process); before
 * 4.9, xargs hands them to a find (three).
 */
export type RestatForm = 'files0' | 'xargs';

export interface WalkCommandOptions {
  /** Records read at most (the root's not counted); one more is read to detect the cap. */
  maxRecords: number;
  /** Pre-rank on the remote side (find/rank.ts): only for a walk `remoteRankable` accepts. */
  rank?: boolean;
  /**
   * With rank: candidates cross find and awk as short records (type, key, path) and the kept
   * ones leave as K records (type and path), completed by buildRestatCommand. find formats
   * two fields instead of thirteen per file and awk splits short records: the remote
   * listing's cost per entry drops by about a quarter.
   */
  stubs?: boolean;
  /**
   * With stubs: the kept candidates are stat'ed again in the same exec, by a find that
   * reads their paths from awk once awk has written everything else (rankArgs' restat),
   * and leave as A records (the restat's R records, with absolute paths) after the
   * listing's; the restat's status is the exec's own (124 or 137: cut at the deadline, as
   * `timeout` says). The path itself, when it
   * is a file, still leaves as a K record (it is stat'ed as -H would: buildRestatCommand).
   * One channel and two processes instead of a second exec's channel and four.
   */
  restat?: RestatForm;
  /**
   * The listed path's own file-system type when it is a pseudo one (a first listing came
   * back as its P record): not pruned, so /proc itself can be listed.
   */
  ownFsType?: string;
  /**
   * One of two listings run at once that list a tree of directories between them, each
   * stat'ing half of it (FindArgsOptions.half), so two cores of the host list it; a path
   * without subdirectories is listed whole by half 0 (see buildWalkCommand).
   */
  half?: 0 | 1;
  /**
   * The login shell that runs the command is a POSIX sh (ProbeResult.posixShell): the
   * script goes to it as it is, not inside `sh -c`, one shell fewer per listing.
   */
  posixShell?: boolean;
}

export interface FindArgsOptions {
  /** Pre-rank (find/rank.ts): candidates as short records for awk. */
  rank?: boolean;
  /** Pre-ranked, kept candidates leave awk as K records (type and path) the caller completes. */
  stubs?: boolean;
  /** File-system types whose mount points the walk lists as P records and does not enter. */
  pseudo?: readonly string[];
  /**
   * A directory that can be read but not searched (r--) becomes an X record and is not
   * entered: its names can be read, their metadata cannot, and find would skip them where
   * a walk lists each as an error row; the caller lists it itself.
   */
  unsearchable?: boolean;
  /** One of two finds that list the tree between them, each stat'ing half of it (splitClause). */
  half?: 0 | 1;
  /**
   * With stubs: a directory below the path that is listed and entered comes as `d %d %P`,
   * for an awk that sends directories only as the ancestors of rows and has them stat'ed
   * again (rankArgs' ancestors and restat): one field for find and awk instead of fifteen.
   */
  dirStubs?: boolean;
}

/** The depth at which two halves split the tree into subtrees. */
export const SPLIT_DEPTH = 4;
/** Base names whose last byte is one of these go to half 0, the others to half 1. */
const HALF_0_NAMES = '*[02468acegikmoqsuwyACEGIKMOQSUWY_.-]';

/**
 * The words that make a find skip what the other half lists. Every entry at depth
 * SPLIT_DEPTH or less belongs to one half by its base name, but directories above that
 * depth, which both halves walk through and half 0 lists; a directory at that depth is
 * entered only by its own half, so everything deeper is listed once. What is not this
 * half's is not printed (nor stat'ed: -path, -name and -type d read no inode), and the
 * directories of the other half at the split depth, or that the other half prunes (cannot
 * be read or searched, or the mount point of a pseudo file system), are pruned: a half
 * that walked into /proc would rank its files among its own candidates, and a top N full
 * of them pushes out the real ones (the engine then drops them with their pruned parent).
 */
function splitClause(path: string, half: 0 | 1, pseudo: readonly string[]): string[] {
  const base = path === '/' ? '' : literalPattern(path);
  const atSplit = `${base}${'/*'.repeat(SPLIT_DEPTH)}`;
  const deeper = `${atSplit}/*`;
  const above = ['(', '-type', 'd', '-not', '-path', atSplit, ')'];
  const other =
    half === 0 ? ['-not', ...above, '-not', '-name', HALF_0_NAMES] : ['(', ...above, '-o', '-name', HALF_0_NAMES, ')'];
  const pruned = ['-path', atSplit, '-o', '-not', '-readable', '-o', '-not', '-executable'];
  const prune = ['(', '-type', 'd', '(', ...pruned, ...pseudo.flatMap((t) => ['-o', '-fstype', t]), ')'];
  return ['-not', '-path', deeper, ...other, ...prune, '-prune', '-o', '-true', ')', '-o'];
}

/** A path as a -path pattern that matches only itself. */
function literalPattern(path: string): string {
  return path.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Directories always (the walk descends through them), other rows only when they pass the
 * filters. With stubs, the path itself always (the caller lists it), and every row that
 * fails them as an `s` record for awk to count as seen (the path too when hidden rows are
 * excluded: one below a hidden directory is never seen).
 */
function rowFilter(req: WalkRequest, stubs: boolean): { test: string[]; unmatched: string[] } {
  const preds = filterPredicates(req);
  if (!preds) return { test: [], unmatched: [] };
  if (!stubs) return { test: ['(', '-type', 'd', '-o', ...preds, ')'], unmatched: [] };
  return {
    test: ['(', '-type', 'd', '-o', '-path', literalPattern(req.path), '-o', ...preds, ')'],
    unmatched: ['-o', '-printf', req.excludeHidden ? 's %P\\0' : 's\\0'],
  };
}

/**
 * find's arguments (unquoted words) for a listing: every object from the path down to
 * `maxDepth`, the path itself first (depth 0). `-H` (or `-L` when following symlinks) so a
 * symlinked start directory is listed; `-xdev` for one_file_system (the engine lists mount
 * points but never enters them, as find does); unreadable directories become D records and
 * are not entered. Run with FIND_ENV.
 */
export function findArgs(req: WalkRequest, opts: FindArgsOptions): string[] {
  const path = validateRemotePath(req.path);
  const follow = req.followSymlinks;
  const rows = rowFilter(req, opts.stubs ?? false);
  const full = ['-printf', printf('R', follow)];
  const candidate = ['-printf', candidateFormat(req, opts.stubs ?? false)];
  const print = opts.rank ? ['(', '(', ...CANDIDATE_TYPES, ')', ...candidate, '-o', ...full, ')'] : full;
  // Ranked, a regular file that passes the filters is printed before any other test: most
  // entries are files, and none of the directory clauses below can match one, so each is
  // tested once instead of about ten times (find's CPU over a 50,000-file directory: -7 %).
  // One that fails the filters goes on through them as before.
  const file = ['-printf', candidateFormat(req, opts.stubs ?? false, 'f')];
  const files = opts.rank ? ['(', '-type', 'f', ...(filterPredicates(req) ?? []), ...file, ')', '-o'] : [];
  return [
    follow ? '-L' : '-H',
    path,
    '-maxdepth',
    String(Math.max(0, Math.floor(req.maxDepth))),
    ...(req.oneFileSystem ? ['-xdev'] : []),
    ...(opts.half === undefined ? [] : splitClause(req.path, opts.half, opts.pseudo ?? [])),
    ...files,
    ...(opts.pseudo && opts.pseudo.length > 0
      ? [
          ...['(', '-type', 'd', '(', '-false', ...opts.pseudo.flatMap((t) => ['-o', '-fstype', t]), ')'],
          ...['-printf', prunedFormat(follow), '-prune', ')', '-o'],
        ]
      : []),
    ...['(', '-type', 'd', '-not', '-readable', '-printf', printf('D', follow), '-prune', ')', '-o'],
    ...(opts.unsearchable
      ? ['(', '-type', 'd', '-not', '-executable', '-printf', printf('X', follow), '-prune', ')', '-o']
      : []),
    ...(opts.stubs && opts.dirStubs
      ? ['(', '-type', 'd', '-not', '-path', literalPattern(path), '-printf', 'd %d %P\\0', ')', '-o']
      : []),
    ...rows.test,
    ...print,
    ...rows.unmatched,
  ];
}

/**
 * find's environment: the C locale (bytes, not characters); and %Tz calls localtime(),
 * which with TZ unset stats /etc/localtime on every entry, so the same zone file is named
 * once and read once (a TZ already set is kept).
 */
export function findEnv(tz: string | undefined): { LC_ALL: string; TZ: string } {
  return { LC_ALL: 'C', TZ: tz ?? ':/etc/localtime' };
}

/**
 * The listing command for the remote host: findArgs under `timeout`, pre-ranked or not,
 * capped; a pseudo file system it crosses into is pruned by type (-fstype), with no probe.
 */
export function buildWalkCommand(req: WalkRequest, opts: WalkCommandOptions): string {
  const secs = timeoutSeconds(req.deadlineMs);
  const pseudo = PSEUDO_FS_TYPES.filter((t) => t !== opts.ownFsType);
  const stubs = opts.rank === true && opts.stubs === true;
  const restat = stubs ? opts.restat : undefined;
  // Records passed on at most: the cap, the path itself and the one that shows the cap.
  const records = Math.floor(opts.maxRecords) + 2;
  const listing = (half: 0 | 1 | undefined) => {
    // Two halves send every directory (the engine needs both halves' to walk): no ancestors.
    const ancestors = opts.rank === true && half === undefined && !directoriesAreRows(req);
    const dirStubs = ancestors && restat !== undefined;
    const words = findArgs(req, { rank: opts.rank, stubs, pseudo, half, dirStubs }).map(shellQuote);
    const find = [...FIND_ENV, 'timeout', '-s', 'KILL', String(secs), 'find', ...words];
    const listed = `{ ${find.join(' ')}; echo "${EXIT_MARK}$?" >&2; }`;
    if (!opts.rank) return `${listed} | head -z -n ${records * FIELDS}`;
    // awk bounds what it passes on itself (cap), one process fewer than `| head`.
    const ranking = rankArgs(req, FIELDS, { stubs, ancestors, restat: restat !== undefined, cap: records });
    const awk = `LC_ALL=C awk ${ranking.map(shellQuote).join(' ')}`;
    if (!restat) return `${listed} | ${awk}`;
    // awk's stdout is the exec's (descriptor 4), its descriptor 3 the restat's input. The
    // restat ends the pipeline, bare: its status is the exec's, no shell waits to echo it.
    return `{ ${listed} | FLEETLS_ROOT=${shellQuote(req.path)} ${awk} 3>&1 >&4 | ${restatFind(restat, secs)}; } 4>&1`;
  };
  const wrap = (script: string) => (opts.posixShell ? script : `sh -c ${shellQuote(script)}`);
  if (opts.half === undefined) return wrap(listing(undefined));
  // Each half decides alone, by the same test, whether there are subtrees to share: a
  // directory with subdirectories (nlink > 2) is split, anything else is listed whole by
  // half 0 while half 1 lists nothing. Each says on stderr which it did (splitOf), so a
  // caller whose two halves disagreed (the path changed in between) lists again.
  const test = `[ "$(LC_ALL=C find -H ${shellQuote(validateRemotePath(req.path))} -maxdepth 0 -type d -links +2 -printf y 2>/dev/null)" = y ]`;
  const whole = opts.half === 0 ? listing(undefined) : `echo "${EXIT_MARK}0" >&2`;
  const script = `if ${test}; then echo "${SPLIT_MARK}1" >&2; ${listing(opts.half)}; else echo "${SPLIT_MARK}0" >&2; ${whole}; fi`;
  return wrap(script);
}

/**
 * Whether a half of buildWalkCommand split the tree (true) or listed it whole or not at all
 * (false), undefined when it never said; and its stderr without that line.
 */
export function splitOf(stderr: string): { split: boolean | undefined; stderr: string } {
  const m = new RegExp(`^${SPLIT_MARK}([01])\\n`).exec(stderr);
  if (!m) return { split: undefined, stderr };
  return { split: m[1] === '1', stderr: stderr.slice(m[0].length) };
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion (findEnv's TZ)
const FIND_ENV = ['LC_ALL=C', 'TZ="${TZ:-:/etc/localtime}"'];
/** The restat's record: an R record with the absolute path (%p), as an A record. */
const RESTAT_FORMAT = printf('A', false).replace('\\0%P\\0', '\\0%p\\0');

/**
 * The restat inside a listing's pipeline: absolute paths, NUL-terminated, on stdin; each
 * stat'ed without following a link (-P) and printed as an A record. A path gone since is
 * missing (find says so on stderr). Bounded by the listing's deadline, as the listing is.
 */
function restatFind(form: RestatForm, secs: number): string {
  const bounded = [...FIND_ENV, 'timeout', '-s', 'KILL', String(secs)];
  if (form === 'files0')
    return [...bounded, 'find', '-files0-from', '-', '-maxdepth', '0', '-printf', shellQuote(RESTAT_FORMAT)].join(' ');
  const inner = `exec find -P "$@" -maxdepth 0 -printf ${shellQuote(RESTAT_FORMAT)}`;
  return [...bounded, 'xargs', '-0', '-r', 'sh', '-c', shellQuote(inner), 'sh'].join(' ');
}

/**
 * The full records of a stub listing's kept candidates (K records): their paths, absolute,
 * come NUL-terminated on stdin (a path that is not UTF-8 cannot ride on a command line),
 * and each is stat'ed again with -maxdepth 0, printed as the listing's own R record would
 * have been but with the absolute path (%p; parseRestat makes it relative). -P (never
 * following a link), or -H for the listed path itself (a file, so the only stub), as the
 * listing started there. A path gone since is missing from the output (find says so on
 * stderr).
 */
export function buildRestatCommand(req: WalkRequest, opts: { root: boolean; timeoutSec: number }): string {
  validateRemotePath(req.path);
  const format = printf('R', false).replace('\\0%P\\0', '\\0%p\\0');
  const inner = `exec find ${opts.root ? '-H' : '-P'} "$@" -maxdepth 0 -printf ${shellQuote(format)}`;
  const xargs = [
    'LC_ALL=C',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion (findEnv's TZ)
    'TZ="${TZ:-:/etc/localtime}"',
    'timeout',
    '-s',
    'KILL',
    String(Math.max(1, Math.ceil(opts.timeoutSec))),
    'xargs',
    '-0',
    '-r',
    'sh',
    '-c',
    shellQuote(inner),
    'sh',
  ].join(' ');
  return `sh -c ${shellQuote(`${xargs}; echo "${EXIT_MARK}$?" >&2`)}`;
}

/**
 * Directory sizes, as `du -b --one-file-system`, for every directory down to `maxDepth`,
 * niced, under the same deadline. First the unreadable directories below the path
 * (E records, so sizes above them are marked partial and count them), then du's
 * `SIZE\tPATH` records, then an `A` record and the same from `du -B1` (allocated: st_blocks
 * × 512, as du without -b; its second pass reads what the first left in the cache).
 */
export function buildDirSizeCommand(req: WalkRequest, opts: { ionice: boolean }): string {
  const path = validateRemotePath(req.path);
  const secs = timeoutSeconds(req.deadlineMs);
  const inner = [
    `find . -xdev -type d -not -readable -prune -printf ${shellQuote('E%P\\0')} 2>/dev/null`,
    `du -b --one-file-system --max-depth=${Math.max(0, Math.floor(req.maxDepth))} -0 .`,
    `printf ${shellQuote('A\\0')}`,
    `du -B1 --one-file-system --max-depth=${Math.max(0, Math.floor(req.maxDepth))} -0 .`,
  ].join('; ');
  const nice = ['nice', '-n', '19', ...(opts.ionice ? ['ionice', '-c3'] : [])].join(' ');
  const script = `cd -- ${shellQuote(path)} || exit 3; LC_ALL=C timeout -s KILL ${secs} ${nice} sh -c ${shellQuote(inner)}; echo "${EXIT_MARK}$?" >&2`;
  return `sh -c ${shellQuote(script)}`;
}

const STAT_FORMAT = [...FIELD_FORMAT, '%u', '%g', '%A@', '%C@'];
export const STAT_FIELDS = STAT_FORMAT.length;

/** stat of one path (lstat unless following), with owner and group names, atime and ctime. */
export function buildStatCommand(path: string, followSymlinks: boolean, timeoutSec: number): string {
  validateRemotePath(path);
  const find = [
    'LC_ALL=C',
    'timeout',
    '-s',
    'KILL',
    String(Math.max(1, Math.ceil(timeoutSec))),
    'find',
    followSymlinks ? '-L' : '-P',
    shellQuote(path),
    '-maxdepth',
    '0',
    '-printf',
    shellQuote(`${STAT_FORMAT.join('\\0')}\\0`),
  ].join(' ');
  return `sh -c ${shellQuote(`${find}; echo "${EXIT_MARK}$?" >&2`)}`;
}

/** The probe: GNU find, du, stat and ionice present? One exec. */
export const PROBE_COMMAND = `sh -c ${shellQuote(
  'LC_ALL=C find --version 2>/dev/null | head -n 1; ' +
    'printf "du=%s\\n" "$(command -v du)"; printf "ionice=%s\\n" "$(command -v ionice)"; ' +
    'printf "timeout=%s\\n" "$(command -v timeout)"; printf "head=%s\\n" "$(command -v head)"; ' +
    'printf "cpus=%s\\n" "$(getconf _NPROCESSORS_ONLN 2>/dev/null)"; ' +
    `${AWK_PROBE} 2>/dev/null; ` +
    // A listing's own restat: awk writes to descriptor 3 once flushed; find reads paths itself.
    `printf "fd3=%s\\n" "$(LC_ALL=C awk 'BEGIN { fflush(); printf "y" > "/dev/fd/3"; close("/dev/fd/3") }' 3>&1 >/dev/null 2>&1)"; ` +
    'printf "xargs=%s\\n" "$(command -v xargs)"; ' +
    'find -files0-from /dev/null -maxdepth 0 >/dev/null 2>&1 && echo files0=y; ' +
    // The login shell sshd runs commands with (its pw_shell, which it exports as SHELL).
    'printf "shell=%s\\n" "$SHELL"',
)}`;

/** Login shells that parse the listing's script as `sh` does (not csh, fish, or zsh's own rules). */
const POSIX_SHELLS = new Set(['sh', 'dash', 'bash', 'ash', 'ksh', 'mksh', 'ksh93']);

export interface ProbeResult {
  gnuFind: boolean;
  findVersion: string;
  du: boolean;
  ionice: boolean;
  timeout: boolean;
  /** awk handles NUL bytes: ranked walks are pre-ranked remotely. */
  awk: boolean;
  /** Online CPUs (getconf; 1 when unknown): two or more list a ranked walk in two halves at once. */
  cpus: number;
  /** How a stub listing stats its kept candidates again in its own exec; undefined: it cannot. */
  restat: RestatForm | undefined;
  /** The login shell is a POSIX sh: a listing's script needs no `sh -c` of its own. */
  posixShell: boolean;
}

export function parseProbe(stdout: string): ProbeResult {
  const lines = stdout.split('\n');
  const findVersion = /GNU findutils/.test(lines[0] ?? '') ? lines[0].trim() : '';
  const has = (k: string) => lines.some((l) => l.startsWith(`${k}=`) && l.length > k.length + 1);
  return {
    gnuFind: findVersion !== '' && has('head'),
    findVersion,
    du: has('du'),
    ionice: has('ionice'),
    timeout: has('timeout'),
    awk: lines.includes(AWK_PROBE_OK),
    cpus: Math.max(1, Number.parseInt(lines.find((l) => l.startsWith('cpus='))?.slice(5) ?? '', 10) || 1),
    restat: !lines.includes('fd3=y')
      ? undefined
      : lines.includes('files0=y')
        ? 'files0'
        : has('xargs')
          ? 'xargs'
          : undefined,
    posixShell: POSIX_SHELLS.has(lines.find((l) => l.startsWith('shell='))?.replace(/^.*\//, '') ?? ''),
  };
}
