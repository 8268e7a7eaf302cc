// The remote side of an SSH listing, pure: the one shell command a call sends (GNU find
// with NUL-separated -printf records, bounded by `timeout` and a record cap) and the
// streaming parser that turns its output back into core's records, byte for byte.
// Every argument is single-quoted; paths are validated before they get here.
import type { EntryError, EntryType, RawEntry, SourceRecord, StatInfo, WalkRequest } from '@fleetls/core';
import { entryErrorFromErrno, errorRawEntry, FleetError, PSEUDO_FS_TYPES, prunedError } from '@fleetls/core';
import { filterPredicates } from './find-filter-predicates.js';
import {
  AWK_PROBE,
  AWK_PROBE_OK,
  CANDIDATE_FORMAT,
  CANDIDATE_TYPES,
  type RankDropped,
  rankStage,
} from './remote-rank.js';

/** Quotes one argument for a POSIX shell: always single quotes, `'` as `'\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A path that may be put on a remote command line: absolute, no NUL, no newline. */
export function validateRemotePath(path: string): string {
  if (typeof path !== 'string' || path === '') throw new FleetError('invalid_argument', 'path: must not be empty');
  if (!path.startsWith('/'))
    throw new FleetError('invalid_argument', `path: must be absolute, got ${JSON.stringify(path)}`);
  if (path.includes('\0')) throw new FleetError('invalid_argument', 'path: must not contain NUL');
  if (/[\n\r]/.test(path)) throw new FleetError('invalid_argument', 'path: must not contain a newline');
  // Absolute already means no leading '-'; kept explicit so no caller can relax the check above.
  if (path.startsWith('-')) throw new FleetError('invalid_argument', 'path: must not start with "-"');
  return path;
}

/** Whole seconds `timeout` gets for a deadline (at least 1). */
export function timeoutSeconds(deadlineMs: number): number {
  return Math.max(1, Math.ceil(deadlineMs / 1000));
}

// One record = FIELDS NUL-terminated fields; the first says what it is:
// R = an entry, D = a directory find could not read (pruned; listed as a DENIED dir),
// P = the mount point of a pseudo file system (pruned; its %l field holds the type, %F).
const FIELD_FORMAT = ['%y', '%Y', '%s', '%T@', '%Tz', '%m', '%U', '%G', '%i', '%n', '%D', '%d', '%l', '%P'];
export const FIELDS = FIELD_FORMAT.length + 1;
// %Y stats every entry's target, a second stat per entry: it is read only when following
// symlinks (toRecord), so a walk that does not follow prints a placeholder instead.
const printf = (kind: string, follow: boolean) =>
  `${kind}\\0${FIELD_FORMAT.map((f) => (f === '%Y' && !follow ? '-' : f)).join('\\0')}\\0`;
const prunedFormat = (follow: boolean) => printf('P', follow).replace('\\0%l\\0', '\\0%F\\0');

/**
 * Shell that sets $p to find predicates `-o -fstype T` for every pseudo file-system type but
 * the path's own (`-false $p` then matches a pseudo mount point the walk crosses into).
 * The types are core's fixed list of plain names: unquoted expansion is safe.
 */
function pseudoPredicates(path: string, follow: boolean, secs: number): string {
  const own = `rt=$(LC_ALL=C timeout -s KILL ${secs} find ${follow ? '-L' : '-H'} ${shellQuote(path)} -maxdepth 0 -printf %F 2>/dev/null)`;
  return `${own}; p=; for t in ${PSEUDO_FS_TYPES.join(' ')}; do [ "$t" = "$rt" ] || p="$p -o -fstype $t"; done; `;
}

/** Marks the end of the remote script on stderr with find's exit status. */
const EXIT_MARK = 'fleetls-exit:';

export interface WalkCommandOptions {
  /** Records read at most (the root's not counted); one more is read to detect the cap. */
  maxRecords: number;
  /** Pre-rank on the remote side (remote-rank.ts): only for a walk `remoteRankable` accepts. */
  rank?: boolean;
}

/** Directories always (the walk descends through them), other rows only when they pass the filters. */
function rowFilter(req: WalkRequest): string[] {
  const preds = filterPredicates(req);
  return preds ? ['\\(', '-type', 'd', '-o', ...preds.map(shellQuote), '\\)'] : [];
}

/**
 * The listing command: every object from the path down to `maxDepth`, the path itself
 * first (depth 0). `-H` (or `-L` when following symlinks) so a symlinked start directory
 * is listed; `-xdev` for one_file_system (the engine lists mount points but never enters
 * them, as find does); unreadable directories become D records and are not entered.
 */
