// Hosts: the selector's hosts (name, glob, @group, label:key=value) with the status the gateway
// cached (checked at, latency, transport, version, certificate days left where the check
// gives them). The page re-reads the cache; probes run on the gateway's own cadence, shared by
// every tab, or now, on "Check now".
import type { ViewContext } from './context.js';
import { ago, fill, h } from './dom.js';

/** A row of /dashboard/api/hosts: list_hosts' own row, and when it was checked. */
export interface HostRow {
  host: string;
  transport: string;
  address: string;
  labels: Record<string, string>;
  groups: string[];
  ssh_fallback: boolean;
  status?: string;
  via?: string;
  elapsed_ms?: number;
  message?: string;
  version?: string;
  checked_at?: string;
  checking?: boolean;
  [more: string]: unknown;
}
export interface HostStatusView {
  hosts: HostRow[];
  interval_ms: number;
  next_check_at?: string;
  checking: boolean;
}

/** Re-read of the cache while the view is open (a read, not a probe). */
const READ_MS = 15_000;

/** Days to the certificate's expiry, where the host check reports one (any field naming cert … days). */
function certDays(r: HostRow): number | undefined {
  for (const [k, v] of Object.entries(r)) if (/cert/i.test(k) && /day/i.test(k) && typeof v === 'number') return v;
  return undefined;
}

function statusBadge(r: HostRow) {
  if (r.status === undefined)
    return h('span', { class: 'badge unknown' }, r.checking ? 'checking…' : 'not checked yet');
  return h('span', { class: `badge ${r.status === 'ok' ? 'ok' : 'bad'}` }, r.status);
}

const COLUMNS = [
  'host',
  'status',
  'checked',
  'latency',
  'transport',
  'address',
  'version',
  'certificate',
  'labels',
  'groups',
];

/** The elements the view fills from each read of the cache. */
interface HostsParts {
  status: HTMLElement;
  body: HTMLTableSectionElement;
  error: HTMLElement;
  check: HTMLButtonElement;
}

function renderHosts(section: HTMLElement, ctx: ViewContext, selector: string): HostsParts {
  const input = h('input', {
    id: 'host-filter',
    name: 'q',
    value: selector,
    placeholder: 'all, web-*, @group, label:env=prod',
    size: 32,
    'aria-describedby': 'host-filter-help',
  });
  const parts = {
    status: h('p', { id: 'hosts-state', class: 'muted', role: 'status' }),
    body: h('tbody'),
    error: h('p', { id: 'hosts-error', class: 'banner bad', role: 'alert', hidden: true }),
    check: h('button', { type: 'button', id: 'check-now' }, 'Check now'),
  };
  const head = COLUMNS.map((c) => h('th', { scope: 'col', class: c === 'latency' ? 'num' : undefined }, c));
  const onsubmit = (ev: Event) => {
    ev.preventDefault();
    ctx.navigate({ view: 'hosts', q: input.value.trim() });
  };
  fill(
    section,
    h('h1', { id: 'h-hosts' }, 'Hosts'),
    h(
      'form',
      { class: 'bar', role: 'search', onsubmit },
      h('label', { for: 'host-filter' }, 'Filter', input),
      h('button', { type: 'submit', class: 'primary' }, 'Filter'),
      parts.check,
      h('span', { id: 'host-filter-help', class: 'muted' }, 'a name, a glob, @group or label:key=value'),
    ),
    parts.error,
    parts.status,
    h('table', { id: 'hosts' }, h('thead', {}, h('tr', {}, ...head)), parts.body),
  );
  return parts;
}

function hostRow(r: HostRow): HTMLTableRowElement {
  const cert = certDays(r);
  return h(
    'tr',
    { 'data-host': r.host },
    h('td', { class: 'name' }, h('a', { href: `?view=browse&host=${encodeURIComponent(r.host)}&path=/` }, r.host)),
    h('td', {}, statusBadge(r), r.message ? h('div', { class: 'muted' }, r.message) : undefined),
    h('td', { title: r.checked_at ?? '' }, r.checked_at ? ago(r.checked_at) : '—'),
    h('td', { class: 'num' }, r.elapsed_ms !== undefined ? `${r.elapsed_ms} ms` : '—'),
    h('td', {}, r.via && r.via !== r.transport ? `${r.transport} (via ${r.via})` : r.transport),
    h('td', { class: 'mono' }, r.address),
    h('td', {}, r.version ?? '—'),
    h('td', { class: cert !== undefined && cert < 30 ? 'lb' : undefined }, cert === undefined ? '—' : `${cert} days`),
    h(
      'td',
      { class: 'mono' },
      Object.entries(r.labels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
    ),
    h('td', {}, (r.groups ?? []).map((g) => `@${g}`).join(', ')),
  );
}

function drawHosts(parts: HostsParts, view: HostStatusView): void {
  parts.body.replaceChildren(...view.hosts.map(hostRow));
  const ok = view.hosts.filter((r) => r.status === 'ok').length;
  parts.status.textContent =
    `${view.hosts.length} hosts, ${ok} ok` +
    (view.checking ? ' · checking now…' : '') +
    ` · the gateway checks every ${Math.round(view.interval_ms / 1000)} s for all open pages` +
    (view.next_check_at ? `, next ${new Date(view.next_check_at).toLocaleTimeString()}` : '');
}

export async function hostsView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const selector = ctx.params.get('q') ?? '';
  const parts = renderHosts(section, ctx, selector);
  let view: HostStatusView | undefined;
  const read = async (method: 'GET' | 'POST', path: string) => {
    try {
      view = await ctx.api<HostStatusView>(method, `${path}?host=${encodeURIComponent(selector || 'all')}`);
      parts.error.hidden = true;
      drawHosts(parts, view);
    } catch (err) {
      if (ctx.signal.aborted) return;
      parts.error.hidden = false;
      parts.error.textContent = (err as Error).message;
      parts.body.replaceChildren();
      parts.status.textContent = '';
    }
  };
  parts.check.addEventListener('click', async () => {
    parts.check.disabled = true;
    parts.status.textContent = 'checking now…';
    await read('POST', 'hosts/check');
    parts.check.disabled = false;
  });
  // Soon while the first probe of an empty cache is out, then at the cache's own pace.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    await read('GET', 'hosts');
    if (ctx.signal.aborted) return;
    const soon = !view || view.checking || view.hosts.some((r) => !r.checked_at);
    timer = setTimeout(() => void tick(), soon ? 1000 : READ_MS);
  };
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  await tick();
}
