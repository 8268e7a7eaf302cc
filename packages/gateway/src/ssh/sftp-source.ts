// The fallback lister for hosts without GNU find: SFTP readdir/lstat, one directory at a
// time, down to maxDepth. SFTP gives whole-second mtimes and no inode, nlink or device,
// so those are 0 (the result carries a note saying so) and one_file_system cannot apply.
import type { EntryError, RawEntry, SourceRecord, StatInfo, WalkRequest } from '@fleetls/core';
import { entryErrorFromErrno, errorRawEntry, FleetError, typeFromMode } from '@fleetls/core';
import type ssh2 from 'ssh2';
import type { SshConnection } from './connection.js';

type Sftp = ssh2.SFTPWrapper;
type Attrs = ssh2.Attributes;

function errnoOfSftp(err: unknown): string | undefined {
  const code = (err as { code?: number })?.code;
  return code === 2 ? 'ENOENT' : code === 3 ? 'EACCES' : undefined;
}

function fromAttrs(a: Attrs): Omit<RawEntry, 'name'> {
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
    nlink: 0,
    dev: 0,
  };
}

const call = <T>(f: (cb: (err: Error | undefined, v: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => f((err, v) => (err ? reject(err) : resolve(v))));

async function entryAt(sftp: Sftp, full: string, follow: boolean): Promise<Omit<RawEntry, 'name'>> {
  const l = await call<Attrs>((cb) => sftp.lstat(full, cb));
  if (typeFromMode(l.mode) !== 'symlink') return fromAttrs(l);
  const linkTarget = Buffer.from(await call<string>((cb) => sftp.readlink(full, cb)).catch(() => ''));
  if (!follow) return { ...fromAttrs(l), linkTarget };
  try {
    return { ...fromAttrs(await call<Attrs>((cb) => sftp.stat(full, cb))), linkTarget };
  } catch (err) {
    const errno = errnoOfSftp(err);
    return {
      ...fromAttrs(l),
      linkTarget,
      error: entryErrorFromErrno(errno, errno === 'ENOENT' ? 'symlink target does not exist' : undefined),
    };
  }
}

export async function sftpListing(conn: SshConnection, req: WalkRequest, signal: AbortSignal, deadlineAt: number) {
  const { sftp, release } = await conn.sftp(signal);
  const records: SourceRecord[] = [];
  const dirErrors = new Map<string, EntryError>();
  let killed = false;
  try {
    let root: RawEntry;
    try {
      // As find -H: the start path is followed.
      const st = await call<Attrs>((cb) => sftp.stat(req.path, cb));
      root = { ...fromAttrs(st), name: Buffer.alloc(0) };
    } catch (err) {
      return {
        root: errorRawEntry(Buffer.alloc(0), 'unknown', entryErrorFromErrno(errnoOfSftp(err))),
        records,
        dirErrors,
        dirSizes: undefined,
        capped: false,
        killed,
      };
    }
    const base = req.path === '/' ? '' : req.path;
    const queue: { rel: string; depth: number }[] = root.type === 'dir' ? [{ rel: '', depth: 1 }] : [];
    while (queue.length > 0) {
      if (signal.aborted) throw new FleetError('cancelled', 'cancelled');
      if (Date.now() >= deadlineAt) {
        killed = true;
        break;
      }
      const { rel, depth } = queue.shift()!;
      const dirFull = rel === '' ? req.path : `${base}/${rel}`;
      let list: ssh2.FileEntry[];
      try {
        list = await call<ssh2.FileEntry[]>((cb) => sftp.readdir(dirFull, cb as never));
      } catch (err) {
        dirErrors.set(Buffer.from(rel).toString('latin1'), entryErrorFromErrno(errnoOfSftp(err) ?? 'EIO'));
        continue;
      }
      for (const fe of list) {
        if (fe.filename === '.' || fe.filename === '..') continue;
        const relPath = rel === '' ? fe.filename : `${rel}/${fe.filename}`;
        let e: Omit<RawEntry, 'name'>;
        try {
          e = await entryAt(sftp, `${base}/${relPath}`, req.followSymlinks);
        } catch (err) {
          e = errorRawEntry(Buffer.from(fe.filename), 'unknown', entryErrorFromErrno(errnoOfSftp(err)));
        }
        records.push({ ...e, path: Buffer.from(relPath) });
        if (e.type === 'dir' && !e.error && depth < req.maxDepth) queue.push({ rel: relPath, depth: depth + 1 });
      }
    }
    return { root, records, dirErrors, dirSizes: undefined, capped: false, killed };
  } finally {
    release();
  }
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
    const atime = (a as Attrs).atime;
    return {
      entry,
      owner: String(a.uid),
      group: String(a.gid),
      atimeSec: atime,
      atimeNsec: 0,
      ctimeSec: 0,
      ctimeNsec: 0,
    };
  } catch (err) {
    const errno = errnoOfSftp(err);
    if (errno === 'ENOENT') throw new FleetError('not_found', `${path}: no such file or directory`);
    if (errno === 'EACCES') throw new FleetError('permission_denied', `${path}: permission denied`);
    throw FleetError.from(err);
  } finally {
    release();
  }
}
