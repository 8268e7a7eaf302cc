// Rendering for people: the tools' structured answers as aligned columns, an indented
// tree, stat blocks and a host table, with human sizes and optional colour. Pure: the
// caller decides where lines go and whether colour is on. In tools/shared/, below the faces:
// each tool's CLI face (its `cli.render`) renders with it.
import { humanSize, renderAligned, type TableRow } from '@fleetls/core';
import type { HostRow } from '../list-hosts/row.js';

export interface HostStatusRow {
  host: string;
  status: string;
  via: string;
  elapsed_ms: number;
  message?: string;
}

export interface Style {
  dir(s: string): string;
  link(s: string): string;
  error(s: string): string;
  warn(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const sgr = (code: string) => (s: string) => (s === '' ? s : `\x1b[${code}m${s}\x1b[0m`);
const plain = (s: string) => s;

export const NO_STYLE: Style = { dir: plain, link: plain, error: plain, warn: plain, dim: plain, bold: plain };
export const ANSI_STYLE: Style = {
  dir: sgr('1;34'),
  link: sgr('36'),
  error: sgr('31'),
  warn: sgr('33'),
  dim: sgr('2'),
  bold: sgr('1'),
};

/** Colour only on a terminal, and never when NO_COLOR is set (to anything non-empty). */
export function pickStyle(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): Style {
  return isTTY && !env.NO_COLOR ? ANSI_STYLE : NO_STYLE;
}

/** "2023-11-15T03:58:21+05:45" → "2023-11-15 03:58" (the host's own clock, as ls shows it). */
export function shortTime(iso: string | undefined): string {
  if (!iso) return '';
  const m = /^(\d{4,}-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

const isDir = (type: string) => type === 'dir' || type === 'directory';

function colourName(name: string, type: string, style: Style): string {
  if (isDir(type)) return style.dir(name);
  if (type === 'symlink') return style.link(name);
  return name;
}

/**
 * A directory that could not be read comes twice from a walk: its entry, then its error row
 * (same host and path). People read it once, the entry with its error (`sub/ [DENIED] …`).
 */
export function foldErrors<T extends { host: string; path: string; error?: { code: string; detail: string } }>(
  items: readonly T[],
): T[] {
  const at = new Map<string, number>();
  const out: T[] = [];
  for (const it of items) {
    const key = `${it.host}\0${it.path}`;
    const seen = at.get(key);
    if (it.error && seen !== undefined && !out[seen].error) {
      out[seen] = { ...out[seen], error: it.error };
      continue;
    }
    at.set(key, out.length);
    out.push(it);
  }
  return out;
}

/** A row says a path could not be listed (a pruned one was left out by policy: not a failure). */
export function pathFailed(items: readonly { error?: { code: string } }[]): boolean {
  return items.some((it) => it.error !== undefined && it.error.code !== 'PRUNED');
}

// ---- ls ----

export interface FileItem {
  host: string;
  path: string;
  name: string;
  type: string;
  size: number;
  modified: string;
  link_target?: string;
  error?: { code: string; detail: string };
}

/** list_files items as aligned columns: type, size, modified, [host], path (-> target). */
export function formatFileTable(given: readonly FileItem[], opts: { showHost: boolean; style: Style }): string[] {
  if (given.length === 0) return [];
  const items = foldErrors(given);
  const columns = ['type', 'size', 'modified', ...(opts.showHost ? ['host'] : []), 'path'];
  const rows: TableRow[] = items.map((it) => ({
    type: it.type,
    size: humanSize(it.size),
    modified: shortTime(it.modified),
    host: it.host,
    path: it.path,
  }));
  const lines = renderAligned(columns, rows, {
    right: ['size'],
    headers: { type: 'TYPE', size: 'SIZE', modified: 'MODIFIED', host: 'HOST', path: 'PATH' },
  });
  // Colour is applied after alignment so escape codes do not skew the widths.
  return lines.map((line, i) => {
    if (i === 0) return opts.style.bold(line);
    const it = items[i - 1];
    const at = line.length - it.path.length;
    let out = line.slice(0, at) + colourName(it.path, it.type, opts.style);
    if (it.link_target !== undefined) out += ` -> ${it.link_target}`;
    if (it.error) out += ` ${opts.style.error(`[${it.error.code}] ${it.error.detail}`)}`;
    return out;
  });
}

// ---- tree ----

export interface TreeItem {
  host: string;
  path: string;
  type: string;
  size?: number;
  link_target?: string;
  error?: { code: string; detail: string };
  hidden?: { shown: number; total: number };
}

function depthOf(path: string): number {
  if (path === '' || path === '.') return 0;
  let n = 1;
  for (const c of path) if (c === '/') n++;
  return n;
}

function baseOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

/**
 * list_directory entries (depth-first, each directory's children in order) as a tree
 * drawn with box characters under `root`, one block per host. A `hidden` marker becomes
 * a "… N more" line among that directory's children.
 */
export function formatTree(
  entries: readonly TreeItem[],
  opts: { root: string; showHost: boolean; style: Style },
): string[] {
  const byHost = new Map<string, TreeItem[]>();
  for (const e of foldErrors(entries)) {
    const list = byHost.get(e.host);
    if (list) list.push(e);
    else byHost.set(e.host, [e]);
  }
  const lines: string[] = [];
  for (const [host, list] of byHost) {
    lines.push(opts.style.bold(opts.showHost ? `${host}:${opts.root}` : opts.root));
    lines.push(...treeLines(list, opts.style));
  }
  return lines;
}

interface Node {
  depth: number;
  text: string;
}

function treeLines(list: readonly TreeItem[], style: Style): string[] {
  const nodes: Node[] = [];
  for (const e of list) {
    const depth = depthOf(e.path);
    if (e.hidden) {
      const more = e.hidden.total - e.hidden.shown;
      nodes.push({
        depth: depth + 1,
        text: style.warn(`… ${more} more (showing ${e.hidden.shown} of ${e.hidden.total})`),
      });
      continue;
    }
    if (depth === 0) {
      // The requested path itself appears only when it could not be listed.
      if (e.error) nodes.push({ depth: 1, text: style.error(`[${e.error.code}] ${e.error.detail}`) });
      continue;
    }
    let text = colourName(baseOf(e.path), e.type, style);
    if (isDir(e.type)) text += style.dir('/');
    if (e.link_target !== undefined) text += ` -> ${e.link_target}`;
    if (e.size !== undefined && !isDir(e.type) && !e.error) text += style.dim(`  ${humanSize(e.size)}`);
    if (e.error) text += ` ${style.error(`[${e.error.code}] ${e.error.detail}`)}`;
    nodes.push({ depth, text });
  }
  // Backwards: a node is its parent's last child when no later sibling comes before a shallower node.
  const last: boolean[] = new Array(nodes.length);
  const laterSibling: boolean[] = [];
  for (let i = nodes.length - 1; i >= 0; i--) {
    const d = nodes[i].depth;
    last[i] = !laterSibling[d];
    laterSibling[d] = true;
    laterSibling.length = d + 1;
  }
  const open: boolean[] = []; // open[d]: the ancestor at depth d has siblings still to come
  return nodes.map((n, i) => {
    let prefix = '';
    for (let d = 1; d < n.depth; d++) prefix += open[d] ? '│   ' : '    ';
    open[n.depth] = !last[i];
    return `${prefix}${last[i] ? '└── ' : '├── '}${n.text}`;
  });
}

// ---- stat ----

export interface StatItem {
  host: string;
  path: string;
  type: string;
  size: number;
  mode: string;
  permissions: string;
  owner: string;
  group: string;
  uid: number;
  gid: number;
  modified: string;
  accessed: string;
  changed: string;
  inode: number;
  nlink: number;
  link_target?: string;
}

export function formatStat(results: readonly StatItem[], opts: { showHost: boolean; style: Style }): string[] {
  const lines: string[] = [];
  for (const r of results) {
    if (lines.length > 0) lines.push('');
    lines.push(opts.style.bold(opts.showHost ? `${r.host}:${r.path}` : r.path));
    const size = r.size < 1024 ? `${r.size} B` : `${humanSize(r.size)} (${r.size} bytes)`;
    const rows: [string, string][] = [
      ['type', r.type],
      ['size', size],
      ['mode', `${r.mode} (${r.permissions})`],
      ['owner', `${r.owner} (${r.uid})`],
      ['group', `${r.group} (${r.gid})`],
      ['modified', r.modified],
      ['accessed', r.accessed],
      ['changed', r.changed],
      ['inode', String(r.inode)],
      ['links', String(r.nlink)],
    ];
    if (r.link_target !== undefined) rows.push(['target', r.link_target]);
    for (const [k, v] of rows) lines.push(`  ${k.padEnd(9)}${v}`);
  }
  return lines;
}

// ---- hosts ----

export function formatHosts(hosts: readonly HostRow[], opts: { checked: boolean; style: Style }): string[] {
  const columns = ['host', 'transport', 'address', 'labels', 'groups'];
  // CERT: days until the agent's TLS certificate expires (mTLS agents).
  if (opts.checked) columns.push('status', 'via', 'version', 'cert', 'elapsed');
  const rows: TableRow[] = hosts.map((h) => ({
    host: h.host,
    // `|ssh`: falls back to find over SSH (`agent+ssh` is the agent reached through SSH).
    transport: h.ssh_fallback ? `${h.transport}|ssh` : h.transport,
    address: h.address,
    labels: Object.entries(h.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    groups: h.groups.join(','),
    status: h.status ?? '',
    via: h.via ?? '',
    version: h.version ?? '',
    cert: h.cert_expires_in_days === undefined ? '' : `${h.cert_expires_in_days} d`,
    elapsed: h.elapsed_ms === undefined ? '' : `${h.elapsed_ms} ms`,
  }));
  const headers = Object.fromEntries(columns.map((c) => [c, c.toUpperCase()]));
  const lines = renderAligned(columns, rows, { headers, right: ['elapsed'] });
  const out = lines.map((l, i) => (i === 0 ? opts.style.bold(l) : l));
  // A failed check's message is the CLI's failure line on stderr (formatFailures), once.
  return out;
}

// ---- status rows ----

/** One line per host that did not answer ok; for stderr. */
export function formatFailures(hosts: readonly HostStatusRow[], style: Style): string[] {
  return hosts
    .filter((h) => h.status !== 'ok')
    .map((h) =>
      style.error(
        `fleetls: ${h.host}: ${h.status} via ${VIA_WORDS[h.via] ?? h.via} after ${h.elapsed_ms} ms${h.message ? `: ${h.message}` : ''}`,
      ),
    );
}

/** How a host was reached, in a person's words where the transport's name is jargon (issue 40, item 13). */
const VIA_WORDS: Record<string, string> = { embedded: "the gateway's own agent" };

const BAR = 20;

/** The live progress line: "[######--------------] 3/10 hosts answered (web-2: unreachable)". */
export function progressLine(done: number, total: number, last?: { host: string; status: string }): string {
  const filled = total > 0 ? Math.min(BAR, Math.round((BAR * done) / total)) : BAR;
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}]`;
  return `${bar} ${done}/${total} hosts answered${last ? ` (${last.host}: ${last.status})` : ''}`;
}
