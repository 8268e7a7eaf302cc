// Browse: a directory of one host or a selector as a table (name, type, size, modified, owner,
// mode), sortable by each column, directories open on click, breadcrumbs above; a row per
// host that failed, each directory's cap and each walk's cut as the answer words them, and
// "Load more" while the answer hands back a next_cursor. State: ?view=browse&host&path&depth&sort&order.
// Over several hosts a name is one row with the hosts it is on (as a merged view of the
// fleet: 13 names on 3 hosts are 13 rows, not 39), each column its one value or `differs`;
// the row expands into a row per host. Owners are names, as ls -l shows them (owners.ts).
import type { ViewContext } from './context.js';
import { query } from './context.js';
import { fill, h } from './dom.js';
import * as fmt from './format.js';
import { type OwnedEntry, OwnerNames } from './owners.js';
import { callAndFollow, type ScanPageLike } from './scan-panel.js';
import { targetForm } from './target-form.js';
import { breadcrumbs, childPath } from './url-paths.js';

interface JsonTruncation {
  dir?: string;
  shown?: string;
  total?: string;
  reason?: string;
}
interface TreeAnswer extends ScanPageLike {
  rows?: { host: string; row: { entry?: fmt.JsonEntry; truncation?: JsonTruncation } }[];
  hosts?: fmt.JsonStatus[];
  nextCursor?: string;
  truncations?: { host: string; truncation: JsonTruncation }[];
  notes?: { host: string; note: string }[];
}

type Column = 'name' | 'type' | 'size' | 'modified' | 'owner' | 'mode';
const COLUMNS: Column[] = ['name', 'type', 'size', 'modified', 'owner', 'mode'];

interface Item {
  host: string;
  entry: fmt.JsonEntry;
  name: string;
  seq: number;
}

const reasonText = (r: string | undefined) => (r ?? '').replace('TRUNCATION_REASON_', '').toLowerCase();

/** Path order over several hosts' rows (component by component, case-folded, as the answers order names). */
function pathOrder(a: Item, b: Item): number {
  const x = a.name.split('/');
  const y = b.name.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i] as string;
    const q = y[i] as string;
    if (p === q) continue;
    const f = p.toLowerCase() < q.toLowerCase() ? -1 : p.toLowerCase() > q.toLowerCase() ? 1 : 0;
    return f || (p < q ? -1 : 1);
  }
  return x.length - y.length;
}

function compare(col: Column, a: Item, b: Item, multi = false): number {
  switch (col) {
    case 'size':
      return Number(a.entry.size ?? 0) - Number(b.entry.size ?? 0);
    case 'modified':
      return Number(a.entry.mtimeSec ?? 0) - Number(b.entry.mtimeSec ?? 0);
    case 'type':
      return fmt.kindOf(a.entry.type).localeCompare(fmt.kindOf(b.entry.type));
    case 'owner':
      return (a.entry.uid ?? 0) - (b.entry.uid ?? 0) || (a.entry.gid ?? 0) - (b.entry.gid ?? 0);
    case 'mode':
      return (a.entry.mode ?? 0) - (b.entry.mode ?? 0);
    default:
      // One host: the answer's own order (names as bytes, case-folded; tree order), the sequence
      // it came in. Several: their names merged in that order, so a name on one host alone
      // stands where it belongs, not after every name of the hosts that answered first.
      return multi ? pathOrder(a, b) : a.seq - b.seq;
  }
}

/** The view's URL state: what it lists and how it sorts. */
interface BrowseState {
  host: string;
  path: string;
  depth: number;
  sort: Column;
  order: 'asc' | 'desc';
  /** Several hosts: a host column. */
  multi: boolean;
  /** A link to this view with some of its state changed. */
  link(over: Record<string, string | undefined>): string;
  /** The state as it goes in the URL (defaults left out). */
  url: Record<string, string | undefined>;
}

function browseState(params: URLSearchParams): BrowseState {
  const host = params.get('host') ?? 'all';
  const path = params.get('path') ?? '/';
  const depth = Math.min(3, Math.max(1, Number(params.get('depth') ?? 1) || 1));
  const sort = (COLUMNS.includes(params.get('sort') as Column) ? params.get('sort') : 'name') as Column;
  const order = params.get('order') === 'desc' ? 'desc' : 'asc';
  const url = {
    view: 'browse',
    host,
    path,
    depth: depth === 1 ? undefined : String(depth),
    sort: sort === 'name' ? undefined : sort,
    order: order === 'asc' ? undefined : order,
  };
  const multi =
    host.includes(',') || host.includes('*') || host.startsWith('@') || host.startsWith('label:') || host === 'all';
  return { host, path, depth, sort, order, multi, url, link: (over) => query({ ...url, ...over }) };
}

