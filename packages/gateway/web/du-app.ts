// The space treemap inside the chat: an MCP App (ui://fleetls/du-treemap) that hosts render
// beside a disk_usage result. It speaks the MCP Apps postMessage protocol to its host
// (ui/initialize, then the tool's input and result as notifications), draws the same treemap
// as the dashboard from the result's structuredContent, and drills down by asking the host
// to call disk_usage again (tools/call) for the directory clicked.
import { type DuItem, type SpaceNode, spaceTree } from './space-model.js';
import { drawTreemap, sizeLabel, tipLines } from './treemap.js';

interface DuStructured {
  path: string;
  /** `host` only when several hosts were asked: a one-host answer's rows are its one total's host. */
  rows: { host?: string; path: string; size: number; size_partial?: boolean }[];
  path_totals: { host: string; size: number; size_partial?: boolean }[];
  hosts?: { host: string; status: string; message?: string }[];
  next_cursor?: string;
}
interface ToolResult {
  structuredContent?: DuStructured;
  isError?: boolean;
  content?: { type: string; text?: string }[];
}

const $ = (id: string) => document.getElementById(id) as HTMLElement;
let nextId = 1;
const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
let args: Record<string, unknown> = {};
const stack: Record<string, unknown>[] = [];

function send(message: object): void {
  window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
}
function request<T>(method: string, params: object): Promise<T> {
  const id = nextId++;
  send({ id, method, params });
  return new Promise<T>((resolve, reject) => pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
}

function theme(t: unknown): void {
  if (t === 'dark' || t === 'light') document.documentElement.dataset.theme = t;
}

function tip(lines?: string[], at?: { x: number; y: number }): void {
  const el = $('tip');
  if (!lines || !at) {
    el.hidden = true;
    return;
  }
  el.replaceChildren(...lines.map((l) => Object.assign(document.createElement('div'), { textContent: l })));
  el.hidden = false;
  el.style.left = `${Math.min(at.x + 12, window.innerWidth - el.offsetWidth - 6)}px`;
  el.style.top = `${Math.min(at.y + 12, window.innerHeight - el.offsetHeight - 6)}px`;
}

async function open(n: SpaceNode, base: string): Promise<void> {
  if (n.rest || n.name.includes('\\')) return;
  await drill({ ...args, path: `${base.replace(/\/+$/, '')}/${n.path}` }, true);
}

/** Asks the host to run disk_usage for `next`; `deeper` keeps the current arguments for "up". */
async function drill(next: Record<string, unknown>, deeper: boolean): Promise<boolean> {
  $('where').textContent = `${String(next.path)} …`;
  try {
    const res = await request<ToolResult>('tools/call', { name: 'disk_usage', arguments: next });
    if (deeper) stack.push(args);
    args = next;
    show(res);
    return true;
  } catch (err) {
    $('note').hidden = false;
    $('note').textContent = `This host did not run disk_usage for the app: ${(err as Error).message}`;
    return false;
  }
}

function show(res: ToolResult): void {
  const s = res.structuredContent;
  if (!s || res.isError) {
    $('where').textContent = res.content?.[0]?.text ?? 'disk_usage gave no structured result';
    return;
  }
  const only = s.path_totals[0]?.host ?? '';
  const items: DuItem[] = s.rows.map((r) => ({
    host: r.host ?? only,
    path: r.path,
    size: r.size,
    partial: r.size_partial === true,
  }));
  const totals = s.path_totals.map((t) => ({ host: t.host, size: t.size, partial: t.size_partial === true }));
  const root = spaceTree(items, totals);
  $('where').textContent = s.path;
  $('up').hidden = stack.length === 0;
  const failed = (s.hosts ?? []).filter((h) => h.status !== 'ok');
  $('total').textContent =
    `Total ${sizeLabel(root)} (${root.size.toLocaleString('en-US')} bytes) on ${totals.length} host${totals.length === 1 ? '' : 's'}` +
    (failed.length ? `; ${failed.map((h) => `${h.host}: ${h.status}`).join(', ')}` : '');
  const note = $('note');
  note.hidden = !root.partial && !s.next_cursor;
  note.textContent = [
    root.partial ? '≥ marks a lower bound.' : '',
    s.next_cursor ? 'Only the largest directories are drawn.' : '',
  ].join(' ');
  const svg = document.querySelector<SVGSVGElement>('#treemap') as SVGSVGElement;
  drawTreemap(
    svg,
    root,
    { open: (n) => void open(n, s.path), hover: (n, at) => tip(n ? tipLines(n, s.path) : undefined, at) },
    `Treemap of ${s.path}`,
  );
  const body = document.querySelector('#sizes tbody') as HTMLElement;
  body.replaceChildren();
  for (const c of root.children) {
    const tr = document.createElement('tr');
    const size = Object.assign(document.createElement('td'), {
      className: `num${c.partial ? ' lb' : ''}`,
      textContent: sizeLabel(c),
    });
    const name = Object.assign(document.createElement('td'), { className: 'name' });
    if (c.rest) name.textContent = c.name;
    else {
      const a = Object.assign(document.createElement('a'), { href: '#', textContent: `${c.name}/` });
      a.addEventListener('click', (ev) => {
        ev.preventDefault();
        void open(c, s.path);
      });
      name.append(a);
    }
    tr.append(size, name);
    body.append(tr);
  }
  send({
    method: 'ui/notifications/size-changed',
    params: { width: document.body.scrollWidth, height: document.body.scrollHeight },
  });
}

window.addEventListener('message', (ev) => {
  if (ev.source !== window.parent) return;
  const m = ev.data as {
    id?: number;
    method?: string;
    params?: Record<string, unknown>;
    result?: unknown;
    error?: { message?: string };
  };
  if (m?.id !== undefined && pending.has(m.id) && m.method === undefined) {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p?.reject(new Error(m.error.message ?? 'error'));
    else p?.resolve(m.result);
    return;
  }
  if (m?.method === 'ui/notifications/tool-input') args = (m.params?.arguments as Record<string, unknown>) ?? {};
  if (m?.method === 'ui/notifications/tool-result') show(m.params as ToolResult);
  if (m?.method === 'ui/notifications/host-context-changed') theme(m.params?.theme);
});
$('up').addEventListener('click', async () => {
  const prev = stack.pop();
  if (prev && !(await drill(prev, false))) stack.push(prev);
});

void request<{ hostContext?: { theme?: string } }>('ui/initialize', {
  protocolVersion: '2026-01-26',
  appInfo: { name: 'fleetls-du-treemap', version: '0.1.0' },
  appCapabilities: {},
}).then((r) => {
  theme(r?.hostContext?.theme);
  send({ method: 'ui/notifications/initialized', params: {} });
});
