// Browse: a directory of one host or a selector as a table (name, type, size, modified, owner,
// mode), sortable by each column, directories open on click, breadcrumbs above; a row per
// host that failed, each directory's cap and each walk's cut as the answer words them, and
// "Load more" while the answer hands back a next_cursor. State: ?view=browse&host&path&depth&sort&order.
import type { ViewContext } from './context.js';
import { query } from './context.js';
import { fill, h } from './dom.js';
import { errorCode, humanSize, type JsonEntry, kindOf, modeText, mtimeText, nameText } from './format.js';
import { breadcrumbs, childPath } from './paths.js';
import { followScan, type ScanPageLike } from './scan-panel.js';
import { targetForm } from './target-form.js';

export interface JsonStatus {
  host: string;
  status: string;
  via?: string;
  elapsedMs?: string;
  message?: string;
}
interface JsonTruncation {
  dir?: string;
  shown?: string;
  total?: string;
  reason?: string;
}
interface TreeAnswer extends ScanPageLike {
  rows?: { host: string; row: { entry?: JsonEntry; truncation?: JsonTruncation } }[];
  hosts?: JsonStatus[];
  nextCursor?: string;
  truncations?: { host: string; truncation: JsonTruncation }[];
  notes?: { host: string; note: string }[];
}

type Column = 'name' | 'type' | 'size' | 'modified' | 'owner' | 'mode';
const COLUMNS: Column[] = ['name', 'type', 'size', 'modified', 'owner', 'mode'];

interface Item {
  host: string;
  entry: JsonEntry;
  name: string;
  seq: number;
}

const reasonText = (r: string | undefined) => (r ?? '').replace('TRUNCATION_REASON_', '').toLowerCase();

function compare(col: Column, a: Item, b: Item): number {
  switch (col) {
    case 'size':
      return Number(a.entry.size ?? 0) - Number(b.entry.size ?? 0);
    case 'modified':
      return Number(a.entry.mtimeSec ?? 0) - Number(b.entry.mtimeSec ?? 0);
    case 'type':
      return kindOf(a.entry.type).localeCompare(kindOf(b.entry.type));
    case 'owner':
      return (a.entry.uid ?? 0) - (b.entry.uid ?? 0) || (a.entry.gid ?? 0) - (b.entry.gid ?? 0);
    case 'mode':
      return (a.entry.mode ?? 0) - (b.entry.mode ?? 0);
    default:
      // The answer's own order (names as bytes, case-folded; tree order): the sequence it came in.
      return a.seq - b.seq;
  }
}

