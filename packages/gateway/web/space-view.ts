// Space: where the space went under a path, from disk_usage: the treemap (click a directory to
// drill into it; hover or focus for exact bytes and each host's value; ≥ and hatching mark a
// lower bound), ncdu's size list beside it, and du's total of the path. Merged over the hosts
// or one host at a time. State: ?view=space&host&path&depth&by.
import type { JsonStatus } from './browse-view.js';
import { query, type ViewContext } from './context.js';
import { $, fill, h } from './dom.js';
import { exactBytes, humanSize, type JsonEntry, nameText } from './format.js';
import { breadcrumbs } from './paths.js';
import { followScan, type ScanPageLike } from './scan-panel.js';
import { type DuItem, type DuTotalItem, type SpaceNode, spaceTree } from './space-model.js';
import { targetForm } from './target-form.js';
import { drawTreemap, sizeLabel, tipLines } from './treemap.js';

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

export async function spaceView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const p = ctx.params;
  const host = p.get('host') ?? 'all';
  const path = p.get('path') ?? '/';
  const depth = Math.min(3, Math.max(1, Number(p.get('depth') ?? 2) || 2));
  const by = p.get('by') ?? '';
  const state = { view: 'space', host, path, depth: depth === 2 ? undefined : String(depth), by: by || undefined };
  const link = (over: Record<string, string | undefined>) => query({ ...state, ...over });
  const base = path.replace(/\/+$/, '') || '';
  const below = (rel: string) => `${base}/${rel}`;

  const depthSelect = h(
    'select',
    { id: 'space-depth' },
    ...[1, 2, 3].map((d) => h('option', { value: d, selected: d === depth }, String(d))),
  );
  const bySelect = h('select', { id: 'space-by' }, h('option', { value: '' }, 'all hosts, merged'));
  const total = h('p', { id: 'space-total', role: 'status' }, 'measuring…');
  const notices = h('div', { id: 'space-notices' });
  const scanMount = h('div', {});
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'treemap');
  svg.id = 'treemap';
  const list = h('tbody');
  fill(
    section,
    h('h1', { id: 'h-space' }, 'Where did the space go?'),
    targetForm(ctx, {
      id: 'space',
      state,
      host,
      path,
      depth: depthSelect,
      defaultDepth: '2',
      submit: 'Measure',
      extra: [h('label', { for: 'space-by' }, 'Show', bySelect)],
    }),
    breadcrumbs(path, (to) => link({ path: to })),
    scanMount,
    total,
    notices,
    h(
      'div',
      { class: 'split' },
      h('div', {}, svg),
      h(
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
      ),
    ),
  );
  bySelect.addEventListener('change', () => ctx.navigate({ ...state, by: bySelect.value || undefined }, true));

  // A scan's pages each bring the hosts done since: their rows and totals add to the ones before.
  const items: DuItem[] = [];
  const totals: DuTotalItem[] = [];
  const statuses = new Map<string, JsonStatus>();
  const cuts: string[] = [];
  let found = 0;
  let more = false;
  let rankingFinal = true;
  let root: SpaceNode = spaceTree([], []);
  const merge = (res: DuAnswer) => {
    for (const e of res.entries ?? [])
      items.push({
        host: e.host,
        path: nameText(e.entry.path),
        size: Number(e.entry.size ?? 0),
        partial: e.entry.sizePartial === true,
      });
    for (const t of res.pathTotals ?? []) {
      totals.push({ host: t.host, size: Number(t.entry.size ?? 0), partial: t.entry.sizePartial === true });
      bySelect.append(h('option', { value: t.host, selected: t.host === by }, t.host));
    }
    for (const s of res.hosts ?? []) statuses.set(s.host, s);
    for (const t of res.truncations ?? [])
      cuts.push(
        `${t.host}: cut (${(t.truncation.reason ?? '').replace('TRUNCATION_REASON_', '').toLowerCase()}): sizes there are lower bounds`,
      );
    found += Number(res.found ?? 0);
    // A page of a scan has a next_cursor to its next hosts; only a tool's own cursor means "more rows".
    more = !res.scan && !!res.nextCursor;
    rankingFinal = res.scan?.rankingFinal !== false;
    show();
  };
  const show = () => {
    root = spaceTree(items, totals, by || undefined);
    const answered = totals.length;
    total.replaceChildren(
      h('strong', {}, `Total ${sizeLabel(root)}`),
      ` (${exactBytes(root.size)}) in ${path}, ${by ? by : `${answered} host${answered === 1 ? '' : 's'}`}, as du -sb`,
      ...(by
        ? []
        : root.perHost.map((t) =>
            h('span', { class: 'muted' }, ` · ${t.host} ${t.partial ? '≥ ' : ''}${humanSize(t.size)}`),
          )),
    );
    notices.replaceChildren();
    for (const s of statuses.values())
      if (s.status !== 'ok' && s.status !== 'pending')
        notices.append(
          h(
            'p',
            { class: 'banner bad', 'data-host-status': s.status },
            `${s.host}: ${s.status}${s.message ? ` — ${s.message}` : ''}`,
          ),
        );
    for (const c of cuts) notices.append(h('p', { class: 'banner warn' }, c));
    if (more)
      notices.append(
        h(
          'p',
          { class: 'banner info' },
          `Showing the largest ${items.length} of ${found || '?'} directories; the rest are in "(files and smaller directories)".`,
        ),
      );
    if (!rankingFinal)
      notices.append(
        h(
          'p',
          { class: 'banner info', 'data-ranking': '' },
          'Sizes of the hosts that answered so far: the pending hosts add theirs as they answer.',
        ),
      );
    if (root.partial)
      notices.append(
        h(
          'p',
          { class: 'banner warn' },
          '≥ and hatching mark a lower bound: part of it could not be read in time, or was unreadable.',
        ),
      );
    draw();
    list.replaceChildren();
    for (const c of root.children) {
      const share = root.size > 0 ? (100 * c.size) / root.size : 0;
      // Set through CSSOM: the page's CSP (style-src 'self') refuses style attributes.
      const meter = h('div', { class: 'meter' });
      meter.style.width = `${share.toFixed(1)}%`;
      list.append(
        h(
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
            h(
              'div',
              {},
              h('div', { class: 'meter-box' }, meter),
              h('span', { class: 'muted' }, `${share.toFixed(1)} %`),
            ),
          ),
          h(
            'td',
            { class: 'name' },
            c.rest || c.name.includes('\\') ? c.name : h('a', { href: link({ path: below(c.path) }) }, `${c.name}/`),
          ),
        ),
      );
    }
  };

  const open = (n: SpaceNode) => {
    if (n.rest || n.name.includes('\\')) return;
    ctx.navigate({ ...state, path: below(n.path) });
  };
  const draw = () =>
    drawTreemap(
      svg,
      root,
      { open, hover: (n, at) => showTip(n ? tipLines(n, path) : undefined, at) },
      `Treemap of ${path}`,
    );
  const onResize = () => draw();
  window.addEventListener('resize', onResize);
  ctx.signal.addEventListener('abort', () => {
    window.removeEventListener('resize', onResize);
    showTip(undefined);
  });

  const call = (c?: string) =>
    ctx.call<DuAnswer>('DiskUsage', { host, path, depth, topN: TOP_N, ...(c ? { cursor: c } : {}) });
  const first = await call();
  merge(first);
  await followScan(ctx, scanMount, first, 'space', {
    page: call,
    merge,
    kept: () => `the sizes of ${totals.length} host${totals.length === 1 ? '' : 's'} (${humanSize(root.size)})`,
  });
}
