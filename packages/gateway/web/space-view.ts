// Space: where the space went under a path, from disk_usage: the treemap (click a directory to
// drill into it; hover or focus for exact bytes and each host's value; ≥ and hatching mark a
// lower bound), ncdu's size list beside it, and du's total of the path. Merged over the hosts
// or one host at a time. State: ?view=space&host&path&depth&by.
import { query, type ViewContext } from './context.js';
import { $, fill, h } from './dom.js';
import { exactBytes, humanSize, type JsonEntry, type JsonStatus, nameText } from './format.js';
import { callAndFollow, type ScanPageLike } from './scan-panel.js';
import { type DuItem, type DuTotalItem, type SpaceNode, spaceTree } from './space-model.js';
import { targetForm } from './target-form.js';
import { drawTreemap, sizeLabel, tipLines } from './treemap.js';
import { breadcrumbs } from './url-paths.js';

interface DuAnswer extends ScanPageLike {
  entries?: { host: string; entry: JsonEntry }[];
  pathTotals?: { host: string; entry: JsonEntry }[];
  hosts?: JsonStatus[];
  found?: string;
  nextCursor?: string;
  truncations?: { host: string; truncation: { reason?: string; shown?: string } }[];
}

const TOP_N = 300;

export function showTip(lines: string[] | undefined, at?: { x: number; y: number }): void {
  const tip = $('#tip');
  if (!lines || !at) {
    tip.hidden = true;
    return;
  }
  tip.replaceChildren(...lines.map((l, i) => h(i === 0 ? 'strong' : 'div', {}, l)));
  tip.hidden = false;
  const x = Math.min(at.x + 14, window.innerWidth - tip.offsetWidth - 8);
  const y = Math.min(at.y + 14, window.innerHeight - tip.offsetHeight - 8);
  tip.style.left = `${Math.max(4, x)}px`;
  tip.style.top = `${Math.max(4, y)}px`;
}

/** The view's URL state. */
interface SpaceState {
  host: string;
  path: string;
  depth: number;
  /** One host's sizes, or '' for all hosts merged. */
  by: string;
  url: Record<string, string | undefined>;
  link(over: Record<string, string | undefined>): string;
  /** The absolute path of a directory given relative to `path`. */
  below(rel: string): string;
}

function spaceState(params: URLSearchParams): SpaceState {
  const host = params.get('host') ?? 'all';
  const path = params.get('path') ?? '/';
  const depth = Math.min(3, Math.max(1, Number(params.get('depth') ?? 2) || 2));
  const by = params.get('by') ?? '';
  const url = { view: 'space', host, path, depth: depth === 2 ? undefined : String(depth), by: by || undefined };
  const base = path.replace(/\/+$/, '') || '';
  return { host, path, depth, by, url, link: (over) => query({ ...url, ...over }), below: (rel) => `${base}/${rel}` };
}

/** The elements the view fills as pages arrive. */
interface SpaceParts {
  bySelect: HTMLSelectElement;
  total: HTMLElement;
  notices: HTMLElement;
  scanMount: HTMLElement;
  svg: SVGSVGElement;
  list: HTMLTableSectionElement;
}

function sizesTable(list: HTMLTableSectionElement): HTMLTableElement {
  return h(
    'table',
    { id: 'sizes', class: 'sizes' },
    h('caption', { class: 'muted' }, 'Largest directories (as ncdu)'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col', class: 'num' }, 'size'),
        h('th', { scope: 'col' }, 'share'),
        h('th', { scope: 'col' }, 'name'),
      ),
    ),
    list,
  );
}

