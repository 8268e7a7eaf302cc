// The process-local ScanStore (the interface is fleet/page-store.ts's, beside PageStore: the seam a
// JetStream store plugs into, issue 20). It keeps up to `memoryRows` rows in memory over all
// scans and spills the rest, one file per host result, under the gateway's state directory; a
// spilled result is read back for its page. Without a state directory it keeps no more than
// `memoryRows`: a result past them is refused.
//
// The state directory may sit where other users write (FLEETLS_STATE_DIR under /tmp), so nothing
// under it is trusted by name (issue 35, F4): scans/ and this process's directory are made 0700
// and checked (a directory, not a symlink, ours, writable by no one else) on the descriptor
// they were opened by, and every spill file is reached through that descriptor
// (/proc/self/fd/N/NAME: Node has no openat) with O_NOFOLLOW, created with O_EXCL.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ScanStore } from '../fleet/page-store.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** The path of `name` inside the directory open as `fd`, resolved through the descriptor. */
const under = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;

/**
 * Opens `path` as a directory (never through a symlink at its last component) and checks it is
 * this user's and writable by no other: what a spill file may be created in.
 */
function openOwnDir(path: string, shown: string): number {
  let fd: number;
  try {
    fd = openSync(path, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ELOOP' || code === 'ENOTDIR' ? 'is a symlink or not a directory' : (err as Error).message;
    throw new Error(`scan state directory ${shown}: ${why}; refusing to spill there`);
  }
  const st = fstatSync(fd);
  const uid = process.getuid?.();
  const why =
    uid !== undefined && st.uid !== uid
      ? `is owned by uid ${st.uid}, not this process's ${uid}`
      : (st.mode & 0o022) !== 0
        ? `is writable by others (mode ${(st.mode & 0o7777).toString(8)})`
        : undefined;
  if (why) {
    closeSync(fd);
    throw new Error(`scan state directory ${shown} ${why}; refusing to spill there`);
  }
  return fd;
}

/** mkdir 0700, an existing one accepted (openOwnDir checks it next). */
function makeDir(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * `stateDir`/scans/<pid>-<random>, made and checked; its descriptor and its parent's. The state
 * directory itself is the operator's (made 0700 when missing, then held to the same checks).
 */
function openSpillDir(stateDir: string): { scans: number; own: number; name: string } {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const state = openOwnDir(stateDir, stateDir);
  try {
    makeDir(under(state, 'scans'));
    const scans = openOwnDir(under(state, 'scans'), `${stateDir}/scans`);
    const name = `${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      // Exclusive: a directory of this name planted beforehand is refused, never reused.
      mkdirSync(under(scans, name), { mode: 0o700 });
      return { scans, own: openOwnDir(under(scans, name), `${stateDir}/scans/${name}`), name };
    } catch (err) {
      closeSync(scans);
      throw err;
    }
  } finally {
    closeSync(state);
  }
}

/** JSON with Buffers (entry paths are raw bytes) as `{"$b": base64}`. */
function serialize(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const raw = this[key];
    return Buffer.isBuffer(raw) ? { $b: raw.toString('base64') } : v;
  });
}

function deserialize(text: string): unknown {
  return JSON.parse(text, (_k, v) =>
    v !== null && typeof v === 'object' && typeof (v as { $b?: unknown }).$b === 'string' && Object.keys(v).length === 1
      ? Buffer.from((v as { $b: string }).$b, 'base64')
      : v,
  );
}

interface Kept {
  value?: unknown;
  rows: number;
  /** The spill file's write (its name in the spill directory), when the value went to a file. */
  written?: Promise<string>;
}

export class LocalScanStore implements ScanStore {
  private readonly kept = new Map<string, Map<number, Kept>>();
  private rowsInMemory = 0;
  private spills = 0;
  /** The spill directory once made (or why it could not be): a descriptor, closed by close(). */
  private dir?: { scans: number; own: number; name: string } | Error;

  /** `stateDir`: the spill files go under its scans/, in a directory of this process's own (made when first needed, removed on close). */
  constructor(
    private readonly memoryRows_: number,
    private readonly stateDir: string | undefined,
  ) {}

  get memoryRows(): number {
    return this.rowsInMemory;
  }

  get spilled(): number {
    return this.spills;
  }

  put(scan: string, host: number, value: unknown, rows: number): boolean {
    const fits = this.rowsInMemory + rows <= this.memoryRows_;
    const stateDir = this.stateDir;
    // Without a state directory the bound is the bound: a result past it is not kept at all
    // (its host says so), so scans nobody pages cannot grow the gateway without end.
    if (!fits && stateDir === undefined) return false;
    let m = this.kept.get(scan);
    if (!m) {
      m = new Map();
      this.kept.set(scan, m);
    }
    if (fits || stateDir === undefined) {
      this.rowsInMemory += rows;
      m.set(host, { value, rows });
      return true;
    }
    if (this.dir === undefined) {
      try {
        this.dir = openSpillDir(stateDir);
      } catch (err) {
        this.dir = err as Error;
      }
    }
    this.spills++;
    const written = this.write(this.dir, `${scan}-${host}.json`, serialize(value));
    // A failed write surfaces when the page reads it back; nothing is thrown here.
    written.catch(() => {});
    m.set(host, { rows, written });
    return true;
  }

  private async write(dir: { own: number } | Error, name: string, text: string): Promise<string> {
    if (dir instanceof Error) throw dir;
    const fh = await open(under(dir.own, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      await fh.writeFile(text);
    } finally {
      await fh.close();
    }
    return name;
  }

  async get(scan: string, host: number): Promise<unknown> {
    const k = this.kept.get(scan)?.get(host);
    if (!k) return undefined;
    if (!k.written) return k.value;
    const name = await k.written;
    const dir = this.dir as { own: number };
    const fh = await open(under(dir.own, name), O_RDONLY | O_NOFOLLOW);
    try {
      return deserialize(await fh.readFile('utf8'));
    } finally {
      await fh.close();
    }
  }

  take(scan: string, host: number): void {
    const m = this.kept.get(scan);
    const k = m?.get(host);
    if (!m || !k) return;
    m.delete(host);
    this.release(k);
  }

  drop(scan: string): void {
    const m = this.kept.get(scan);
    if (!m) return;
    this.kept.delete(scan);
    for (const k of m.values()) this.release(k);
  }

  private release(k: Kept): void {
    if (k.written) void k.written.then((name) => this.unlink(name)).catch(() => {});
    else this.rowsInMemory -= k.rows;
  }

  private unlink(name: string): void {
    if (this.dir === undefined || this.dir instanceof Error || this.dir.own < 0) return;
    unlinkSync(under(this.dir.own, name));
  }

  close(): void {
    for (const id of [...this.kept.keys()]) this.drop(id);
    const dir = this.dir;
    if (dir === undefined || dir instanceof Error || dir.own < 0) return;
    // Every spill file goes with the directory (a write still in flight ends in a failed page).
    try {
      for (const name of readdirSync(under(dir.own, ''))) unlinkSync(under(dir.own, name));
      rmdirSync(under(dir.scans, dir.name));
    } catch {
      // best effort, as rm -rf: what is left is this process's own, 0700
    } finally {
      closeSync(dir.own);
      closeSync(dir.scans);
      dir.own = -1;
    }
  }
}