export function buildWalkCommand(req: WalkRequest, opts: WalkCommandOptions): string {
  const path = validateRemotePath(req.path);
  const secs = timeoutSeconds(req.deadlineMs);
  const find = (depths: string[], print: string[]) =>
    [
      'LC_ALL=C',
      // %Tz calls localtime(), which with TZ unset stats /etc/localtime on every entry;
      // naming the same zone file once makes it read once (a TZ already set is kept).
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
      'TZ="${TZ:-:/etc/localtime}"',
      'timeout',
      '-s',
      'KILL',
      String(secs),
      'find',
      req.followSymlinks ? '-L' : '-H',
      shellQuote(path),
      ...depths,
      ...(req.oneFileSystem ? ['-xdev'] : []),
      '\\(',
      '-type',
      'd',
      '\\(',
      '-false',
      '$p',
      '\\)',
      '-printf',
      shellQuote(prunedFormat(req.followSymlinks)),
      '-prune',
      '\\)',
      '-o',
      '\\(',
      '-type',
      'd',
      '-not',
      '-readable',
      '-printf',
      shellQuote(printf('D', req.followSymlinks)),
      '-prune',
      '\\)',
      '-o',
      ...rowFilter(req),
      ...print,
    ].join(' ');
  const full = ['-printf', shellQuote(printf('R', req.followSymlinks))];
  const maxDepth = String(Math.max(0, Math.floor(req.maxDepth)));
  const lines = (Math.floor(opts.maxRecords) + 2) * FIELDS;
  // Ranked remotely: candidates as short records for awk (remote-rank.ts).
  const print = opts.rank
    ? ['\\(', '\\(', ...CANDIDATE_TYPES, '\\)', '-printf', shellQuote(CANDIDATE_FORMAT), '-o', ...full, '\\)']
    : full;
  const rank = opts.rank ? ` | ${rankStage(req, FIELDS, shellQuote)}` : '';
  const listing = `{ ${find(['-maxdepth', maxDepth], print)}; echo "${EXIT_MARK}$?" >&2; }${rank}`;
  const script = `${pseudoPredicates(path, req.followSymlinks, secs)}${listing} | head -z -n ${lines}`;
  return `sh -c ${shellQuote(script)}`;
}

/**
 * Directory sizes, as `du -b --one-file-system`, for every directory down to `maxDepth`,
 * niced, under the same deadline. First the unreadable directories below the path
 * (E records, so sizes above them are marked partial), then du's `SIZE\tPATH` records.
 */