/** The column headers: each a link that sorts by it (again: the other way). */
function browseHead(st: BrowseState): HTMLTableRowElement {
  return h(
    'tr',
    {},
    st.multi ? h('th', { scope: 'col' }, 'hosts') : undefined,
    ...COLUMNS.map((c) => {
      const active = c === st.sort;
      // Size and time start with the largest and newest, as ncdu and file managers do; a
      // second click turns the order.
      const first = c === 'size' || c === 'modified' ? 'desc' : 'asc';
      const next = active ? (st.order === 'asc' ? 'desc' : 'asc') : first;
      return h(
        'th',
        {
          scope: 'col',
          class: c === 'size' ? 'num' : undefined,
          'aria-sort': active ? (st.order === 'asc' ? 'ascending' : 'descending') : undefined,
        },
        h(
          'a',
          {
            href: st.link({
              sort: c === 'name' && next === 'asc' ? undefined : c,
              order: next === 'asc' ? undefined : 'desc',
            }),
            'data-sort': c,
            title: `Sort by ${c}`,
          },
          c,
          active ? (st.order === 'asc' ? ' ▲' : ' ▼') : '',
        ),
      );
    }),
  );
}

/** The elements the view fills as pages arrive. */
interface BrowseParts {
  notices: HTMLElement;
  scanMount: HTMLElement;
  body: HTMLTableSectionElement;
  more: HTMLButtonElement;
  count: HTMLElement;
}

function renderBrowse(section: HTMLElement, ctx: ViewContext, st: BrowseState): BrowseParts {
  const depthSelect = h(
    'select',
    { id: 'browse-depth' },
    ...[1, 2, 3].map((d) =>
      h('option', { value: d, selected: d === st.depth }, d === 1 ? '1 (this directory)' : String(d)),
    ),
  );
  const parts = {
    notices: h('div', { id: 'browse-notices' }),
    scanMount: h('div', {}),
    body: h('tbody'),
    more: h('button', { type: 'button', id: 'load-more', hidden: true }, 'Load more'),
    count: h('p', { id: 'browse-count', class: 'muted', role: 'status' }),
  };
  const form = { id: 'browse', state: st.url, host: st.host, path: st.path, depth: depthSelect };
  fill(
    section,
    h('h1', { id: 'h-browse' }, 'Browse'),
    targetForm(ctx, { ...form, defaultDepth: '1', submit: 'List' }),
    breadcrumbs(st.path, (to) => st.link({ path: to })),
    parts.scanMount,
    parts.notices,
    // A narrow screen scrolls the table in its box rather than cutting it.
    h('div', { class: 'scroll' }, h('table', { id: 'listing' }, h('thead', {}, browseHead(st)), parts.body)),
    h('div', { class: 'row' }, parts.more, parts.count),
  );
  return parts;
}

/** What the pages brought so far. */
interface Listing {
  items: Item[];
  failed: Map<string, fmt.JsonStatus>;
  seq: number;
  /** The tool's own next_cursor ("Load more"). */
  cursor: string | undefined;
  /** A scan's pages are being followed. */
  following: boolean;
  owners: OwnerNames;
  /** Names whose row shows a row per host. */
  expanded: Set<string>;
}

function failedRow(st: BrowseState, status: fmt.JsonStatus): HTMLTableRowElement {
  const why = status.message ? ` — ${status.message}` : status.status === 'pending' ? ' — listed on a later page' : '';
  return h(
    'tr',
    { class: status.status === 'pending' ? 'capped' : 'failed', 'data-host-status': status.status },
    h('td', { colspan: COLUMNS.length + (st.multi ? 1 : 0) }, `${status.host}: ${status.status}`, why),
  );
}

/** The cells' text of an entry, as each column shows it (a merged row compares these). */
function cellTexts(item: Item, owners: OwnerNames): Record<Exclude<Column, 'name'>, string> {
  const e = item.entry;
  return {
    type: fmt.kindOf(e.type),
    size: fmt.sizeText(e),
    modified: fmt.mtimeText(e),
    owner: owners.text(item.host, e.uid ?? 0, e.gid ?? 0),
    mode: fmt.modeText(e),
  };
}