function renderSpace(section: HTMLElement, ctx: ViewContext, st: SpaceState): SpaceParts {
  const depthSelect = h(
    'select',
    { id: 'space-depth' },
    ...[1, 2, 3].map((d) => h('option', { value: d, selected: d === st.depth }, String(d))),
  );
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'treemap');
  svg.id = 'treemap';
  const parts = {
    bySelect: h('select', { id: 'space-by' }, h('option', { value: '' }, 'all hosts, merged')),
    total: h('p', { id: 'space-total', role: 'status' }, 'measuring…'),
    notices: h('div', { id: 'space-notices' }),
    scanMount: h('div', {}),
    svg,
    list: h('tbody'),
  };
  fill(
    section,
    h('h1', { id: 'h-space' }, 'Where did the space go?'),
    targetForm(ctx, {
      id: 'space',
      state: st.url,
      host: st.host,
      path: st.path,
      depth: depthSelect,
      defaultDepth: '2',
      submit: 'Measure',
      extra: [h('label', { for: 'space-by' }, 'Show', parts.bySelect)],
    }),
    breadcrumbs(st.path, (to) => st.link({ path: to })),
    parts.scanMount,
    parts.total,
    parts.notices,
    h('div', { class: 'split' }, h('div', {}, svg), sizesTable(parts.list)),
  );
  return parts;
}

/** What the pages brought so far: a scan's pages each bring the hosts done since. */
interface Sizes {
  items: DuItem[];
  totals: DuTotalItem[];
  statuses: Map<string, JsonStatus>;
  cuts: string[];
  found: number;
  /** The tool's own cursor: more rows than the top N. */
  more: boolean;
  rankingFinal: boolean;
  root: SpaceNode;
}

/** A page's rows and totals, added to the ones before. */
function mergeSizes(st: SpaceState, parts: SpaceParts, sizes: Sizes, res: DuAnswer): void {
  for (const e of res.entries ?? [])
    sizes.items.push({
      host: e.host,
      path: nameText(e.entry.path),
      size: Number(e.entry.size ?? 0),
      partial: e.entry.sizePartial === true,
    });
  for (const t of res.pathTotals ?? []) {
    sizes.totals.push({ host: t.host, size: Number(t.entry.size ?? 0), partial: t.entry.sizePartial === true });
    parts.bySelect.append(h('option', { value: t.host, selected: t.host === st.by }, t.host));
  }
  for (const s of res.hosts ?? []) sizes.statuses.set(s.host, s);
  for (const t of res.truncations ?? [])
    sizes.cuts.push(
      `${t.host}: cut (${(t.truncation.reason ?? '').replace('TRUNCATION_REASON_', '').toLowerCase()}): sizes there are lower bounds`,
    );
  sizes.found += Number(res.found ?? 0);
  // A page of a scan has a next_cursor to its next hosts; only a tool's own cursor means "more rows".
  sizes.more = !res.scan && !!res.nextCursor;
  sizes.rankingFinal = res.scan?.rankingFinal !== false;
}

function totalLine(st: SpaceState, sizes: Sizes): (Node | string)[] {
  const { root } = sizes;
  const answered = sizes.totals.length;
  return [
    h('strong', {}, `Total ${sizeLabel(root)}`),
    ` (${exactBytes(root.size)}) in ${st.path}, ${st.by ? st.by : `${answered} host${answered === 1 ? '' : 's'}`}, as du -sb`,
    ...(st.by
      ? []
      : root.perHost.map((t) =>
          h('span', { class: 'muted' }, ` · ${t.host} ${t.partial ? '≥ ' : ''}${humanSize(t.size)}`),
        )),
  ];
}

function spaceNotices(sizes: Sizes): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const s of sizes.statuses.values())
    if (s.status !== 'ok' && s.status !== 'pending')
      out.push(
        h(
          'p',
          { class: 'banner bad', 'data-host-status': s.status },
          `${s.host}: ${s.status}${s.message ? ` — ${s.message}` : ''}`,
        ),
      );
  for (const c of sizes.cuts) out.push(h('p', { class: 'banner warn' }, c));
  if (sizes.more)
    out.push(
      h(
        'p',
        { class: 'banner info' },
        `Showing the largest ${sizes.items.length} of ${sizes.found || '?'} directories; the rest are in "(files and smaller directories)".`,
      ),
    );
  if (!sizes.rankingFinal)
    out.push(
      h(
        'p',
        { class: 'banner info', 'data-ranking': '' },
        'Sizes of the hosts that answered so far: the pending hosts add theirs as they answer.',
      ),
    );
  if (sizes.root.partial)
    out.push(
      h(
        'p',
        { class: 'banner warn' },
        '≥ and hatching mark a lower bound: part of it could not be read in time, or was unreadable.',
      ),
    );
  return out;
}

