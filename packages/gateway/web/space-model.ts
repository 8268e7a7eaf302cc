// disk_usage's rows as a tree a treemap draws: directories by relative path, each with its
// recursive size (summed over hosts, or one host's), the per-host values, and whether it is
// only a lower bound. Used by the dashboard and by the in-chat MCP App alike.

export interface DuItem {
  host: string;
  /** Relative to the asked path, '/'-separated, as the text answers show it. */
  path: string;
  size: number;
  partial: boolean;
}
export interface DuTotalItem {
  host: string;
  size: number;
  partial: boolean;
}

export interface SpaceNode {
  name: string;
  /** Relative path ('' for the asked path). */
  path: string;
  size: number;
  partial: boolean;
  perHost: { host: string; size: number; partial: boolean }[];
  children: SpaceNode[];
  /** What the listed subdirectories leave: files, and directories below the top N. */
  rest?: boolean;
}

function node(name: string, path: string): SpaceNode {
  return { name, path, size: 0, partial: false, perHost: [], children: [] };
}

/** `host` = one host's tree; undefined = all hosts merged (sizes summed, per host kept). */
export function spaceTree(items: DuItem[], totals: DuTotalItem[], host?: string): SpaceNode {
  const keep = <T extends { host: string }>(xs: T[]) => (host === undefined ? xs : xs.filter((x) => x.host === host));
  const root = node('', '');
  for (const t of keep(totals)) {
    root.size += t.size;
    root.partial ||= t.partial;
    root.perHost.push({ host: t.host, size: t.size, partial: t.partial });
  }
  const byPath = new Map<string, SpaceNode>([['', root]]);
  const get = (path: string): SpaceNode => {
    let n = byPath.get(path);
    if (n) return n;
    const slash = path.lastIndexOf('/');
    const parent = get(slash < 0 ? '' : path.slice(0, slash));
    n = node(slash < 0 ? path : path.slice(slash + 1), path);
    parent.children.push(n);
    byPath.set(path, n);
    return n;
  };
  // Shallow paths first, so a parent exists before its children.
  const rows = keep(items).sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const r of rows) {
    const n = get(r.path);
    n.size += r.size;
    n.partial ||= r.partial;
    n.perHost.push({ host: r.host, size: r.size, partial: r.partial });
  }
  const finish = (n: SpaceNode) => {
    n.perHost.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
    n.children.sort((a, b) => b.size - a.size || (a.name < b.name ? -1 : 1));
    for (const c of n.children) finish(c);
    const listed = n.children.reduce((s, c) => s + c.size, 0);
    if (n.size < listed) n.size = listed;
    if (n.children.length > 0 && n.size > listed) {
      const rest = node('(files and smaller directories)', n.path);
      rest.size = n.size - listed;
      rest.rest = true;
      n.children.push(rest);
    }
  };
  finish(root);
  return root;
}

/** The node at a relative path below root, or root. */
export function nodeAt(root: SpaceNode, path: string): SpaceNode {
  if (!path) return root;
  let n = root;
  for (const part of path.split('/')) {
    const next = n.children.find((c) => !c.rest && c.name === part);
    if (!next) return n;
    n = next;
  }
  return n;
}
