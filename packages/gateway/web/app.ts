// The fleetls dashboard: hosts with live status, a directory browser over one host or a
// selector (caps and error rows shown, paged with the cursor), and a treemap of recursive
// sizes. It calls the Fleet API of the server that served it; the token, when the server
// asks for one, is typed in and kept in this tab's sessionStorage, never in the page.
import { bytesText, FleetCallError, serverStream, unary } from './fleet-client.js';
import { drawTreemap, type SizeNode } from './treemap.js';

const TOKEN_KEY = 'fleetls-token';
const REFRESH_MS = 10_000;

interface JsonStatus {
  host: string;
  status: string;
  via: string;
  elapsedMs?: string;
  message?: string;
}
interface JsonEntry {
  path?: string;
  type?: string;
  size?: string;
  linkTarget?: string;
  error?: { code?: string; detail?: string };
}
interface JsonTruncation {
  dir?: string;
  shown?: string;
  total?: string;
  reason?: string;
}
interface JsonRow {
  entry?: JsonEntry;
  truncation?: JsonTruncation;
}

const $ = <T extends Element>(sel: string) => document.querySelector(sel) as T;
const token = (): string | undefined => sessionStorage.getItem(TOKEN_KEY) ?? undefined;

function cell(tr: HTMLTableRowElement, text: string, cls?: string): void {
  const td = tr.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
}

/** The tool's own words: [DIR] a/b, [FILE] a/b/c, [WARNING] a: N items hidden…, [DENIED] p — detail. */
function treeLine(row: JsonRow, root: string): { text: string; cls?: string } {
  if (row.truncation) {
    const t = row.truncation;
    const dir = bytesText(t.dir) || root;
    const hidden = Number(t.total ?? 0) - Number(t.shown ?? 0);
    return {
      text: `[WARNING] ${dir}: ${hidden} items hidden (showing first ${t.shown ?? 0} of ${t.total ?? 0} total)`,
      cls: 'warn',
    };
  }
  const e = row.entry ?? {};
  const path = bytesText(e.path) || root;
  if (e.error) {
    const code = (e.error.code ?? 'ERROR_CODE_ERROR').replace('ERROR_CODE_', '');
    return { text: `[${code}] ${path} — ${e.error.detail ?? ''}`, cls: 'err' };
  }
  const type = (e.type ?? 'ENTRY_TYPE_FILE').replace('ENTRY_TYPE_', '');
  if (type === 'DIR') return { text: `[DIR] ${path}` };
  if (type === 'SYMLINK') return { text: `[LINK] ${path} -> ${bytesText(e.linkTarget)}` };
  return { text: `[${type === 'FILE' ? 'FILE' : type}] ${path}` };
}

async function call<T>(method: string, request: object): Promise<T> {
  try {
    return await unary<T>(method, request, token());
  } catch (err) {
    if (err instanceof FleetCallError && err.code === 'unauthenticated')
      showLogin('The server asks for a bearer token.');
    throw err;
  }
}

// ---- hosts ----

async function refreshHosts(): Promise<void> {
  const res = await call<{
    hosts?: (JsonStatus & {
      transport: string;
      address: string;
      reachable?: boolean;
      version?: string;
      probe?: JsonStatus;
    })[];
  }>('ListHosts', { check: true });
  const body = $<HTMLTableElement>('#hosts').tBodies[0];
  body.replaceChildren();
  for (const h of res.hosts ?? []) {
    const tr = body.insertRow();
    tr.dataset.host = h.host;
    cell(tr, h.host);
    cell(tr, h.transport);
    cell(tr, h.address);
    const status = h.probe?.status ?? 'unknown';
    cell(
      tr,
      status === 'ok' ? `ok (${h.probe?.via})` : `${status}${h.probe?.message ? `: ${h.probe.message}` : ''}`,
      status === 'ok' ? 'ok' : 'bad',
    );
    cell(tr, h.version ?? '');
    cell(tr, h.probe?.elapsedMs !== undefined ? `${h.probe.elapsedMs} ms` : '');
  }
  $('#hosts-updated').textContent = `checked ${new Date().toLocaleTimeString()}`;
}

// ---- browse ----

let cursor: string | undefined;

function browseArgs() {
  return {
    host: $<HTMLInputElement>('#selector').value,
    path: $<HTMLInputElement>('#path').value,
    depth: Number($<HTMLInputElement>('#depth').value),
    maxItemsPerDir: Number($<HTMLInputElement>('#per-dir').value),
  };
}