export function buildDirSizeCommand(req: WalkRequest, opts: { ionice: boolean }): string {
  const path = validateRemotePath(req.path);
  const secs = timeoutSeconds(req.deadlineMs);
  const inner = [
    `find . -xdev -type d -not -readable -prune -printf ${shellQuote('E%P\\0')} 2>/dev/null`,
    `du -b --one-file-system --max-depth=${Math.max(0, Math.floor(req.maxDepth))} -0 .`,
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
    `${AWK_PROBE} 2>/dev/null`,
)}`;

export interface ProbeResult {
  gnuFind: boolean;
  findVersion: string;
  du: boolean;
  ionice: boolean;
  timeout: boolean;
  /** awk handles NUL bytes: ranked walks are pre-ranked remotely. */
  awk: boolean;
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
  };
}

/** The remote script's exit status from its stderr marker; undefined when it never got there. */
export function exitFromStderr(stderr: string): number | undefined {
  const i = stderr.lastIndexOf(EXIT_MARK);
  if (i < 0) return undefined;
  const n = Number.parseInt(stderr.slice(i + EXIT_MARK.length), 10);
  return Number.isFinite(n) ? n : undefined;
}

/** stderr without the exit marker, for messages. */
export function stderrMessage(stderr: string): string {
  const i = stderr.lastIndexOf(EXIT_MARK);
  return (i < 0 ? stderr : stderr.slice(0, i)).trim();
}

/** `timeout` exits 124, or 137 when its KILL reached its own process group. */
export function timedOut(exit: number | undefined): boolean {
  return exit === 124 || exit === 137;
}

const TYPE_BITS: Record<string, [EntryType, number]> = {
  f: ['file', 0o100000],
  d: ['dir', 0o040000],
  l: ['symlink', 0o120000],
  p: ['fifo', 0o010000],
  s: ['socket', 0o140000],
  c: ['char', 0o020000],
  b: ['block', 0o060000],
};

/** find's `%T@` (`sec.fraction`, possibly negative) → [sec, nsec] as lstat gives them. */
export function parseTimestamp(s: string): [number, number] {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return [0, 0];
  const whole = Number(m[2]);
  const nsec = Number((m[3] ?? '').slice(0, 9).padEnd(9, '0'));
  if (m[1] === '-') return nsec === 0 ? [-whole, 0] : [-whole - 1, 1_000_000_000 - nsec];
  return [whole, nsec];
}

/** find's `%Tz` (`+hhmm`) → minutes east of UTC. */
export function parseUtcOffset(s: string): number {
  const m = /^([+-])(\d\d)(\d\d)$/.exec(s);
  if (!m) return 0;
  const min = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -min : min;
}

export interface FindItem {
  /** Path relative to the listed path ('' for the path itself). */
  record: SourceRecord;
  depth: number;
  /** A directory find could not read. */
  denied: boolean;
  /** The type of the pseudo file system whose mount point this is (not entered). */
  pseudo?: string;
}

/** Fields of one R/D record (after the kind) → a record with the agent's RawEntry values. */
function toRecord(f: Buffer[], follow: boolean): SourceRecord {
  const a = (i: number) => f[i].toString('latin1');
  const [type, bits] = TYPE_BITS[a(0)] ?? ['unknown', 0];
  const [mtimeSec, mtimeNsec] = parseTimestamp(a(3));
  const rec: SourceRecord = {
    path: Buffer.from(f[13]),
    type,
    size: Number(a(2)),
    mtimeSec,
    mtimeNsec,
    utcOffsetMin: parseUtcOffset(a(4)),
    mode: bits | Number.parseInt(a(5), 8),
    uid: Number(a(6)),
    gid: Number(a(7)),
    inode: Number(a(8)),
    nlink: Number(a(9)),
    dev: Number(a(10)),
  };
  if (f[12].length > 0) rec.linkTarget = Buffer.from(f[12]);
  // Following symlinks, find falls back to lstat for a link it cannot follow (%Y says why).
  if (follow && type === 'symlink') {
    const why = a(1);
    rec.error =
      why === 'N'
        ? entryErrorFromErrno('ENOENT', 'symlink target does not exist')
        : why === 'L'
          ? entryErrorFromErrno('ELOOP')
          : entryErrorFromErrno('EACCES');
  }
  return rec;
}

/**
 * Streaming parser for the walk command's output. Push chunks as they arrive (a record
 * may be split anywhere); records come out complete. Names are raw bytes: non-UTF-8,
 * newlines, tabs and quotes pass through unchanged.
 */
export class FindRecordParser {
  private rest: Buffer = Buffer.alloc(0);
  private fields: Buffer[] = [];
  /** Records seen whose kind field was none of R, D, P, C (a cut or garbled stream). */
  garbled = 0;
  /** The remote ranking's trailer (C record): what it dropped. */
  dropped?: RankDropped;

  constructor(private readonly follow: boolean) {}

  push(chunk: Buffer): FindItem[] {
    const out: FindItem[] = [];
    const buf = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (;;) {
      const nul = buf.indexOf(0, start);
      if (nul < 0) break;
      this.fields.push(buf.subarray(start, nul));
      start = nul + 1;
      if (this.fields.length === FIELDS) {
        const [kind, ...f] = this.fields;
        this.fields = [];
        const k = kind.toString('latin1');
        if (k === 'C') {
          this.dropped = { seen: Number(f[0].toString('latin1')), matched: Number(f[1].toString('latin1')) };
          continue;
        }
        if (k !== 'R' && k !== 'D' && k !== 'P') {
          this.garbled++;
          continue;
        }
        const item: FindItem = {
          record: toRecord(f, this.follow),
          depth: Number(f[11].toString('latin1')),
          denied: k === 'D',
        };
        if (k === 'P') {
          item.pseudo = f[12].toString('latin1');
          delete item.record.linkTarget;
        }
        out.push(item);
      }
    }
    // Copy the tail so the chunk it came from can be released.
    this.rest = Buffer.from(buf.subarray(start));
    return out;
  }

  /** True when the stream stopped mid-record (e.g. killed at the deadline). */
  incomplete(): boolean {
    return this.rest.length > 0 || this.fields.length > 0;
  }
}

/** All records of a stream of chunks. */
export async function* parseFindRecords(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  follow = false,
): AsyncGenerator<FindItem, void, void> {
  const p = new FindRecordParser(follow);
  for await (const c of chunks) yield* p.push(c);
}

/** The walk command's output, split into the root, the records below it, and dir errors. */
export interface FindListing {
  root?: SourceRecord;
  rootDenied: boolean;
  records: SourceRecord[];
  dirErrors: Map<string, EntryError>;
  /** More records existed than the cap allowed. */
  capped: boolean;
}

export function collectListing(items: Iterable<FindItem>, maxRecords: number): FindListing {
  const out: FindListing = { rootDenied: false, records: [], dirErrors: new Map(), capped: false };
  for (const it of items) {
    if (it.depth === 0) {
      out.root = it.record;
      out.rootDenied = it.denied;
      if (it.denied) out.dirErrors.set('', entryErrorFromErrno('EACCES'));
      continue;
    }
    if (out.records.length >= maxRecords) {
      out.capped = true;
      continue;
    }
    out.records.push(it.record);
    if (it.denied) out.dirErrors.set(it.record.path.toString('latin1'), entryErrorFromErrno('EACCES'));
    if (it.pseudo !== undefined) out.dirErrors.set(it.record.path.toString('latin1'), prunedError(it.pseudo));
  }
  return out;
}

/** The listed path itself when find could not stat it: an error entry, as the agent gives. */
export function rootErrorEntry(stderr: string): RawEntry {
  const errno = /No such file or directory|Not a directory/.test(stderr)
    ? 'ENOENT'
    : /Permission denied/.test(stderr)
      ? 'EACCES'
      : undefined;
  return errorRawEntry(
    Buffer.alloc(0),
    'dir',
    entryErrorFromErrno(errno, errno ? undefined : stderr.split('\n')[0] || 'find failed'),
  );
}

/**
 * The dir-size command's output → sizes keyed like MemorySource (latin1 relative path,
 * '' = the path). A size is partial when an unreadable directory lies at or below it.
 */
export function parseDirSizes(out: Buffer): Map<string, { size: number; partial: boolean }> {
  const denied: Buffer[] = [];
  const sizes = new Map<string, { size: number; partial: boolean }>();
  let start = 0;
  for (;;) {
    const nul = out.indexOf(0, start);
    if (nul < 0) break;
    const item = out.subarray(start, nul);
    start = nul + 1;
    if (item[0] === 0x45 /* E */) {
      denied.push(item.subarray(1));
      continue;
    }
    const tab = item.indexOf(0x09);
    if (tab < 0) continue;
    const size = Number(item.subarray(0, tab).toString('latin1'));
    let p = item.subarray(tab + 1);
    if (p.length === 1 && p[0] === 0x2e) p = Buffer.alloc(0);
    else if (p[0] === 0x2e && p[1] === 0x2f) p = p.subarray(2);
    if (Number.isFinite(size)) sizes.set(p.toString('latin1'), { size, partial: false });
  }
  for (const d of denied) {
    // The unreadable directory and each of its ancestors.
    let key = d.toString('latin1');
    for (;;) {
      const s = sizes.get(key);
      if (s) s.partial = true;
      if (key === '') break;
      const slash = key.lastIndexOf('/');
      key = slash < 0 ? '' : key.slice(0, slash);
    }
  }
  return sizes;
}

/** The stat command's output → StatInfo (the path itself: empty path, depth 0), as the agent's. */
export function parseStat(out: Buffer, follow: boolean): StatInfo | undefined {
  const f: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nul = out.indexOf(0, start);
    if (nul < 0) break;
    f.push(out.subarray(start, nul));
    start = nul + 1;
  }
  if (f.length < STAT_FIELDS) return undefined;
  const rec = toRecord(f, follow);
  if (rec.error) {
    const code =
      rec.error.code === 'NOT_FOUND' ? 'not_found' : rec.error.code === 'DENIED' ? 'permission_denied' : 'internal';
    throw new FleetError(code, rec.error.detail);
  }
  const s = (i: number) => f[FIELD_FORMAT.length + i].toString('latin1');
  const [atimeSec, atimeNsec] = parseTimestamp(s(2));
  const [ctimeSec, ctimeNsec] = parseTimestamp(s(3));
  const { path: _path, dev: _dev, ...fields } = rec;
  const entry: StatInfo['entry'] = { path: Buffer.alloc(0), ...fields, depth: 0 };
  if (follow) delete entry.linkTarget;
  return { entry, owner: s(0), group: s(1), atimeSec, atimeNsec, ctimeSec, ctimeNsec };
}

/** A failed stat/find of the path itself → FleetError with find's message. */
export function pathError(stderr: string, path: string): FleetError {
  const msg = stderrMessage(stderr) || `cannot stat ${path}`;
  if (/No such file or directory|Not a directory/.test(msg)) return new FleetError('not_found', msg);
  if (/Permission denied/.test(msg)) return new FleetError('permission_denied', msg);
  return new FleetError('internal', msg);
}