function entryRow(st: BrowseState, item: Item, owners: OwnerNames, sub = false): HTMLTableRowElement {
  const e = item.entry;
  const kind = fmt.kindOf(e.type);
  if (e.error) {
    return h(
      'tr',
      { class: 'failed' },
      st.multi ? h('td', {}, item.host) : undefined,
      h('td', { class: 'name' }, item.name || st.path),
      h('td', { colspan: COLUMNS.length - 1 }, fmt.errorText(e.error)),
    );
  }
  const to = kind === 'dir' ? childPath(st.path, e.path) : undefined;
  const shown = kind === 'symlink' ? `${item.name} → ${fmt.nameText(e.linkTarget)}` : item.name;
  const texts = cellTexts(item, owners);
  return h(
    'tr',
    sub
      ? { class: 'sub', 'data-sub': item.name, 'data-host': item.host }
      : { 'data-name': item.name, 'data-kind': kind },
    st.multi ? h('td', {}, item.host) : undefined,
    h('td', { class: 'name' }, to ? h('a', { href: st.link({ path: to }) }, `${item.name}/`) : shown),
    h('td', {}, texts.type),
    h('td', { class: 'num', title: `${e.size ?? 0} bytes`, 'data-bytes': e.size ?? '0' }, texts.size),
    h('td', { class: 'mono when' }, texts.modified),
    h('td', { class: 'mono', title: fmt.idsText(e) }, texts.owner),
    h('td', { class: 'mono' }, texts.mode),
  );
}

/** The hosts a merged row is on: named when few, else counted. */
function hostsText(members: Item[], listed: number): string {
  if (members.length === listed && listed > 3) return `all ${listed}`;
  return members.length <= 3 ? members.map((m) => m.host).join(', ') : `${members.length} of ${listed}`;
}

/**
 * One row for a name on several hosts: each column its value when every host agrees, else
 * `differs` (each host's value in its title); the hosts cell opens a row per host.
 */
function mergedRow(
  st: BrowseState,
  members: Item[],
  listing: Listing,
  listed: number,
  redraw: () => void,
): HTMLTableRowElement {
  const first = members[0] as Item;
  const texts = members.map((m) => cellTexts(m, listing.owners));
  const cols = ['type', 'size', 'modified', 'owner', 'mode'] as const;
  const differs = cols.filter((c) => texts.some((t) => t[c] !== texts[0]?.[c]));
  const open = listing.expanded.has(first.name);
  const cell = (c: (typeof cols)[number]) => {
    const cls = { type: '', size: 'num', modified: 'mono when', owner: 'mono', mode: 'mono' }[c];
    if (!differs.includes(c)) return h('td', { class: cls || undefined }, texts[0]?.[c] ?? '');
    const each = members.map((m, i) => `${m.host}: ${texts[i]?.[c]}`).join('\n');
    return h('td', { class: `${cls} differs`.trim(), title: each, 'data-differs': c }, 'differs');
  };
  const kind = fmt.kindOf(first.entry.type);
  const to = kind === 'dir' && !differs.includes('type') ? childPath(st.path, first.entry.path) : undefined;
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'link',
      'aria-expanded': open ? 'true' : 'false',
      title: open ? 'Hide the row of each host' : 'Show a row for each host',
      onclick: () => {
        if (listing.expanded.has(first.name)) listing.expanded.delete(first.name);
        else listing.expanded.add(first.name);
        redraw();
      },
    },
    `${open ? '▾' : '▸'} ${hostsText(members, listed)}`,
  );
  return h(
    'tr',
    {
      class: 'merged',
      'data-name': first.name,
      'data-kind': kind,
      'data-hosts': members.map((m) => m.host).join(','),
      'data-differs': differs.join(',') || undefined,
    },
    h('td', {}, toggle),
    h('td', { class: 'name' }, to ? h('a', { href: st.link({ path: to }) }, `${first.name}/`) : first.name),
    ...cols.map(cell),
  );
}

/** The rows of a listing over several hosts: a name once, its hosts' rows under it when opened. */
function multiRows(st: BrowseState, sorted: Item[], listing: Listing, redraw: () => void): HTMLTableRowElement[] {
  const groups = new Map<string, Item[]>();
  for (const it of sorted) {
    // An entry a host could not read stays that host's own row.
    const k = it.entry.error ? `\u0000${it.seq}` : it.name;
    const g = groups.get(k);
    if (g) g.push(it);
    else groups.set(k, [it]);
  }
  const listed = new Set(listing.items.map((i) => i.host)).size;
  const rows: HTMLTableRowElement[] = [];
  for (const members of groups.values()) {
    if (members.length === 1) {
      rows.push(entryRow(st, members[0] as Item, listing.owners));
      continue;
    }
    rows.push(mergedRow(st, members, listing, listed, redraw));
    if (listing.expanded.has((members[0] as Item).name))
      for (const m of members) rows.push(entryRow(st, m, listing.owners, true));
  }
  return rows;
}

