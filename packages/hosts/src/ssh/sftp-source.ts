// The fallback lister for hosts without GNU find: SFTP readdir, one directory at a time,
// down to maxDepth. readdir's attrs are lstat's (OpenSSH's sftp-server), so an entry costs
// no round trip of its own; only symlinks are read (readlink, and stat when following).
// What SFTP v3 cannot say, and how it is made up for:
// - mtimes are whole seconds; the UTC offset is unknown (0: times are shown in UTC);
// - no inode or device: when following symlinks a directory's identity for loop detection
//   is its realpath; recursive sizes cannot tell hard links or mount points apart;
// - the link count comes from readdir's `ls -l` longname (OpenSSH's format), else 0;
// - ssh2 decodes names as UTF-8: a name that is not UTF-8 is listed lossily, as an error row.
import type { DirSize, EntryError, RawEntry, SourceRecord, StatInfo, WalkRequest } from '@fleetls/core';
import {
  entryErrorFromErrno,
  errnoFromSftp,
  errorRawEntry,
  FleetError,
  fleetErrorAt,
  pathKey,
  typeFromMode,
} from '@fleetls/core';
import type ssh2 from 'ssh2';
import type { SshConnection } from './connection.js';

type Sftp = ssh2.SFTPWrapper;
type Attrs = ssh2.Attributes;
type Fields = Omit<RawEntry, 'name'>;
/** ssh2 has it; its types do not. */
interface ReaddirFull {
  readdir(path: string, opts: { full: boolean }, cb: (err: Error | undefined, list: ssh2.FileEntry[]) => void): void;
}

/** Told with every walk listed over SFTP. */
export const SFTP_NOTE =
  'listed over SFTP (no GNU find on the host): mtimes are whole seconds, shown in UTC; ' +
  'recursive directory sizes count hard links once per link and may cross mount points';
/** Told with every stat over SFTP. */
export const SFTP_STAT_NOTE =
  'stat over SFTP (no GNU find on the host): times are whole seconds, shown in UTC; ' +
  'changed time, inode and link count are unknown (0); owner and group are numeric ids';

const NOT_UTF8: EntryError = {
  code: 'ERROR',
  detail: 'name is not valid UTF-8: SFTP shows it lossily and cannot open it',
};

/** The link count in an `ls -l` style longname ("-rw-r--r--    1 user group ..."), else 0. */
export function nlinkFromLongname(longname: string | undefined): number {
  const m = /^[-a-zA-Z?][-rwxsStTlL+.@?]{9}\S*\s+(\d+)\s/.exec(longname ?? '');
  return m ? Number(m[1]) : 0;
}

function fromAttrs(a: Attrs, nlink = 0): Fields {
  return {
    type: typeFromMode(a.mode),
    size: a.size,
    mtimeSec: a.mtime,
    mtimeNsec: 0,
    utcOffsetMin: 0,
    mode: a.mode,
    uid: a.uid,
    gid: a.gid,
    inode: 0,
    nlink,
    dev: 0,
  };
}