async function list(page?: string): Promise<void> {
  const args = browseArgs();
  $('#browse-error').textContent = '';
  try {
    const res = await call<{
      rows?: { host: string; row: JsonRow }[];
      hosts?: JsonStatus[];
      nextCursor?: string;
      truncations?: { host: string; truncation: JsonTruncation }[];
    }>('ListDirectory', { ...args, ...(page ? { cursor: page } : {}) });
    const pre = $<HTMLPreElement>('#tree');
    if (!page) pre.replaceChildren();
    const multi = (res.hosts ?? []).length > 1 || args.host.includes(',') || args.host === 'all';
    for (const s of res.hosts ?? []) {
      if (s.status !== 'ok') {
        const span = document.createElement('span');
        span.className = 'err';
        span.textContent = `${multi ? `${s.host}: ` : ''}[ERROR] ${s.status} — ${s.message ?? ''}\n`;
        pre.append(span);
      }
    }
    for (const r of res.rows ?? []) {
      const { text, cls } = treeLine(r.row, args.path);
      const span = document.createElement('span');
      if (cls) span.className = cls;
      span.textContent = `${multi ? `${r.host}: ` : ''}${text}\n`;
      pre.append(span);
    }
    for (const t of res.truncations ?? []) {
      const span = document.createElement('span');
      span.className = 'warn';
      span.textContent = `${t.host}: [WARNING] walk cut (${t.truncation.reason}) after ${t.truncation.shown} rows\n`;
      pre.append(span);
    }
    cursor = res.nextCursor;
    $<HTMLButtonElement>('#next').hidden = !cursor;
  } catch (err) {
    $('#browse-error').textContent = (err as Error).message;
  }
}

// ---- treemap ----

async function space(): Promise<void> {
  const { host, path } = browseArgs();
  $('#browse-error').textContent = '';
  const hosts = new Map<string, SizeNode[]>();
  const states = new Map<string, string>();
  const show = () => {
    $('#walk-hosts').textContent = [...states].map(([h, s]) => `${h}: ${s}`).join(' · ');
  };
  try {
    await serverStream<{
      host?: { host: string; state: string; status?: JsonStatus };
      rows?: { host: string; rows?: JsonRow[] };
    }>('Walk', { host, path, maxDepth: 1, dirSizes: true }, token(), (e) => {
      if (e.host) {
        states.set(e.host.host, e.host.state === 'done' ? (e.host.status?.status ?? 'done') : e.host.state);
        show();
      }
      if (e.rows) {
        const list = hosts.get(e.rows.host) ?? [];
        for (const r of e.rows.rows ?? []) {
          if (r.entry?.path && !r.entry.error)
            list.push({ name: bytesText(r.entry.path), size: Number(r.entry.size ?? 0) });
        }
        hosts.set(e.rows.host, list);
      }
    });
    const svg = $<SVGSVGElement>('#treemap');
    svg.removeAttribute('hidden');
    drawTreemap(
      svg,
      [...hosts].map(([name, children]) => ({ name, children })),
    );
  } catch (err) {
    $('#browse-error').textContent = (err as Error).message;
  }
}

// ---- start ----

function showLogin(why: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  $<HTMLElement>('#app').hidden = true;
  $<HTMLFormElement>('#login').hidden = false;
  $('#login-error').textContent = why;
}

async function start(): Promise<void> {
  try {
    await refreshHosts();
  } catch (err) {
    if (!(err instanceof FleetCallError && err.code === 'unauthenticated'))
      $('#conn').textContent = (err as Error).message;
    return;
  }
  $<HTMLFormElement>('#login').hidden = true;
  $<HTMLElement>('#app').hidden = false;
  $<HTMLButtonElement>('#forget').hidden = token() === undefined;
  $('#conn').textContent = token() ? 'signed in with a bearer token' : 'no token needed (loopback)';
  setInterval(() => void refreshHosts().catch(() => {}), REFRESH_MS);
}

$<HTMLFormElement>('#login').addEventListener('submit', (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $<HTMLInputElement>('#token').value.trim());
  $<HTMLInputElement>('#token').value = '';
  void start();
});
$<HTMLButtonElement>('#forget').addEventListener('click', () => {
  showLogin('');
});
$<HTMLFormElement>('#browse').addEventListener('submit', (ev) => {
  ev.preventDefault();
  void list();
});
$<HTMLButtonElement>('#next').addEventListener('click', () => void list(cursor));
$<HTMLButtonElement>('#space').addEventListener('click', () => void space());

void start();