export async function browseView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const p = ctx.params;
  const host = p.get('host') ?? 'all';
  const path = p.get('path') ?? '/';
  const depth = Math.min(3, Math.max(1, Number(p.get('depth') ?? 1) || 1));
  const sort = (COLUMNS.includes(p.get('sort') as Column) ? p.get('sort') : 'name') as Column;
  const order = p.get('order') === 'desc' ? 'desc' : 'asc';
  const state = {
    view: 'browse',
    host,
    path,
    depth: depth === 1 ? undefined : String(depth),
    sort: sort === 'name' ? undefined : sort,
    order: order === 'asc' ? undefined : order,
  };
  const link = (over: Record<string, string | undefined>) => query({ ...state, ...over });

  const depthSelect = h(
    'select',
    { id: 'browse-depth' },
    ...[1, 2, 3].map((d) =>
      h('option', { value: d, selected: d === depth }, d === 1 ? '1 (this directory)' : String(d)),
    ),
  );
  const notices = h('div', { id: 'browse-notices' });
  const scanMount = h('div', {});
  const body = h('tbody');
  const more = h('button', { type: 'button', id: 'load-more', hidden: true }, 'Load more');
  const count = h('p', { id: 'browse-count', class: 'muted', role: 'status' });
  const multi =
    host.includes(',') || host.includes('*') || host.startsWith('@') || host.startsWith('label:') || host === 'all';
  const head = h(
    'tr',
    {},
    multi ? h('th', { scope: 'col' }, 'host') : undefined,
    ...COLUMNS.map((c) => {
      const active = c === sort;
      const next = active && order === 'asc' ? 'desc' : 'asc';
      return h(
        'th',
        {
          scope: 'col',
          class: c === 'size' ? 'num' : undefined,
          'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : undefined,
        },
        h(
          'a',
          {
            href: link({
              sort: c === 'name' && next === 'asc' ? undefined : c,
              order: next === 'asc' ? undefined : 'desc',
            }),
            'data-sort': c,
            title: `Sort by ${c}`,
          },
          c,
          active ? (order === 'asc' ? ' ▲' : ' ▼') : '',
        ),
      );
    }),
  );
  fill(
    section,
    h('h1', { id: 'h-browse' }, 'Browse'),
    targetForm(ctx, { id: 'browse', state, host, path, depth: depthSelect, defaultDepth: '1', submit: 'List' }),
    breadcrumbs(path, (to) => link({ path: to })),
    scanMount,
    notices,
    h('table', { id: 'listing' }, h('thead', {}, head), body),
    h('div', { class: 'row' }, more, count),
  );

  const items: Item[] = [];
  const failed = new Map<string, JsonStatus>();
  let seq = 0;
  const draw = () => {
    body.replaceChildren();
    for (const s of failed.values()) {
      body.append(
        h(
          'tr',
          { class: s.status === 'pending' ? 'capped' : 'failed', 'data-host-status': s.status },
          h(
            'td',
            { colspan: COLUMNS.length + (multi ? 1 : 0) },
            `${s.host}: ${s.status}`,
            s.message ? ` — ${s.message}` : s.status === 'pending' ? ' — listed on a later page' : '',
          ),
        ),
      );
    }
    const sorted = [...items].sort((a, b) => {
      const c = compare(sort, a, b);
      return (order === 'asc' ? c : -c) || a.seq - b.seq;
    });
    for (const it of sorted) {
      const e = it.entry;
      const kind = kindOf(e.type);
      if (e.error) {
        body.append(
          h(
            'tr',
            { class: 'failed' },
            multi ? h('td', {}, it.host) : undefined,
            h('td', { class: 'name' }, it.name || path),
            h('td', { colspan: COLUMNS.length - 1 }, `[${errorCode(e.error.code)}] ${e.error.detail ?? ''}`),
          ),
        );
        continue;
      }
      const to = kind === 'dir' ? childPath(path, e.path) : undefined;
      const shown = kind === 'symlink' ? `${it.name} → ${nameText(e.linkTarget)}` : it.name;
      body.append(
        h(
          'tr',
          { 'data-name': it.name, 'data-kind': kind },
          multi ? h('td', {}, it.host) : undefined,
          h('td', { class: 'name' }, to ? h('a', { href: link({ path: to }) }, `${it.name}/`) : shown),
          h('td', {}, kind),
          h(
            'td',
            { class: 'num', title: `${e.size ?? 0} bytes`, 'data-bytes': e.size ?? '0' },
            humanSize(Number(e.size ?? 0)),
          ),
          h('td', { class: 'mono' }, mtimeText(e)),
          h('td', { class: 'mono' }, `${e.uid ?? 0}:${e.gid ?? 0}`),
          h('td', { class: 'mono' }, modeText(e)),
        ),
      );
    }
    const partial = cursor !== undefined || following;
    count.textContent = `${items.length} entries${partial ? ' so far' : ''}${sort !== 'name' && partial ? ` (sorted as loaded; ${following ? 'the scan adds the rest' : 'load more for the rest'})` : ''}`;
  };

  let cursor: string | undefined;
  let following = false;
  const call = (c?: string) =>
    ctx.call<TreeAnswer>('ListDirectory', { host, path, depth, ...(c ? { cursor: c } : {}) });
  const merge = (res: TreeAnswer) => {
    for (const s of res.hosts ?? []) {
      if (s.status !== 'ok') failed.set(s.host, s);
      else failed.delete(s.host);
    }
    for (const r of res.rows ?? []) {
      if (r.row.truncation) {
        const t = r.row.truncation;
        const hidden = Number(t.total ?? 0) - Number(t.shown ?? 0);
        notices.append(
          h(
            'p',
            { class: 'banner warn', 'data-cap': '' },
            `${multi ? `${r.host}: ` : ''}${nameText(t.dir) || path}: ${hidden} items hidden (showing first ${t.shown ?? 0} of ${t.total ?? 0} total)`,
          ),
        );
        continue;
      }
      const e = r.row.entry ?? {};
      if (!e.path && !e.error) continue; // the path itself
      items.push({ host: r.host, entry: e, name: nameText(e.path), seq: seq++ });
    }
    for (const t of res.truncations ?? [])
      notices.append(
        h(
          'p',
          { class: 'banner warn', 'data-cut': '' },
          `${t.host}: walk cut (${reasonText(t.truncation.reason)}) after ${t.truncation.shown ?? 0} rows`,
        ),
      );
    for (const n of res.notes ?? []) notices.append(h('p', { class: 'banner info' }, `${n.host}: ${n.note}`));
    // A scan's cursor is followed by the scan panel; the tool's own cursor is "Load more".
    cursor = following ? undefined : res.nextCursor || undefined;
    more.hidden = !cursor;
    more.disabled = false;
    draw();
  };
  const page = async (c?: string) => {
    more.disabled = true;
    merge(await call(c));
  };
  more.addEventListener('click', () => void page(cursor));
  count.textContent = 'listing…';
  const first = await call();
  following = first.scan !== undefined && !!first.nextCursor;
  merge(first);
  await followScan(ctx, scanMount, first, 'browse', {
    page: call,
    merge,
    kept: () => {
      const ok = new Set(items.map((i) => i.host));
      return `${items.length.toLocaleString('en-US')} entries of ${ok.size} host${ok.size === 1 ? '' : 's'}`;
    },
  });
  following = false;
  draw();
}
