// Stat of one path: the Entry fields plus owner/group names, atime and ctime.
// Owner and group names come from /etc/passwd and /etc/group (read once, cached);
// an id with no name is shown as its number.
import * as fs from 'node:fs';
import type { StatInfo } from '@fleetls/core';
import { atFd, closeFdAsync, fdPath, openParentAsync } from '../fs/beneath.js';
import { rawFromStats, secAndNsec } from '../fs/raw-stats.js';
import { bounded, defaultFsGuard, type FsGuard } from '../walk/bounded-call.js';

let users: Map<number, string> | undefined;
let groups: Map<number, string> | undefined;

function readIdFile(file: string): Map<number, string> {
  const m = new Map<number, string>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return m;
  }
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const f = line.split(':');
    const id = Number(f[2]);
    if (f[0] && Number.isInteger(id) && !m.has(id)) m.set(id, f[0]);
  }
  return m;
}

export function userName(uid: number): string {
  users ??= readIdFile('/etc/passwd');
  return users.get(uid) ?? String(uid);
}

export function groupName(gid: number): string {
  groups ??= readIdFile('/etc/group');
  return groups.get(gid) ?? String(gid);
}

/**
 * Throws the fs error (ENOENT, EACCES...) for the caller to map; deadline_exceeded on a hung
 * mount. `path` is real and checked inside the allowed roots (policy.ts), its last component
 * unresolved unless following: it is reached by descriptor (beneath.ts), its parent opened
 * from `/` without following a symlink, so what is described is what is at that path.
 */
export async function statPath(
  path: string,
  followSymlinks: boolean,
  guard: FsGuard = defaultFsGuard(),
): Promise<StatInfo> {
  const { st, linkTarget } = await bounded(path, guard, async () => {
    const { parentFd, name } = await openParentAsync(Buffer.from(path));
    try {
      // `/` itself: its descriptor's magic link, followed, is `/`.
      const at = name.length === 0 ? fdPath(parentFd) : atFd(parentFd, name);
      const st = await fs.promises.lstat(at, { bigint: true });
      if (st.isSymbolicLink() && followSymlinks) {
        // Resolved to its target before: a symlink here was swapped in since.
        throw Object.assign(new Error(`${path}: changed into a symlink while it was resolved`), { code: 'ELOOP' });
      }
      return {
        st,
        linkTarget: st.isSymbolicLink() ? await fs.promises.readlink(at, { encoding: 'buffer' }) : undefined,
      };
    } finally {
      await closeFdAsync(parentFd);
    }
  });
  const [atimeSec, atimeNsec] = secAndNsec(st.atimeNs);
  const [ctimeSec, ctimeNsec] = secAndNsec(st.ctimeNs);
  // The walk's own reading of an lstat, so a Stat and a walk's row of one path say the same.
  const { name: _name, dev: _dev, ...fields } = rawFromStats(Buffer.alloc(0), st);
  // The path itself: empty, as the contract says of the requested path.
  const entry: StatInfo['entry'] = { path: Buffer.alloc(0), ...fields, depth: 0 };
  if (linkTarget) entry.linkTarget = linkTarget;
  return { entry, owner: userName(entry.uid), group: groupName(entry.gid), atimeSec, atimeNsec, ctimeSec, ctimeNsec };
}