/** What the owner names are asked from: every entry with its host, path and ids. */
function owned(st: BrowseState, items: Item[]): OwnedEntry[] {
  return items
    .filter((i) => !i.entry.error)
    .map((i) => ({
      host: i.host,
      path: childPath(st.path, i.entry.path),
      uid: i.entry.uid ?? 0,
      gid: i.entry.gid ?? 0,
      link: fmt.kindOf(i.entry.type) === 'symlink',
    }));
}

function drawListing(st: BrowseState, parts: BrowseParts, listing: Listing): void {
  parts.body.replaceChildren();
  for (const s of listing.failed.values()) parts.body.append(failedRow(st, s));
  const sorted = [...listing.items].sort((a, b) => {
    const c = compare(st.sort, a, b, st.multi);
    return (st.order === 'asc' ? c : -c) || a.seq - b.seq;
  });
  const redraw = () => drawListing(st, parts, listing);
  if (st.multi) parts.body.append(...multiRows(st, sorted, listing, redraw));
  else for (const it of sorted) parts.body.append(entryRow(st, it, listing.owners));
  const partial = listing.cursor !== undefined || listing.following;
  const rest = listing.following ? 'the scan adds the rest' : 'load more for the rest';
  const names = st.multi ? ` (${new Set(listing.items.map((i) => i.name)).size} names)` : '';
  parts.count.textContent = `${listing.items.length} entries${names}${partial ? ' so far' : ''}${st.sort !== 'name' && partial ? ` (sorted as loaded; ${rest})` : ''}`;
}

/** A page's rows, host statuses, caps, cuts and notes, added to the listing and its notices. */
function mergePage(st: BrowseState, parts: BrowseParts, listing: Listing, res: TreeAnswer): void {
  for (const s of res.hosts ?? []) {
    if (s.status !== 'ok') listing.failed.set(s.host, s);
    else listing.failed.delete(s.host);
  }
  for (const r of res.rows ?? []) {
    if (r.row.truncation) {
      const t = r.row.truncation;
      const hidden = Number(t.total ?? 0) - Number(t.shown ?? 0);
      parts.notices.append(
        h(
          'p',
          { class: 'banner warn', 'data-cap': '' },
          `${st.multi ? `${r.host}: ` : ''}${fmt.nameText(t.dir) || st.path}: ${hidden} items hidden (showing first ${t.shown ?? 0} of ${t.total ?? 0} total)`,
        ),
      );
      continue;
    }
    const e = r.row.entry ?? {};
    if (!e.path && !e.error) continue; // the path itself
    listing.items.push({ host: r.host, entry: e, name: fmt.nameText(e.path), seq: listing.seq++ });
  }
  for (const t of res.truncations ?? [])
    parts.notices.append(
      h(
        'p',
        { class: 'banner warn', 'data-cut': '' },
        `${t.host}: walk cut (${reasonText(t.truncation.reason)}) after ${t.truncation.shown ?? 0} rows`,
      ),
    );
  for (const n of res.notes ?? []) parts.notices.append(h('p', { class: 'banner info' }, `${n.host}: ${n.note}`));
  listing.owners.resolve(owned(st, listing.items));
  // A scan's cursor is followed by the scan panel; the tool's own cursor is "Load more".
  listing.cursor = listing.following ? undefined : res.nextCursor || undefined;
  parts.more.hidden = !listing.cursor;
  parts.more.disabled = false;
  drawListing(st, parts, listing);
}

export async function browseView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const st = browseState(ctx.params);
  const parts = renderBrowse(section, ctx, st);
  const listing: Listing = {
    items: [],
    failed: new Map(),
    seq: 0,
    cursor: undefined,
    following: false,
    owners: new OwnerNames(
      (host, path) => ctx.call('Stat', { host, path }),
      () => {
        if (!ctx.signal.aborted) drawListing(st, parts, listing);
      },
    ),
    expanded: new Set(),
  };
  const call = (cursor?: string) =>
    ctx.call<TreeAnswer>('ListDirectory', {
      host: st.host,
      path: st.path,
      depth: st.depth,
      ...(cursor ? { cursor } : {}),
    });
  const merge = (res: TreeAnswer) => mergePage(st, parts, listing, res);
  parts.more.addEventListener('click', async () => {
    parts.more.disabled = true;
    merge(await call(listing.cursor));
  });
  parts.count.textContent = 'listing…';
  await callAndFollow(ctx, parts.scanMount, 'browse', {
    page: call,
    following: (yes) => {
      listing.following = yes;
    },
    merge,
    kept: () => {
      const ok = new Set(listing.items.map((i) => i.host));
      return `${listing.items.length.toLocaleString('en-US')} entries of ${ok.size} host${ok.size === 1 ? '' : 's'}`;
    },
  });
  listing.following = false;
  drawListing(st, parts, listing);
}
