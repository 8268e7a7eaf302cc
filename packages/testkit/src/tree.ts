// Declared trees for tests (fd's TestEnv): each path of the spec is made under a fresh root,
// parents first, so a test states its tree instead of writing mkdir/writeFile by hand.
import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';

/** A file's text or bytes; or a file of `size` (sparse); a directory; a symbolic link. */
export type TreeNode =
  | string
  | Buffer
  | { size: number; mtime?: number; mode?: number }
  | { dir: true; mode?: number }
  | { link: string };

/** Paths relative to the root, '/'-separated; a Buffer path for a name that is not UTF-8. */
export type TreeSpec = Record<string, TreeNode> | [string | Buffer, TreeNode][];

export interface TreeOptions {
  /** Owner of every entry made (chown after the tree is written; root only). */
  uid?: number;
  gid?: number;
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
  const made: Buffer[] = [];
  const modes: [Buffer, number][] = [];
  for (const [name, node] of entries) {
    const rel = Buffer.isBuffer(name) ? name : Buffer.from(name);
    const parent = parentOf(rel);
    if (parent) mkdirSync(at(parent), { recursive: true });
    const p = at(rel);
    if (typeof node === 'string' || Buffer.isBuffer(node)) writeFileSync(p, node);
    else if ('link' in node) symlinkSync(node.link, p);
    else if ('dir' in node) {
      mkdirSync(p, { recursive: true });
      if (node.mode !== undefined) modes.push([p, node.mode]);
    } else {
      writeFileSync(p, '');
      truncateSync(p, node.size);
      if (node.mtime !== undefined) utimesSync(p, node.mtime, node.mtime);
      if (node.mode !== undefined) modes.push([p, node.mode]);
    }
    made.push(p);
  }
  if (opts.uid !== undefined || opts.gid !== undefined) {
    const [uid, gid] = [opts.uid ?? -1, opts.gid ?? -1];
    chownSync(root, uid, gid);
    for (const p of made) {
      const rel = p.subarray(rootBytes.length);
      // Every directory on the way down, then the entry itself (a link itself, not its target).
      for (let d = parentOf(rel); d; d = parentOf(d)) chownSync(at(d), uid, gid);
      lchownSync(p, uid, gid);
    }
  }
  for (const [p, mode] of modes) chmodSync(p, mode);
  return root;
}

/** `n` entries named by `name(i)`, each `node(i)`: for wide directories in a spec. */
export function range(n: number, name: (i: number) => string, node: (i: number) => TreeNode): [string, TreeNode][] {
  return Array.from({ length: n }, (_, i) => [name(i), node(i)]);
}
