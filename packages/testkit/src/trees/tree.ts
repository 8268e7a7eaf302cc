// Declared trees for tests (fd's TestEnv): each path of the spec is made under a fresh root,
// parents first, so a test states its tree instead of writing mkdir/writeFile by hand.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lchownSync,
  linkSync,
  lutimesSync,
  mkdirSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';

/** What any entry may also set; applied once the whole tree exists, owners before modes (chown clears setuid). */
export interface EntryMeta {
  /** Seconds since the epoch, fractions allowed (also for a link itself, not its target). */
  mtime?: number;
  mode?: number;
  /** Owner, over TreeOptions' (root only). */
  uid?: number;
  gid?: number;
}

/** A file: its bytes (default none), then grown or cut to `size` (the growth is sparse). */
export interface FileNode extends EntryMeta {
  data?: string | Buffer;
  size?: number;
}

/**
 * A file's text or bytes; a described file; a directory; a symbolic link (its mode is the
 * system's); another name for an entry declared earlier in the spec; a named pipe.
 */
export type TreeNode =
  | string
  | Buffer
  | FileNode
  | ({ dir: true } & EntryMeta)
  | ({ link: string } & Omit<EntryMeta, 'mode'>)
  | { hardLink: string }
  | ({ fifo: true } & EntryMeta);

/** Paths relative to the root, '/'-separated; a Buffer path for a name that is not UTF-8. */
export type TreeSpec = Record<string, TreeNode> | [string | Buffer, TreeNode][];

export interface TreeOptions {
  /** Owner of every entry made, the root too (root only). */
  uid?: number;
  gid?: number;
  /**
   * The mtime of every entry the spec gives none, the root ('') and the directories made on
   * the way included, asked in the order they were made (for ties across a tree).
   */
  mtime?: (rel: string) => number;
}

function parentOf(rel: Buffer): Buffer | undefined {
  const slash = rel.lastIndexOf(0x2f);
  return slash > 0 ? rel.subarray(0, slash) : undefined;
}

/** Makes `spec` under `root` (created if missing) and returns `root`. Modes apply last, so a 000 directory still gets its entries. */
export function makeTree(root: string, spec: TreeSpec, opts: TreeOptions = {}): string {
  mkdirSync(root, { recursive: true });
  const rootBytes = Buffer.from(`${root}/`);
  const at = (rel: Buffer) => Buffer.concat([rootBytes, rel]);
  const entries = Array.isArray(spec) ? spec : Object.entries(spec);
  // Every entry made, directories made on the way included, in order, with what it asked for.
  const made = new Map<string, { rel: Buffer; meta: EntryMeta }>([['', { rel: Buffer.alloc(0), meta: {} }]]);
  const madeDir = (rel: Buffer) => {
    const parent = parentOf(rel);
    if (parent) madeDir(parent);
    const key = rel.toString('latin1');
    if (made.has(key)) return;
    mkdirSync(at(rel), { recursive: true });
    made.set(key, { rel, meta: {} });
  };
  for (const [name, node] of entries) {
    const rel = Buffer.isBuffer(name) ? name : Buffer.from(name);
    const parent = parentOf(rel);
    if (parent) madeDir(parent);
    const p = at(rel);
    let meta: EntryMeta = {};
    if (typeof node === 'string' || Buffer.isBuffer(node)) writeFileSync(p, node);
    else if ('link' in node) {
      symlinkSync(node.link, p);
      meta = node;
    } else if ('hardLink' in node) {
      linkSync(at(Buffer.from(node.hardLink)), p);
      continue;
    } else if ('fifo' in node) {
      execFileSync('mkfifo', [p.toString()]);
      meta = node;
    } else if ('dir' in node) {
      madeDir(rel);
      const dir = made.get(rel.toString('latin1'));
      if (dir) dir.meta = node;
      continue;
    } else {
      writeFileSync(p, node.data ?? '');
      if (node.size !== undefined) truncateSync(p, node.size);
      meta = node;
    }
    made.set(rel.toString('latin1'), { rel, meta });
  }
  const all = [...made.values()];
  for (const { rel, meta } of all) {
    const [uid, gid] = [meta.uid ?? opts.uid ?? -1, meta.gid ?? opts.gid ?? -1];
    if (uid !== -1 || gid !== -1) lchownSync(at(rel), uid, gid);
  }
  // Times after every entry exists: making an entry would move its directory's mtime again.
  for (const { rel, meta } of all) {
    const t = meta.mtime ?? opts.mtime?.(rel.toString());
    if (t !== undefined) lutimesSync(at(rel), t, t);
  }
  for (const { rel, meta } of all) if (meta.mode !== undefined) chmodSync(at(rel), meta.mode);
  return root;
}

/** `n` entries named by `name(i)`, each `node(i)`: for wide directories in a spec. */
export function range(n: number, name: (i: number) => string, node: (i: number) => TreeNode): [string, TreeNode][] {
  return Array.from({ length: n }, (_, i) => [name(i), node(i)]);
}
