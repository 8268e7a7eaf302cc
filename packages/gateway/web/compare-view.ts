// Compare: diff_directory as a view. Which hosts agree (groups, A the largest), and each path
// that differs with what each set of hosts has there (absent, or the compared attributes).
// State: ?view=compare&host&path&depth. Owners are names where the hosts of a set name them
// alike (owners.ts; the comparison itself is of the numbers), else uid:gid.
import { query, type ViewContext } from './context.js';
import { fill, h } from './dom.js';
import * as fmt from './format.js';
import { OwnerNames } from './owners.js';
import { callAndFollow, type ScanPageLike } from './scan-panel.js';
import { targetForm } from './target-form.js';
import { breadcrumbs, childPath } from './url-paths.js';

/** What a set of hosts has at a path that differs: absent, or its entry. */
type Value = { hosts: string[]; present?: boolean; entry?: fmt.JsonEntry };

interface DiffAnswer extends ScanPageLike {
  compare?: string[];
  groups?: { id: string; hosts: string[] }[];
  differences?: { path?: string; values?: Value[]; notCompared?: string[] }[];
  total?: string;
  nextCursor?: string;
  hosts?: fmt.JsonStatus[];
  truncations?: { host: string; truncation: { dir?: string; reason?: string } }[];
}

/** The owner of a set of hosts: the names they all give its ids, else the ids. */
function ownerText(owners: OwnerNames, hosts: string[], e: fmt.JsonEntry): string {
  const ids = `${e.uid ?? 0}:${e.gid ?? 0}`;
  const named = new Set(hosts.map((h) => owners.text(h, e.uid ?? 0, e.gid ?? 0)));
  return named.size === 1 ? ([...named][0] as string) : ids;
}

function valueCell(v: Value, compare: string[], owners: OwnerNames): (string | HTMLElement)[] {
  if (!v.present) return ['absent'];
  const e = v.entry ?? {};
  // What these hosts could not read is the difference (as the CLI's `B: [DENIED]`): its
  // attributes are the directory's own, the same as on the hosts that read it.
  if (e.error) return [fmt.errorText(e.error, 'could not be read here')];
  const parts: (string | HTMLElement)[] = [];
  for (const c of compare) {
    if (parts.length > 0 && ['type', 'size', 'mode', 'owner', 'mtime'].includes(c)) parts.push(', ');
    if (c === 'type') parts.push(fmt.kindOf(e.type));
    if (c === 'size') parts.push(`${fmt.sizeText(e)} (${Number(e.size ?? 0).toLocaleString('en-US')} B)`);
    if (c === 'mode') parts.push(fmt.modeText(e));
    if (c === 'owner')
      parts.push(
        h(
          'span',
          {
            'data-owner': v.hosts.join(','),
            'data-uid': e.uid ?? 0,
            'data-gid': e.gid ?? 0,
            title: fmt.idsText(e),
          },
          ownerText(owners, v.hosts, e),
        ),
      );
    if (c === 'mtime') parts.push(fmt.mtimeText(e));
  }
  return parts;
}

/** The elements the view fills as pages arrive. */
interface CompareParts {
  groups: HTMLElement;
  summary: HTMLElement;
  notices: HTMLElement;
  scanMount: HTMLElement;
  body: HTMLTableSectionElement;
  more: HTMLButtonElement;
}

function renderCompare(
  section: HTMLElement,
  ctx: ViewContext,
  state: Record<string, string | undefined>,
  target: { host: string; path: string; depth: number },
): CompareParts {
  const { host, path, depth } = target;
  const depthInput = h('input', { id: 'compare-depth', type: 'number', min: 1, max: 10, value: depth });
  const parts = {
    groups: h('div', { class: 'groups', id: 'diff-groups' }),
    summary: h('p', { id: 'diff-summary', role: 'status' }, 'comparing…'),
    notices: h('div', {}),
    scanMount: h('div', {}),
    body: h('tbody'),
    more: h('button', { type: 'button', id: 'diff-more', hidden: true }, 'Load more'),
  };
  const head = ['path', 'hosts', 'what they have'].map((c) => h('th', { scope: 'col' }, c));
  fill(
    section,
    h('h1', { id: 'h-compare' }, 'Compare hosts'),
    targetForm(ctx, { id: 'compare', state, host, path, depth: depthInput, defaultDepth: '2', submit: 'Compare' }),
    breadcrumbs(path, (to) => query({ ...state, path: to })),
    parts.scanMount,
    parts.summary,
    parts.groups,
    parts.notices,
    h('div', { class: 'scroll' }, h('table', { id: 'differences' }, h('thead', {}, h('tr', {}, ...head)), parts.body)),
    parts.more,
  );
  return parts;
}