const call = <T>(f: (cb: (err: Error | undefined, v: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => f((err, v) => (err ? reject(err) : resolve(v))));

// `full`: with "." and ".." ("." carries the directory's own link count).
const readdir = (sftp: Sftp, path: string) =>
  call<ssh2.FileEntry[]>((cb) => (sftp as Sftp & ReaddirFull).readdir(path, { full: true }, cb));

/**
 * Directory identities by realpath, for loop detection when following symlinks (dev stays
 * 0), and the link counts seen for them: stat of a followed symlink has none, but the real
 * directory's own listing (or its "." entry) does.
 */
class DirIds {
  private readonly ids = new Map<string, number>();
  private readonly nlinks = new Map<number, number>();
  constructor(private readonly sftp: Sftp) {}
  async of(full: string, nlink = 0): Promise<number> {
    const real = await call<string>((cb) => this.sftp.realpath(full, cb)).catch(() => full);
    let id = this.ids.get(real);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(real, id);
    }
    this.seen(id, nlink);
    return id;
  }
  seen(id: number, nlink: number): void {
    if (nlink > 0) this.nlinks.set(id, nlink);
  }
  /** Fills in the link count of a followed directory from its real one. */
  fill(e: Fields): void {
    if (e.type === 'dir' && e.nlink === 0 && e.inode > 0) e.nlink = this.nlinks.get(e.inode) ?? 0;
  }
}

/** A listed entry from its readdir attrs; symlinks are read (and followed when asked). */
async function entryOf(sftp: Sftp, full: string, fe: ssh2.FileEntry, follow: boolean): Promise<Fields> {
  const l = fromAttrs(fe.attrs, nlinkFromLongname(fe.longname));
  if (l.type !== 'symlink') return l;
  const linkTarget = Buffer.from(await call<string>((cb) => sftp.readlink(full, cb)).catch(() => ''));
  if (!follow) return { ...l, linkTarget };
  try {
    return { ...fromAttrs(await call<Attrs>((cb) => sftp.stat(full, cb))), linkTarget };
  } catch (err) {
    const errno = errnoFromSftp(err);
    return {
      ...l,
      linkTarget,
      error: entryErrorFromErrno(errno, errno === 'ENOENT' ? 'symlink target does not exist' : undefined),
    };
  }
}

/**
 * Recursive apparent size of a directory, as `du -b`: its own size plus every entry's
 * lstat size below it. Unreadable directories and the deadline make it a lower bound.
 */
async function duApparent(
  sftp: Sftp,
  top: string,
  ownSize: number,
  deadlineAt: number,
  signal: AbortSignal,
): Promise<DirSize> {
  // SFTP's attributes carry no block count: the allocated size is not known on this route.
  let size = ownSize;
  let partial = false;
  let unreadableDirs = 0;
  const stack = [top];
  while (stack.length > 0) {
    if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
    if (Date.now() >= deadlineAt) return { size, partial: true, ...(unreadableDirs ? { unreadableDirs } : {}) };
    const dir = stack.pop()!;
    let list: ssh2.FileEntry[];
    try {
      list = await readdir(sftp, dir);
    } catch {
      partial = true;
      unreadableDirs++;
      continue;
    }
    for (const fe of list) {
      if (fe.filename === '.' || fe.filename === '..') continue;
      size += fe.attrs.size;
      if (typeFromMode(fe.attrs.mode) === 'dir') {
        if (fe.filename.includes('\uFFFD')) partial = true;
        else stack.push(`${dir === '/' ? '' : dir}/${fe.filename}`);
      }
    }
  }
  return { size, partial, ...(unreadableDirs ? { unreadableDirs } : {}) };
}

/** What one SFTP walk fills in. */
interface SftpWalk {
  sftp: Sftp;
  req: WalkRequest;
  signal: AbortSignal;
  deadlineAt: number;
  ids: DirIds | undefined;
  dirSizes: Map<string, DirSize> | undefined;
}

/** The listed path, as find -H gives it (followed), or its error row when it cannot be stat'ed. */
async function statRoot(w: SftpWalk): Promise<RawEntry> {
  try {
    const st = await call<Attrs>((cb) => w.sftp.stat(w.req.path, cb));
    const root: RawEntry = { ...fromAttrs(st), name: Buffer.alloc(0) };
    if (w.ids && root.type === 'dir') root.inode = await w.ids.of(w.req.path);
    return root;
  } catch (err) {
    return errorRawEntry(Buffer.alloc(0), 'dir', entryErrorFromErrno(errnoFromSftp(err)));
  }
}

/** One readdir entry as a record's fields: read (and followed), its identity and size when a directory. */
async function listedEntry(w: SftpWalk, relPath: string, fe: ssh2.FileEntry): Promise<Fields> {
  const base = w.req.path === '/' ? '' : w.req.path;
  const full = `${base}/${relPath}`;
  let e: Fields;
  if (fe.filename.includes('\uFFFD')) {
    e = { ...fromAttrs(fe.attrs, nlinkFromLongname(fe.longname)), error: NOT_UTF8 };
  } else {
    try {
      e = await entryOf(w.sftp, full, fe, w.req.followSymlinks);
    } catch (err) {
      e = errorRawEntry(Buffer.from(fe.filename), 'unknown', entryErrorFromErrno(errnoFromSftp(err)));
    }
  }
  if (e.type === 'dir' && !e.error) {
    if (w.ids) e.inode = await w.ids.of(full, e.nlink);
    if (w.dirSizes)
      w.dirSizes.set(pathKey(Buffer.from(relPath)), await duApparent(w.sftp, full, e.size, w.deadlineAt, w.signal));
  }
  return e;
}

/**
 * The entries of one directory (relative path `rel`, identity `id`), or its error. Symlink
 * reads and directory sizes go out at once: ssh2 pipelines them on the channel.
 */
async function listDir(w: SftpWalk, rel: string, id: number): Promise<{ relPath: string; e: Fields }[] | EntryError> {
  const dirFull = rel === '' ? w.req.path : `${w.req.path === '/' ? '' : w.req.path}/${rel}`;
  let list: ssh2.FileEntry[];
  try {
    list = await readdir(w.sftp, dirFull);
  } catch (err) {
    return entryErrorFromErrno(errnoFromSftp(err) ?? 'EIO');
  }
  const self = list.find((fe) => fe.filename === '.');
  if (w.ids && self) w.ids.seen(id, nlinkFromLongname(self.longname));
  return Promise.all(
    list
      .filter((fe) => fe.filename !== '.' && fe.filename !== '..')
      .map(async (fe) => {
        const relPath = rel === '' ? fe.filename : `${rel}/${fe.filename}`;
        return { relPath, e: await listedEntry(w, relPath, fe) };
      }),
  );
}

/** The tree below `path` down to maxDepth, breadth first, as core's MemorySource takes it. */
export async function sftpListing(conn: SshConnection, req: WalkRequest, signal: AbortSignal, deadlineAt: number) {
  const { sftp, release } = await conn.sftp(signal);
  const ids = req.followSymlinks ? new DirIds(sftp) : undefined;
  const w: SftpWalk = { sftp, req, signal, deadlineAt, ids, dirSizes: req.dirSizes ? new Map() : undefined };
  const records: SourceRecord[] = [];
  const dirErrors = new Map<string, EntryError>();
  let killed = false;
  try {
    const root = await statRoot(w);
    const queue: { rel: string; depth: number; id: number }[] =
      root.type === 'dir' && !root.error ? [{ rel: '', depth: 1, id: root.inode }] : [];
    while (queue.length > 0) {
      if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
      if (Date.now() >= deadlineAt) {
        killed = true;
        break;
      }
      const { rel, depth, id } = queue.shift()!;
      const listed = await listDir(w, rel, id);
      if (!Array.isArray(listed)) {
        dirErrors.set(pathKey(Buffer.from(rel)), listed);
        continue;
      }
      for (const { relPath, e } of listed) {
        records.push({ ...e, path: Buffer.from(relPath) });
        if (e.type === 'dir' && !e.error && depth < req.maxDepth)
          queue.push({ rel: relPath, depth: depth + 1, id: e.inode });
      }
    }
    if (ids) {
      ids.fill(root);
      for (const r of records) ids.fill(r);
    }
    return { root, records, dirErrors, dirSizes: w.dirSizes, capped: false, killed };
  } finally {
    release();
  }
}

/**
 * Owner and group as the ids in text. OpenSSH 9.1+ answers names by id
 * (users-groups-by-id@openssh.com), but ssh2 1.17's request for it never completed against
 * OpenSSH 9.2 here, so it is not used.
 */
function ownerNames(uid: number, gid: number): { owner: string; group: string } {
  return { owner: String(uid), group: String(gid) };
}

export async function sftpStat(
  conn: SshConnection,
  path: string,
  follow: boolean,
  signal: AbortSignal,
): Promise<StatInfo> {
  const { sftp, release } = await conn.sftp(signal);
  try {
    const a = await call<Attrs>((cb) => (follow ? sftp.stat(path, cb) : sftp.lstat(path, cb)));
    const { dev: _dev, ...fields } = fromAttrs(a);
    const entry: StatInfo['entry'] = { path: Buffer.alloc(0), ...fields, depth: 0 };
    if (!follow && entry.type === 'symlink')
      entry.linkTarget = Buffer.from(await call<string>((cb) => sftp.readlink(path, cb)));
    return {
      entry,
      ...ownerNames(a.uid, a.gid),
      atimeSec: a.atime,
      atimeNsec: 0,
      ctimeSec: 0,
      ctimeNsec: 0,
      notes: [SFTP_STAT_NOTE],
    };
  } catch (err) {
    throw fleetErrorAt(err, path, errnoFromSftp(err));
  } finally {
    release();
  }
}