/** A row of the size list: size, share of the total as a bar, the name (a link below). */
function sizeRow(st: SpaceState, root: SpaceNode, c: SpaceNode): HTMLTableRowElement {
  const share = root.size > 0 ? (100 * c.size) / root.size : 0;
  // Set through CSSOM: the page's CSP (style-src 'self') refuses style attributes.
  const meter = h('div', { class: 'meter' });
  meter.style.width = `${share.toFixed(1)}%`;
  return h(
    'tr',
    { 'data-path': c.path },
    h(
      'td',
      { class: 'num', title: `${c.partial ? 'at least ' : ''}${exactBytes(c.size)}` },
      c.partial ? h('span', { class: 'lb' }, sizeLabel(c)) : sizeLabel(c),
    ),
    h(
      'td',
      { class: 'bar' },
      h('div', {}, h('div', { class: 'meter-box' }, meter), h('span', { class: 'muted' }, `${share.toFixed(1)} %`)),
    ),
    h(
      'td',
      { class: 'name' },
      c.rest || c.name.includes('\\') ? c.name : h('a', { href: st.link({ path: st.below(c.path) }) }, `${c.name}/`),
    ),
  );
}

/** The treemap redrawn to the svg's size; a click on a directory opens it. */
function bindTreemap(ctx: ViewContext, st: SpaceState, parts: SpaceParts, sizes: Sizes): () => void {
  const open = (n: SpaceNode) => {
    if (n.rest || n.name.includes('\\')) return;
    ctx.navigate({ ...st.url, path: st.below(n.path) });
  };
  const draw = () =>
    drawTreemap(
      parts.svg,
      sizes.root,
      { open, hover: (n, at) => showTip(n ? tipLines(n, st.path) : undefined, at) },
      `Treemap of ${st.path}`,
    );
  const onResize = () => draw();
  window.addEventListener('resize', onResize);
  ctx.signal.addEventListener('abort', () => {
    window.removeEventListener('resize', onResize);
    showTip(undefined);
  });
  return draw;
}

export async function spaceView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const st = spaceState(ctx.params);
  const parts = renderSpace(section, ctx, st);
  parts.bySelect.addEventListener('change', () =>
    ctx.navigate({ ...st.url, by: parts.bySelect.value || undefined }, true),
  );
  const sizes: Sizes = {
    items: [],
    totals: [],
    statuses: new Map(),
    cuts: [],
    found: 0,
    more: false,
    rankingFinal: true,
    root: spaceTree([], []),
  };
  const draw = bindTreemap(ctx, st, parts, sizes);
  const merge = (res: DuAnswer) => {
    mergeSizes(st, parts, sizes, res);
    sizes.root = spaceTree(sizes.items, sizes.totals, st.by || undefined);
    parts.total.replaceChildren(...totalLine(st, sizes));
    parts.notices.replaceChildren(...spaceNotices(sizes));
    draw();
    parts.list.replaceChildren(...sizes.root.children.map((c) => sizeRow(st, sizes.root, c)));
  };
  const call = (cursor?: string) =>
    ctx.call<DuAnswer>('DiskUsage', {
      host: st.host,
      path: st.path,
      depth: st.depth,
      topN: TOP_N,
      ...(cursor ? { cursor } : {}),
    });
  await callAndFollow(ctx, parts.scanMount, 'space', {
    page: call,
    merge,
    kept: () =>
      `the sizes of ${sizes.totals.length} host${sizes.totals.length === 1 ? '' : 's'} (${humanSize(sizes.root.size)})`,
  });
}