/** The groups of hosts that agree, and the notices of hosts not compared and listings cut. */
function showGroups(parts: CompareParts, res: DiffAnswer, statuses: Map<string, fmt.JsonStatus>, path: string): void {
  for (const g of res.groups ?? [])
    parts.groups.append(
      h(
        'div',
        { class: 'card', 'data-group': g.id },
        h('strong', {}, `${g.id}${g.id === 'A' ? ' (baseline)' : ''}: `),
        g.hosts.join(', '),
      ),
    );
  for (const s of statuses.values())
    if (s.status !== 'ok')
      parts.notices.append(
        h(
          'p',
          { class: 'banner bad', 'data-host-status': s.status },
          `${s.host}: ${s.status}${s.message ? ` — ${s.message}` : ''} (not compared)`,
        ),
      );
  for (const t of res.truncations ?? [])
    parts.notices.append(
      h(
        'p',
        { class: 'banner warn' },
        `${t.host}: ${fmt.nameText(t.truncation.dir) || path} listed in part; only what both sides listed was compared`,
      ),
    );
}

type Difference = NonNullable<DiffAnswer['differences']>[number];

/** A differing path's rows: one per set of hosts with what they have, and the hosts not compared. */
function differenceRows(d: Difference, compare: string[], owners: OwnerNames): HTMLTableRowElement[] {
  const values = d.values ?? [];
  const rows = values.map((v, i) =>
    h(
      'tr',
      { 'data-path': i === 0 ? fmt.nameText(d.path) : undefined },
      i === 0
        ? h('td', { class: 'name', rowspan: values.length + (d.notCompared?.length ? 1 : 0) }, fmt.nameText(d.path))
        : undefined,
      h('td', {}, v.hosts.join(', ')),
      h(
        'td',
        {
          class: v.entry?.error ? 'bad' : v.present ? 'mono' : 'lb',
          'data-error': v.entry?.error ? fmt.errorCode(v.entry.error.code) : undefined,
        },
        ...valueCell(v, compare, owners),
      ),
    ),
  );
  if (d.notCompared?.length)
    rows.push(
      h('tr', {}, h('td', {}, d.notCompared.join(', ')), h('td', { class: 'muted' }, 'could not say (listed in part)')),
    );
  return rows;
}

export async function compareView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const params = ctx.params;
  const host = params.get('host') ?? 'all';
  const path = params.get('path') ?? '/';
  const depth = Math.min(10, Math.max(1, Number(params.get('depth') ?? 2) || 2));
  const state = { view: 'compare', host, path, depth: depth === 2 ? undefined : String(depth) };
  const parts = renderCompare(section, ctx, state, { host, path, depth });

  let cursor: string | undefined;
  let shown = 0;
  let grouped = false;
  /** The hosts of a scan's pages: a diff needs every host, so its groups come on the scan's last page. */
  const statuses = new Map<string, fmt.JsonStatus>();
  const call = (c?: string) =>
    ctx.call<DiffAnswer>('DiffDirectory', { host, path, depth, ...(c ? { cursor: c } : {}) });
  const owners = new OwnerNames(
    (hosts, p) => ctx.call('Stat', { host: hosts, path: p }),
    () => {
      for (const span of parts.body.querySelectorAll<HTMLElement>('span[data-owner]')) {
        const e = { uid: Number(span.dataset.uid), gid: Number(span.dataset.gid) };
        span.textContent = ownerText(owners, (span.dataset.owner ?? '').split(','), e);
      }
    },
  );
  const merge = (res: DiffAnswer) => {
    const compare = res.compare ?? ['type', 'size', 'mode', 'owner'];
    for (const s of res.hosts ?? []) statuses.set(s.host, s);
    const waiting = !!res.scan && !!res.nextCursor && !grouped && (res.groups ?? []).length === 0;
    if (!grouped && !waiting) {
      grouped = true;
      showGroups(parts, res, statuses, path);
    }
    for (const d of res.differences ?? []) {
      parts.body.append(...differenceRows(d, compare, owners));
      shown++;
    }
    if (compare.includes('owner'))
      owners.resolve(
        (res.differences ?? []).flatMap((d) =>
          (d.values ?? [])
            .filter((v) => v.present && v.entry && !v.entry.error)
            .flatMap((v) =>
              v.hosts.map((h) => ({
                host: h,
                path: childPath(path, d.path),
                uid: v.entry?.uid ?? 0,
                gid: v.entry?.gid ?? 0,
                link: fmt.kindOf(v.entry?.type) === 'symlink',
              })),
            ),
        ),
      );
    const groupsN = (res.groups ?? []).length;
    parts.summary.textContent = waiting
      ? 'Waiting for every host: a comparison needs them all (the scan above says how far it is).'
      : groupsN <= 1 && shown === 0
        ? `All ${(res.groups ?? [])[0]?.hosts.length ?? 0} hosts that answered have the same listing of ${path} (comparing ${compare.join(', ')}).`
        : `${groupsN} groups of hosts; ${shown} of ${res.total ?? shown} differing paths shown (comparing ${compare.join(', ')}).`;
    // A scan's cursor is followed by the scan panel; the tool's own cursor is "Load more".
    cursor = res.scan ? undefined : res.nextCursor || undefined;
    parts.more.hidden = !cursor;
    parts.more.disabled = false;
  };
  parts.more.addEventListener('click', async () => {
    parts.more.disabled = true;
    merge(await call(cursor));
  });
  await callAndFollow(ctx, parts.scanMount, 'compare', {
    page: call,
    merge,
    kept: () =>
      grouped
        ? `the comparison of the ${[...statuses.values()].filter((s) => s.status === 'ok').length} hosts that answered`
        : 'no comparison (no host answered)',
  });
}
